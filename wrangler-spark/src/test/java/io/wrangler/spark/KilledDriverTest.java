package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.WriteMode;
import io.wrangler.commit.Step;
import io.wrangler.commit.TableWrite;
import io.wrangler.commit.WriteSpec;
import io.wrangler.storage.RequestOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Spark driver runs in a child JVM and is killed with SIGKILL at a step of the commit (executors die with it, as a
 * cluster kills them when their driver goes). The same write is then rerun, or the table recovered, with core's code;
 * the table then holds the rows of one clean run (before the commit point: as before, for a recovery), nothing is left
 * under {@code _tmp/} and no multipart upload is open.
 */
class KilledDriverTest {
    static final String FIRST = "SELECT id, IF(id % 2 = 0, '2024-01-15', '2024-01-16') AS dt, IF(id % 3 = 0, 'RU', 'DE') AS country "
            + "FROM range(0, 12, 1, 2)";
    static final String SECOND = "SELECT id, IF(id % 2 = 0, '2024-01-16', '2024-01-17') AS dt, 'RU' AS country FROM range(100, 108, 1, 2)";
    /** Takes a killed driver's lease at once instead of after its two minutes. */
    private static final WriteSpec.Tuning TAKE_OVER = WriteSpec.Tuning.defaults().withClockOffset(Duration.ofMinutes(10));

    /** The table after one clean run of FIRST ("before") and then of SECOND in a mode (by its name). */
    private static final java.util.Map<String, List<List<Object>>> CLEAN = new java.util.concurrent.ConcurrentHashMap<>();

    private static List<List<Object>> clean(WriteMode second) {
        String clean = SparkLake.bucket();
        write(SparkParquet.write(SparkLake.spark().sql(FIRST)), WriteMode.APPEND).s3(SparkLake.settings()).to("s3://" + clean + "/t/");
        if (second != null) {
            write(SparkParquet.write(SparkLake.spark().sql(SECOND)), second).s3(SparkLake.settings()).to("s3://" + clean + "/t/");
        }
        return contents(clean);
    }

    static SparkWriteBuilder write(SparkWriteBuilder w, WriteMode mode) {
        return w.partitionBy("dt", "country").mode(mode).maxRowsPerFile(1);
    }

    static Stream<Arguments> kills() {
        // Two of the steps (a child Spark driver costs 15 to 35 s on this 2-core machine): an overwrite in the middle of
        // publishing (committed: recovery finishes it), and a plain append published but not ended (its commit point is
        // its end: undone, and the rerun adds its rows once). Before the commit point a killed driver leaves what a failed
        // job leaves before its abort (SparkFailuresTest), and the single-process KilledWriterTest covers every step.
        return Stream.of(
                Arguments.of(WriteMode.OVERWRITE_PARTITIONS, Step.COPIED_FILE, 3, false),
                Arguments.of(WriteMode.APPEND, Step.BEFORE_CLEANUP, 1, true));
    }

    private static List<List<Object>> contents(String bucket) {
        return SparkLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR), country, id FROM t ORDER BY ALL");
    }

    @ParameterizedTest(name = "{0} killed at {1}#{2}, rerun={3}")
    @MethodSource("kills")
    void aDriverKilledAtACommitStepIsRepairedByRerunOrRecover(WriteMode mode, Step step, int count, boolean rerun) throws Exception {
        String bucket = SparkLake.bucket();
        String table = "s3://" + bucket + "/t/";
        write(SparkParquet.write(SparkLake.spark().sql(FIRST)), WriteMode.APPEND).s3(SparkLake.settings()).to(table);

        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1g", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
                "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
                "--add-opens=java.base/java.net=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED", "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
                "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
                "--add-opens=java.base/sun.security.action=ALL-UNNAMED", "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
                "-Djdk.reflect.useDirectMethodHandle=false", "-Dio.netty.tryReflectionSetAccessible=true",
                "-cp", System.getProperty("java.class.path"), KilledDriverMain.class.getName(),
                SparkLake.s3().endpoint().toString(), table, mode.name(), step.name(), String.valueOf(count))
                .redirectErrorStream(true).start();
        String reached = null;
        StringBuilder log = new StringBuilder();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                log.append(line).append('\n');
                if (line.startsWith("AT ") || line.startsWith("FINISHED")) {
                    reached = line;
                    break;
                }
            }
            child.destroyForcibly(); // SIGKILL
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(reached).as(log.toString()).isEqualTo("AT " + step + " " + count);

        List<List<Object>> before = CLEAN.computeIfAbsent("before", k -> clean(null));
        List<List<Object>> after = CLEAN.computeIfAbsent(mode.name(), k -> clean(mode));
        assertThat(after).isNotEqualTo(before);

        if (rerun) {
            write(SparkParquet.write(SparkLake.spark().sql(SECOND)), mode).tuning(TAKE_OVER).s3(SparkLake.settings()).to(table);
            assertThat(contents(bucket)).isEqualTo(after);
        } else {
            TableWrite.recover(table, SparkLake.s3().client(), null, TAKE_OVER, RequestOptions.defaults());
            boolean committed = mode != WriteMode.APPEND && step.ordinal() >= Step.MANIFEST_WRITTEN.ordinal();
            assertThat(contents(bucket)).isEqualTo(committed ? after : before);
        }
        assertThat(SparkLake.keys(bucket, "t/_tmp/")).isEmpty();
        assertThat(SparkLake.s3().openMultipartUploads(bucket, "")).isEmpty();
    }
}
