package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.MemoryS3;
import io.wrangler.testkit.S3Endpoint;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The jar that goes to a cluster, on the class path a cluster gives it: wrangler-spark's shaded jar next to Spark as
 * it ships (4.0.1 with its own Arrow 18.1 and parquet-java 1.15.2; 3.5.5 with Arrow 12 and parquet-java 1.13; no
 * wrangler-core, no unrelocated Arrow or parquet-java of ours, no AWS SDK but the jar's), in a child JVM. The write
 * succeeds, Spark's own reader reads the values back, and so does DuckDB; the wrangler data source reads them too, with
 * no Hadoop S3 connector on the class path (core's reader, its relocated Arrow read by Spark as columns).
 */
class ShadedJarIT {
    @Test
    void theShadedJarWritesOnSpark40WithItsOwnArrowAndParquet() throws Exception {
        List<String> cp = new ArrayList<>();
        cp.add(System.getProperty("wrangler.shadedJar"));
        cp.add(System.getProperty("wrangler.testClasses"));
        try (Stream<Path> jars = Files.list(Path.of(System.getProperty("wrangler.sparksOwnJars")))) {
            jars.forEach(j -> cp.add(j.toString()));
        }
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String e = entry.replace('\\', '/');
            if (e.contains("/io/wrangler/") || e.contains("/org/apache/arrow/") || e.contains("/org/apache/parquet/")
                    || e.contains("/com/google/flatbuffers/") || e.contains("/software/amazon/awssdk/") || e.endsWith("/classes")
                    || e.endsWith("/test-classes") || e.endsWith(".jar") && e.contains("/target/")) {
                continue;
            }
            cp.add(entry);
        }
        runChild(cp, "arrow-vector-18.1.0.jar", "parquet-hadoop-1.15.2.jar");
    }

    /** Spark 3.5.5 (Scala 2.12), as AWS Glue 5.0 and EMR 7 run it: its whole class path, as Maven resolves it, and the shaded jar. */
    @Test
    void theShadedJarWritesOnSpark35WithItsOwnArrowAndParquet() throws Exception {
        List<String> cp = new ArrayList<>();
        cp.add(System.getProperty("wrangler.shadedJar"));
        cp.add(System.getProperty("wrangler.testClasses"));
        cp.addAll(List.of(Files.readString(Path.of(System.getProperty("wrangler.spark35ClassPath"))).trim().split(File.pathSeparator)));
        assertThat(cp).anyMatch(e -> e.endsWith("spark-sql_2.12-3.5.5.jar"));
        runChild(cp, "arrow-vector-12.0.1.jar", "parquet-hadoop-1.13.1.jar");
    }

    private static void runChild(List<String> cp, String sparksArrow, String sparksParquet) throws Exception {
        // The testkit's MemoryS3 served over HTTP (S3's REST API on the JDK's server): the child talks to it as to S3.
        MemoryS3 s3 = MemoryS3.start();
        try (S3Endpoint endpoint = s3.serve()) {
            s3.createBucket("lake");
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g",
                    "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                    "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
                    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
                    "--add-opens=java.base/java.net=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
                    "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED", "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
                    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
                    "--add-opens=java.base/sun.security.action=ALL-UNNAMED", "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
                    "-Djdk.reflect.useDirectMethodHandle=false", "-Dio.netty.tryReflectionSetAccessible=true",
                    "-cp", String.join(File.pathSeparator, cp), ShadedWriteMain.class.getName(), endpoint.endpoint().toString(), "lake"));
            Path out = Files.createTempFile("shaded-child", ".log");
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            boolean done = p.waitFor(4, TimeUnit.MINUTES);
            if (!done) {
                p.destroyForcibly();
            }
            String log = Files.readString(out, StandardCharsets.UTF_8);
            assertThat(done).as(log).isTrue();
            assertThat(p.exitValue()).as(log).isZero();
            List<String> lines = log.lines().filter(l -> l.startsWith("ARROW ") || l.startsWith("PARQUET ") || l.startsWith("RESULT ")
                    || l.startsWith("ROW ") || l.startsWith("S3A ") || l.startsWith("READ ")).toList();
            assertThat(lines.get(0)).startsWith("ARROW ").contains(sparksArrow);
            assertThat(lines.get(1)).startsWith("PARQUET ").contains(sparksParquet);
            assertThat(lines.subList(2, lines.size())).containsExactly("RESULT rows=6 partitions=2",
                    "ROW 0|0.00|2026-10-01 12:00:00|[0,1]|0", "ROW 1|1.50|2026-10-01 12:00:01|[1,2]|1",
                    "ROW 2|3.00|2026-10-01 12:00:02|[2,3]|0", "ROW 3|4.50|2026-10-01 12:00:03|[3,4]|1",
                    "ROW 4|6.00|2026-10-01 12:00:04|[4,5]|0", "ROW 5|7.50|2026-10-01 12:00:05|[5,6]|1", "S3A false",
                    "READ 0|0.00|2026-10-01 12:00:00|[0,1]|0", "READ 1|1.50|2026-10-01 12:00:01|[1,2]|1", "READ 2|3.00|2026-10-01 12:00:02|[2,3]|0",
                    "READ 3|4.50|2026-10-01 12:00:03|[3,4]|1", "READ 5|7.50|2026-10-01 12:00:05|[5,6]|1");
            assertThat(DuckReader.query(s3, "lake", "t/", "SELECT id, CAST(amount AS VARCHAR), epoch_us(ts) - epoch_us(TIMESTAMPTZ '2026-10-01 "
                    + "12:00:00+00'), CAST(part AS VARCHAR) FROM t WHERE id = 5")).containsExactly(List.of(5L, "7.50", 5_000_000L, "1"));
        }
    }
}
