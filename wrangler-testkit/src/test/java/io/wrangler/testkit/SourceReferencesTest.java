package io.wrangler.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SourceReferencesTest {
    @TempDir
    Path root;

    private void write(String pkg, String cls, String body) throws IOException {
        Path dir = root.resolve(pkg.replace('.', '/'));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(cls + ".java"), "package " + pkg + ";\n\n" + body);
    }

    @Test
    void importsAndQualifiedNamesCountCommentsAndStringsDoNot() throws IOException {
        write("io.wrangler", "Api", """
                import io.wrangler.inner.Engine;
                import static io.wrangler.util.Helpers.help;
                import io.wrangler.wild.*;
                /** See {@link io.wrangler.doc.OnlyInJavadoc}. */
                final class Api {
                    // io.wrangler.line.OnlyInAComment
                    String s = "io.wrangler.text.OnlyInAString";
                    char c = '"';
                    String block = \"""
                        io.wrangler.block.OnlyInATextBlock
                        \""";
                    Object o = new io.wrangler.qualified.Thing();
                    Object p = new com.example.io.wrangler.notours.Other();
                    Api same = null;
                }
                """);
        Map<String, Set<String>> refs = SourceReferences.of(root).references();
        assertThat(refs.get("io.wrangler.Api")).containsExactlyInAnyOrder("io.wrangler.inner.Engine", "io.wrangler.util.Helpers",
                "io.wrangler.wild.*", "io.wrangler.qualified.Thing");
        assertThat(SourceReferences.packageOf("io.wrangler.wild.*")).isEqualTo("io.wrangler.wild");
        assertThat(SourceReferences.packageOf("io.wrangler.commit.WriteSpec.Tuning")).isEqualTo("io.wrangler.commit");
    }

    @Test
    void classesOfTheSamePackageNamedBySimpleNameAreLocalReferences() throws IOException {
        write("io.wrangler", "Bridge", "final class Bridge { static void run() { } }\n");
        write("io.wrangler", "Caller", """
                /** Not through the {@link Bridge} in javadoc. */
                final class Caller {
                    // Bridge in a comment
                    String s = "Bridge in a string";
                    void go() { Bridge.run(); }
                }
                """);
        write("io.wrangler", "Quiet", "final class Quiet { String s = \"Bridge\"; }\n");
        write("io.wrangler.inner", "Other", "public final class Other { Object bridge; Object Bridge; }\n");
        Map<String, Set<String>> local = SourceReferences.of(root).localReferences();
        assertThat(local.get("io.wrangler.Caller")).containsExactly("io.wrangler.Bridge");
        assertThat(local.get("io.wrangler.Quiet")).isEmpty();
        assertThat(local.get("io.wrangler.Bridge")).isEmpty();
        assertThat(local.get("io.wrangler.inner.Other")).as("another package's class of the same simple name").isEmpty();
    }

    @Test
    void aCycleAmongNodesOneTestAcceptsIsWalkedOnce() throws IOException {
        write("io.wrangler.read", "Files", "import io.wrangler.commit.Spec;\npublic final class Files { }\n");
        write("io.wrangler.commit", "Spec", "import io.wrangler.read.Files;\npublic final class Spec { }\n");
        assertThat(SourceReferences.of(root).cycles(SourceReferences::packageOf, (cls, name) -> false, c -> true, n -> true, n -> true))
                .containsExactly("io.wrangler.commit -(Spec names io.wrangler.read.Files)-> io.wrangler.read "
                        + "-(Files names io.wrangler.commit.Spec)-> io.wrangler.commit");
    }

    @Test
    void aCycleIsReportedWithTheClassThatMakesEachStep() throws IOException {
        write("io.wrangler", "Api", "final class Api { }\n");
        write("io.wrangler", "Bridge", "import io.wrangler.inner.Engine;\nfinal class Bridge { }\n");
        write("io.wrangler.inner", "Engine", "import io.wrangler.Api;\npublic final class Engine { }\n");
        write("io.wrangler.inner", "Leaf", "public final class Leaf { }\n");
        SourceReferences refs = SourceReferences.of(root);
        assertThat(refs.cycles(SourceReferences::packageOf, (cls, name) -> false, c -> true, "io.wrangler"::equals,
                "io.wrangler.inner"::equals)).containsExactly(
                "io.wrangler -(Bridge names io.wrangler.inner.Engine)-> io.wrangler.inner -(Engine names io.wrangler.Api)-> io.wrangler");
        // The bridge kept apart as a node of its own (as the gate keeps S3Parquet), or its edge left out: no cycle.
        assertThat(refs.cycles(n -> n.equals("io.wrangler.Bridge") ? n : SourceReferences.packageOf(n), (cls, name) -> false, c -> true,
                n -> true, n -> true)).isEmpty();
        assertThat(refs.cycles(SourceReferences::packageOf, (cls, name) -> cls.endsWith(".Bridge"), c -> true, n -> true, n -> true))
                .isEmpty();
    }
}
