package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.ApiSurface;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The public API of wrangler-core is its three exported packages, {@code io.wrangler}, the catalog SPI
 * {@code io.wrangler.catalog} and the engine SPI {@code io.wrangler.spi} (README, "Public API"). No signature there may name a type of core's internal packages,
 * parquet-java or an S3 model type: the inputs it takes are Arrow's and the AWS SDK's clients.
 */
class ApiSurfaceTest {
    static final Set<String> EXPORTED = Set.of("io.wrangler", "io.wrangler.catalog", "io.wrangler.spi");
    /**
     * Arrow, the S3 client; and, in the catalog SPI's {@code SdkRetries}, the SDK's retry strategy and a request's
     * override configuration (what a catalog on the AWS SDK sets on its requests to retry as the engine does).
     */
    static final List<String> ALLOWED = List.of("org.apache.arrow.", "software.amazon.awssdk.services.s3.S3Client",
            "software.amazon.awssdk.retries.api.RetryStrategy", "software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration");

    @Test
    void exportedSignaturesNameOnlyExportedTypes() {
        assertThat(ApiSurface.violations(S3Parquet.class, EXPORTED, ALLOWED)).isEmpty();
    }

    @Test
    void readmeListsExactlyThePublicTypes() {
        List<Class<?>> types = ApiSurface.publicTypes(S3Parquet.class, EXPORTED);
        for (String pkg : EXPORTED) {
            assertThat(ApiSurface.documented(Path.of("..", "README.md"), pkg)).as(pkg).isEqualTo(ApiSurface.simpleNames(types, pkg));
        }
    }

    @Test
    void theCheckReadsEveryPublicTypeAndSeesAForeignTypeInASignature() {
        List<Class<?>> types = ApiSurface.publicTypes(S3Parquet.class, EXPORTED);
        assertThat(types).contains(S3Parquet.class, WriteBuilder.class, WriteResult.class, ReadBuilder.class,
                io.wrangler.catalog.CatalogTable.class).hasSizeGreaterThan(20);
        // Without the S3 client allowed, the builders' s3(S3Client) setters are what the check must flag.
        List<String> v = ApiSurface.violations(S3Parquet.class, EXPORTED, ALLOWED.stream().filter(a -> !a.endsWith(".S3Client")).toList());
        assertThat(v).contains("io.wrangler.WriteBuilder.s3() names software.amazon.awssdk.services.s3.S3Client")
                .allMatch(s -> s.endsWith(" names software.amazon.awssdk.services.s3.S3Client"));
    }
}
