package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.ApiSurface;
import io.wrangler.testkit.SourceReferences;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * wrangler-spark exports {@code io.wrangler.spark}. Spark instantiates its data source by name, so some of its types
 * are public for Spark, not for users; their signatures may name Spark's and Arrow's types, core's exported packages and
 * the SDK's S3 client, never core's internals or parquet-java. Its main sources compile against core's API and SPI
 * packages and wrangler-glue only: a distributed write goes through {@code io.wrangler.spi}, never core's internals
 * (its tests may, where they assert protocol details).
 */
class ApiSurfaceTest {
    @Test
    void exportedSignaturesNameOnlyExportedTypes() {
        assertThat(ApiSurface.publicTypes(SparkParquet.class, Set.of("io.wrangler.spark"))).contains(SparkParquet.class);
        assertThat(ApiSurface.violations(SparkParquet.class, Set.of("io.wrangler.spark"),
                List.of("io.wrangler", "io.wrangler.catalog", "org.apache.spark.", "org.apache.arrow.", "scala.",
                        "software.amazon.awssdk.services.s3.S3Client"))).isEmpty();
    }

    @Test
    void readmeListsExactlyThePublicTypes() {
        assertThat(ApiSurface.documented(Path.of("..", "README.md"), "io.wrangler.spark"))
                .isEqualTo(ApiSurface.simpleNames(ApiSurface.publicTypes(SparkParquet.class, Set.of("io.wrangler.spark")), "io.wrangler.spark"));
    }

    /** The wrangler packages wrangler-spark's main sources may name: core's API and its two SPIs, and wrangler-glue. */
    static final Set<String> ALLOWED = Set.of("io.wrangler", "io.wrangler.spi", "io.wrangler.catalog", "io.wrangler.glue");

    @Test
    void mainSourcesNameOnlyTheApiAndSpiPackages() {
        Map<String, Set<String>> reached = SourceReferences.of(Path.of("src", "main", "java")).byPackage();
        List<String> violations = new ArrayList<>();
        reached.forEach((pkg, refs) -> {
            if (!ALLOWED.contains(pkg)) {
                violations.addAll(refs);
            }
        });
        assertThat(violations).as("wrangler-spark's main sources name core's internals (use io.wrangler.spi; add what is missing there)")
                .isEmpty();
        assertThat(reached).as("the scanner sees the SPI it checks").containsKeys("io.wrangler.spi", "io.wrangler");
    }
}
