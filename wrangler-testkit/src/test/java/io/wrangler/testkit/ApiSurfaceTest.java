package io.wrangler.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * wrangler-testkit exports {@code io.wrangler.testkit}: README lists its public types, and their signatures name only
 * the JDK, Arrow, the AWS SDK (its clients and the S3 model types a fault is made of) and its own types.
 */
class ApiSurfaceTest {
    private static final Set<String> EXPORTED = Set.of("io.wrangler.testkit");

    @Test
    void exportedSignaturesNameOnlyExportedTypes() {
        assertThat(ApiSurface.violations(LocalS3.class, EXPORTED, List.of("org.apache.arrow.", "software.amazon.awssdk."))).isEmpty();
    }

    @Test
    void readmeListsExactlyThePublicTypes() {
        assertThat(ApiSurface.documented(Path.of("..", "README.md"), "io.wrangler.testkit"))
                .isEqualTo(ApiSurface.simpleNames(ApiSurface.publicTypes(LocalS3.class, EXPORTED), "io.wrangler.testkit"));
    }

    @Test
    void aSignatureNamingATypeOutsideTheSurfaceIsFlagged() {
        // LocalS3.client() returns the SDK's S3Client: with the SDK not allowed, that signature must be reported.
        assertThat(ApiSurface.violations(LocalS3.class, EXPORTED, List.of("org.apache.arrow.")))
                .anyMatch(v -> v.startsWith("io.wrangler.testkit.LocalS3.client() names software.amazon.awssdk.services.s3.S3Client"));
    }
}
