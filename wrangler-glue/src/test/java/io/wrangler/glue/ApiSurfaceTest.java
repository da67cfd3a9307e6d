package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.ApiSurface;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
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

    @Test
    void readmeListsExactlyThePublicTypes() {
        assertThat(ApiSurface.documented(Path.of("..", "README.md"), "io.wrangler.glue"))
                .isEqualTo(ApiSurface.simpleNames(ApiSurface.publicTypes(GlueCatalog.class, Set.of("io.wrangler.glue")), "io.wrangler.glue"));
    }
}
