package io.wrangler.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Runs README's Java snippets that are marked {@code <!-- runs in CI: ReadmeSnippetsTest -->}, in JShell, against the
 * table the main job writes ({@code s3://lake/marts/orders/}, Glue's {@code analytics.orders}), with {@code s3} and
 * {@code glue} bound to the embedded lake's clients. A snippet that does not compile, or throws, fails the test: README's
 * examples cannot drift from the API or from the table they claim to read.
 */
public class ReadmeSnippetsTest {
    static final String MARK = "<!-- runs in CI: ReadmeSnippetsTest -->";

    /** What the snippets see as {@code s3} and {@code glue}: set before they run (JShell's local engine shares this JVM). */
    public static S3Client s3;
    public static GlueClient glue;

    @Test
    void readmesMarkedSnippetsRunAgainstTheMainJobsTable(@TempDir Path folder) throws Exception {
        List<String> snippets = markedSnippets(Files.readString(Path.of("../README.md")));
        assertThat(snippets).as("README's marked snippets").hasSizeGreaterThanOrEqualTo(4);
        DailyOrders.main(new String[] {folder.toString()});
        try (ExampleLake lake = ExampleLake.open(folder)) {
            s3 = lake.s3();
            glue = lake.glue();
            for (String snippet : snippets) {
                run(snippet);
            }
        }
    }

    /** The bodies of the fenced java blocks that directly follow the mark. */
    static List<String> markedSnippets(String readme) {
        List<String> out = new ArrayList<>();
        String[] lines = readme.split("\n", -1);
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].trim().equals(MARK) && lines[i + 1].trim().equals("```java")) {
                StringBuilder body = new StringBuilder();
                int j = i + 2;
                for (; j < lines.length && !lines[j].trim().equals("```"); j++) {
                    body.append(lines[j]).append('\n');
                }
                out.add(body.toString());
                i = j;
            }
        }
        return out;
    }

    private static void run(String snippet) {
        try (JShell shell = JShell.builder().executionEngine("local").build()) {
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
                shell.addToClasspath(entry);
            }
            List<String> setup = List.of("import io.wrangler.*;", "import io.wrangler.glue.*;", "import java.util.*;", "import java.time.*;",
                    "import org.apache.arrow.vector.*;", "import org.apache.arrow.vector.ipc.*;",
                    "var s3 = io.wrangler.examples.ReadmeSnippetsTest.s3;", "var glue = io.wrangler.examples.ReadmeSnippetsTest.glue;");
            List<String> all = new ArrayList<>(setup);
            all.addAll(split(shell, snippet));
            for (String source : all) {
                for (SnippetEvent e : shell.eval(source)) {
                    if (e.exception() != null) {
                        throw new AssertionError("README snippet threw at: " + source.strip() + "\n" + e.exception(), e.exception());
                    }
                    if (e.status() == Snippet.Status.REJECTED) {
                        List<String> errors = shell.diagnostics(e.snippet()).map(d -> d.getMessage(null)).toList();
                        throw new AssertionError("README snippet does not compile: " + source.strip() + "\n" + errors + "\nin:\n" + snippet);
                    }
                }
            }
        }
    }

    /** The snippet cut into JShell's complete statements and declarations. */
    private static List<String> split(JShell shell, String snippet) {
        List<String> out = new ArrayList<>();
        SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
        String rest = snippet;
        while (!rest.isBlank()) {
            SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(rest);
            if (info.completeness() == SourceCodeAnalysis.Completeness.EMPTY) {
                break;
            }
            if (!info.completeness().isComplete()) {
                throw new AssertionError("README snippet is not complete Java: " + rest);
            }
            out.add(info.source());
            rest = info.remaining();
        }
        return out;
    }
}
