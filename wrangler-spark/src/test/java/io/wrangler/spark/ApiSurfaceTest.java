package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.ApiSurface;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * wrangler-spark exports {@code io.wrangler.spark}. Spark instantiates its data source by name, so some of its types
 * are public for Spark, not for users; their signatures may name Spark's and Arrow's types, core's exported packages and
 * the SDK's S3 client, never core's internals or parquet-java.
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
}
