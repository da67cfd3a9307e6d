package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.ApiSurface;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The gate that every public method of the API ({@code io.wrangler}) is called by some test of the project, by name
 * ({@link ApiSurface#uncalled}: every module's tests count, Spark's and glue's included). A new public method without a
 * test fails here, named. {@link #ALLOWED} lists the few methods that cannot be called by name, each with its reason.
 */
class PublicMethodsTestedTest {
    /** None today: the JDK's overrides and an enum's implicit methods are left out by the check itself. */
    static final Set<String> ALLOWED = Set.of();

    /** The {@code src/test/java} of every module of the project. */
    static List<Path> testRoots() throws IOException {
        try (Stream<Path> modules = Files.list(Path.of(".."))) {
            return modules.filter(m -> m.getFileName().toString().startsWith("wrangler-")).map(m -> m.resolve("src/test/java"))
                    .filter(Files::isDirectory).sorted().toList();
        }
    }

    @Test
    void everyPublicMethodOfTheApiIsCalledByATest() throws IOException {
        List<Class<?>> types = ApiSurface.publicTypes(S3Parquet.class, Set.of("io.wrangler"));
        assertThat(types).hasSizeGreaterThan(20);
        assertThat(ApiSurface.uncalled(types, testRoots(), ALLOWED))
                .as("public methods of the API that no test calls by name: add a test that calls each (or, if it cannot be "
                        + "called by name, add it to ALLOWED with the reason)")
                .isEmpty();
    }
}
