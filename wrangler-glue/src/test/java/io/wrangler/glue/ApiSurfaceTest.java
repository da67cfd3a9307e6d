package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.ApiSurface;
import io.wrangler.testkit.SourceReferences;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * wrangler-glue exports {@code io.wrangler.glue}: its signatures name only its own types, core's exported packages
 * ({@code io.wrangler}, the catalog SPI {@code io.wrangler.catalog}) and the SDK's {@code GlueClient}, never a Glue
 * model type or one of core's internals.
 */
class ApiSurfaceTest {
    @Test
    void exportedSignaturesNameOnlyExportedTypes() {
        assertThat(ApiSurface.publicTypes(GlueCatalog.class, Set.of("io.wrangler.glue"))).contains(GlueCatalog.class, GlueTable.class);
        assertThat(ApiSurface.violations(GlueCatalog.class, Set.of("io.wrangler.glue"),
                List.of("io.wrangler", "io.wrangler.catalog", "software.amazon.awssdk.services.glue.GlueClient"))).isEmpty();
    }

    /**
     * The wrangler packages wrangler-glue's main sources may name: core's API, the catalog SPI, the Hive grammar every
     * layer shares ({@code io.wrangler.hive}) and its own.
     */
    static final Set<String> ALLOWED = Set.of("io.wrangler", "io.wrangler.catalog", "io.wrangler.hive", "io.wrangler.glue");

    @Test
    void mainSourcesNameOnlyTheApiTheCatalogSpiAndTheHiveGrammar() {
        Map<String, Set<String>> reached = SourceReferences.of(Path.of("src", "main", "java")).byPackage();
        Set<String> internals = new TreeSet<>();
        reached.forEach((pkg, refs) -> {
            if (pkg.startsWith("io.wrangler") && !ALLOWED.contains(pkg)) {
                refs.forEach(r -> internals.add(r.substring(r.indexOf(" names ") + " names ".length()))); // "<class> names <type>"
            }
        });
        assertThat(internals).as("wrangler-glue's main sources name core's internals (use the catalog SPI; add what is missing there)")
                .isEmpty();
        assertThat(reached).as("the scanner sees what it checks").containsKeys("io.wrangler.catalog", "io.wrangler.hive");
        assertThat(reached.get("io.wrangler.catalog")).as("the retries, through the catalog SPI")
                .contains("io.wrangler.glue.Retry names io.wrangler.catalog.SdkRetries");
    }

    @Test
    void readmeListsExactlyThePublicTypes() {
        assertThat(ApiSurface.documented(Path.of("..", "README.md"), "io.wrangler.glue"))
                .isEqualTo(ApiSurface.simpleNames(ApiSurface.publicTypes(GlueCatalog.class, Set.of("io.wrangler.glue")), "io.wrangler.glue"));
    }

    /** Every public method of glue's public classes is called by some test of the project, by name (see ApiSurface.uncalled). */
    @Test
    void everyPublicMethodIsCalledByATest() throws java.io.IOException {
        List<Path> roots;
        try (java.util.stream.Stream<Path> modules = java.nio.file.Files.list(Path.of(".."))) {
            roots = modules.filter(m -> m.getFileName().toString().startsWith("wrangler-")).map(m -> m.resolve("src/test/java"))
                    .filter(java.nio.file.Files::isDirectory).sorted().toList();
        }
        assertThat(ApiSurface.uncalled(ApiSurface.publicTypes(GlueCatalog.class, Set.of("io.wrangler.glue")), roots, Set.of()))
                .as("public methods of wrangler-glue that no test calls by name").isEmpty();
    }
}
