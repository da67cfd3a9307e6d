package consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README's Spark snippet, compiled as written against this project's class path (wrangler-spark, Spark SQL), with
 * {@code events} a {@code Dataset<Row>} and {@code glue} a {@code GlueClient}. It is not run: it writes to AWS; the same
 * write to a local endpoint runs in {@link SparkConsumerTest}.
 */
class ReadmeSparkSnippetTest {
    static final String MARK = "<!-- compiled in CI: wrangler-examples/spark-consumer, ReadmeSparkSnippetTest -->";

    @Test
    void readmesSparkSnippetCompilesAsWritten(@TempDir Path dir) throws Exception {
        String readme = Files.readString(Path.of("../../README.md"), StandardCharsets.UTF_8);
        int mark = readme.indexOf(MARK + "\n```java\n");
        assertTrue(mark >= 0, "README holds the marked java block");
        int from = mark + MARK.length() + "\n```java\n".length();
        String snippet = readme.substring(from, readme.indexOf("\n```\n", from) + 1);
        assertTrue(snippet.contains("SparkParquet.write(events)"), snippet);

        String source = String.join("\n", "import io.wrangler.*;", "import io.wrangler.glue.*;", "import io.wrangler.spark.*;",
                "import org.apache.spark.sql.Dataset;", "import org.apache.spark.sql.Row;",
                "import software.amazon.awssdk.services.glue.GlueClient;",
                "class ReadmeSpark {", "static void snippet(Dataset<Row> events, GlueClient glue) {", snippet, "}", "}", "");
        Path file = dir.resolve("ReadmeSpark.java");
        Files.writeString(file, source, StandardCharsets.UTF_8);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(null, errors, errors, "--release", "17", "-cp", System.getProperty("java.class.path"), "-d",
                dir.toString(), file.toString());
        assertEquals(0, rc, "README's Spark snippet does not compile:\n" + errors + "\n" + source);
    }
}
