package io.wrangler.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Runs README's Java snippets that are marked {@code <!-- runs in CI: ReadmeSnippetsTest -->}, in one JShell and in
 * README's order, on the main job's lake (its table {@code s3://lake/marts/orders/}, Glue's {@code analytics.orders}),
 * with {@code s3} and {@code glue} bound to the embedded lake's clients; and checks that every other java block of README
 * is marked as compiled by a test elsewhere. A snippet that does not compile, or throws, fails the test: README's
 * examples cannot drift from the API or from the table they claim to read.
 */
public class ReadmeSnippetsTest {
    static final String MARK = "<!-- runs in CI: ReadmeSnippetsTest -->";
    /** The mark of a block that a test of another project compiles (and maybe runs): its folder and test class. */
    static final Pattern ELSEWHERE = Pattern.compile("<!-- compiled (and run )?in CI: ([\\w./-]+), (\\w+) -->");

    /** What the snippets see as {@code s3} and {@code glue}: set before they run (JShell's local engine shares this JVM). */
    public static S3Client s3;
    public static GlueClient glue;

    @Test
    void readmesMarkedSnippetsRunAgainstTheMainJobsTable(@TempDir Path folder) throws Exception {
        List<String> snippets = markedSnippets(Files.readString(Path.of("../README.md")));
        assertThat(snippets).as("README's marked snippets").hasSizeGreaterThanOrEqualTo(10);
        DailyOrders.main(new String[] {folder.toString()});
        try (ExampleLake lake = ExampleLake.open(folder)) {
            s3 = lake.s3();
            glue = lake.glue();
            try (JShell shell = shell()) {
                for (String snippet : snippets) {
                    run(shell, snippet);
                }
            }
        }
    }

    /**
     * Every java block of README says where CI checks it: run here ({@link #MARK}), or compiled (and run) by a named test
     * of a named project ({@code <!-- compiled in CI: <project folder>, <TestClass> -->}), whose source must exist and
     * hold that very mark (so that it reads the block).
     */
    @Test
    void everyJavaBlockOfReadmeIsCheckedByATest() throws Exception {
        List<String> problems = unchecked(Files.readString(Path.of("../README.md")), Path.of(".."));
        assertThat(problems).as("README's java blocks that no test runs or compiles").isEmpty();
    }

    @Test
    void aJavaBlockWithoutAMarkOrWithAMarkNamingNoTestIsReported() throws Exception {
        String readme = String.join("\n", "Text.", "```java", "int a = 1;", "```", "",
                "<!-- compiled in CI: wrangler-examples/consumer, NoSuchTest -->", "```java", "int b = 2;", "```", "",
                "<!-- compiled and run in CI: wrangler-examples/consumer, FirstProgramTest -->", "```java", "int c = 3;", "```",
                MARK, "```java", "int d = 4;", "```", "");
        assertThat(unchecked(readme, Path.of(".."))).containsExactly(
                "line 2: a java block with neither " + MARK + " nor <!-- compiled in CI: <project>, <Test> --> before it",
                "line 7: <!-- compiled in CI: wrangler-examples/consumer, NoSuchTest --> names no test class NoSuchTest under "
                        + "wrangler-examples/consumer/src/test/java that holds this mark");
    }

    /** The java blocks of {@code readme} not marked as run here or compiled by a test that exists and reads them. */
    static List<String> unchecked(String readme, Path root) throws IOException {
        List<String> out = new ArrayList<>();
        String[] lines = readme.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].trim().startsWith("```java")) {
                continue;
            }
            String before = i == 0 ? "" : lines[i - 1].trim();
            Matcher elsewhere = ELSEWHERE.matcher(before);
            if (before.equals(MARK)) {
                continue;
            } else if (!elsewhere.matches()) {
                out.add("line " + (i + 1) + ": a java block with neither " + MARK + " nor <!-- compiled in CI: <project>, <Test> --> before it");
            } else if (!testReads(root.resolve(elsewhere.group(2)), elsewhere.group(3), before)) {
                out.add("line " + (i + 1) + ": " + before + " names no test class " + elsewhere.group(3) + " under "
                        + elsewhere.group(2) + "/src/test/java that holds this mark");
            }
        }
        return out;
    }

    private static boolean testReads(Path project, String testClass, String mark) throws IOException {
        Path tests = project.resolve("src/test/java");
        if (!Files.isDirectory(tests)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(tests)) {
            for (Path f : files.filter(f -> f.getFileName().toString().equals(testClass + ".java")).toList()) {
                if (Files.readString(f).contains(mark)) {
                    return true;
                }
            }
        }
        return false;
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

    /** One JShell for all the snippets, in README's order: a later one may use what an earlier one declared. */
    private static JShell shell() {
        JShell shell = JShell.builder().executionEngine("local").build();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            shell.addToClasspath(entry);
        }
        run(shell, String.join("\n", "import io.wrangler.*;", "import io.wrangler.glue.*;", "import java.util.*;", "import java.time.*;",
                "import org.apache.arrow.vector.*;", "import org.apache.arrow.vector.ipc.*;",
                "var s3 = io.wrangler.examples.ReadmeSnippetsTest.s3;", "var glue = io.wrangler.examples.ReadmeSnippetsTest.glue;"));
        return shell;
    }

    private static void run(JShell shell, String snippet) {
        for (String source : split(shell, snippet)) {
            for (SnippetEvent e : shell.eval(source)) {
                if (e.causeSnippet() != null) {
                    continue;   // an earlier declaration updated by this one (a record declared again)
                }
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
