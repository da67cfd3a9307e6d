package consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README's "First program" and its second block (the lake served over HTTP), compiled as written (javac, this project's
 * class path: wrangler-core, wrangler-glue and wrangler-testkit from the BOM) and run: what each prints is what README
 * says it prints.
 */
class FirstProgramTest {
    static final String MARK = "<!-- compiled and run in CI: wrangler-examples/consumer, FirstProgramTest -->";

    @Test
    void readmesFirstProgramCompilesAndRunsAsWritten(@TempDir Path dir) throws Exception {
        String readme = Files.readString(Path.of("../../README.md"), StandardCharsets.UTF_8);
        int section = readme.indexOf("\n## First program\n");
        assertTrue(section >= 0, "README has a section '## First program'");
        String printed = compileAndRun(readme, section, "FirstProgram", dir);
        assertEquals(List.of("[Sale[dt=2024-01-15, country=DE, cents=250], Sale[dt=2024-01-16, country=RU, cents=100]]"), List.of(printed));
    }

    /** The second block of "First program": the same MemoryS3 served over HTTP (S3Endpoint) and read through it. */
    @Test
    void readmesSharedLakeCompilesAndRunsAsWritten(@TempDir Path dir) throws Exception {
        String readme = Files.readString(Path.of("../../README.md"), StandardCharsets.UTF_8);
        int section = readme.indexOf("When another process needs the lake", readme.indexOf("\n## First program\n"));
        assertTrue(section >= 0, "README's First program says how another process reaches the lake");
        String printed = compileAndRun(readme, section, "SharedLake", dir);
        assertEquals("[Sale[country=DE, cents=250]]", printed);
    }

    /**
     * Compiles the marked java block that follows {@code from} in {@code readme} (class {@code className}), runs it and
     * checks that it prints what the text after it ("It prints `...`") says; returns what it printed.
     */
    private String compileAndRun(String readme, int from, String className, Path dir) throws Exception {
        int mark = readme.indexOf(MARK + "\n```java\n", from);
        assertTrue(mark >= 0, "README holds the marked java block of " + className);
        int start = mark + MARK.length() + "\n```java\n".length();
        String source = readme.substring(start, readme.indexOf("\n```\n", start) + 1);
        assertTrue(source.lines().count() <= 25, "a first program is short: " + source.lines().count() + " lines");

        Path file = dir.resolve(className + ".java");
        Files.writeString(file, source, StandardCharsets.UTF_8);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(null, errors, errors, "--release", "17", "-cp", System.getProperty("java.class.path"), "-d",
                dir.toString(), file.toString());
        assertEquals(0, rc, "README's " + className + " does not compile:\n" + errors);

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream console = System.out;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            loader.loadClass(className).getMethod("main", String[].class).invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(console);
        }
        String printed = out.toString(StandardCharsets.UTF_8).strip();
        String promised = readme.substring(readme.indexOf("It prints `", start) + "It prints `".length());
        promised = promised.substring(0, promised.indexOf('`'));
        assertEquals(promised, printed);
        return printed;
    }
}
