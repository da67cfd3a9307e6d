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

    /** The testkit's own public fixtures: each public method is called by some test of the project. */
    @Test
    void everyPublicMethodOfTheFixturesIsCalledByATest() throws java.io.IOException {
        List<java.nio.file.Path> roots;
        try (java.util.stream.Stream<Path> modules = java.nio.file.Files.list(Path.of(".."))) {
            roots = modules.filter(m -> m.getFileName().toString().startsWith("wrangler-")).map(m -> m.resolve("src/test/java"))
                    .filter(java.nio.file.Files::isDirectory).sorted().toList();
        }
        assertThat(ApiSurface.uncalled(ApiSurface.publicTypes(LocalS3.class, EXPORTED), roots, Set.of()))
                .as("public methods of the testkit that no test calls by name").isEmpty();
    }

    /** A probe for the gate: one public method called below, one called nowhere, one an override of Object's. */
    public static final class Probe {
        public int probeCalled() {
            return 1;
        }

        public int probeThatNoTestCalls() {
            return 2;
        }

        public static int probeStatic() {
            return 3;
        }

        @Override
        public String toString() {
            return "probe";
        }
    }

    @Test
    void theGateNamesAPublicMethodNoTestCallsAndNotOneCalled() {
        assertThat(new Probe().probeCalled() + Probe.probeStatic()).isEqualTo(4);
        // "probeThatNoTestCalls()" in a comment or a string is no call: .probeThatNoTestCalls() here neither
        List<String> uncalled = ApiSurface.uncalled(List.of(Probe.class), List.of(Path.of("src/test/java")), Set.of());
        assertThat(uncalled).containsExactly("ApiSurfaceTest.Probe.probeThatNoTestCalls()");
        assertThat(ApiSurface.uncalled(List.of(Probe.class), List.of(Path.of("src/test/java")), Set.of("ApiSurfaceTest.Probe.probeThatNoTestCalls")))
                .isEmpty();
    }

    @Test
    void aSignatureNamingATypeOutsideTheSurfaceIsFlagged() {
        // LocalS3.client() returns the SDK's S3Client: with the SDK not allowed, that signature must be reported.
        assertThat(ApiSurface.violations(LocalS3.class, EXPORTED, List.of("org.apache.arrow.")))
                .anyMatch(v -> v.startsWith("io.wrangler.testkit.LocalS3.client() names software.amazon.awssdk.services.s3.S3Client"));
    }
}
