package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The write and read paths run on wrangler-core's runtime class path, which holds no Hadoop class. */
class WritesWithoutHadoopTest {
    @Test
    void writesAndReadsEveryCodecWithNoHadoopClassOnTheClassPath() throws Exception {
        String runtime = Files.readString(Path.of("target/runtime-classpath.txt"), StandardCharsets.UTF_8).trim();
        assertThat(runtime).doesNotContain("hadoop-client").doesNotContain("hadoop-common");
        String classPath = String.join(File.pathSeparator, Path.of("target/classes").toAbsolutePath().toString(),
                Path.of("target/test-classes").toAbsolutePath().toString(), runtime);
        String bucket = TestLake.bucket();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", classPath, NoHadoopMain.class.getName(),
                TestLake.s3().endpoint().toString(), bucket));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
        assertThat(output).contains("written without hadoop");

        assertThat(TestLake.query(bucket, "nohadoop/", "SELECT country, count(*), count(DISTINCT split_part(\"orderId\", '-', 1)) FROM t GROUP BY ALL ORDER BY ALL"))
                .containsExactly(List.of("DE", 50L, 5L), List.of("RU", 50L, 5L));
        Object sum = TestLake.query(bucket, "nohadoop/", "SELECT sum(\"amountCents\")::BIGINT FROM t").get(0).get(0);
        assertThat(output).contains("read without hadoop: 100 rows, amountCents " + sum);
    }
}
