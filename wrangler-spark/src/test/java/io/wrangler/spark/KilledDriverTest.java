package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.WriteMode;
import io.wrangler.commit.Step;
import io.wrangler.commit.Writes;
import io.wrangler.commit.WriteSpec;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import io.wrangler.storage.RequestOptions;
import io.wrangler.testkit.LocalGlue;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Spark driver runs in a child JVM and is killed with SIGKILL at a step of the commit (executors die with it, as a
 * cluster kills them when their driver goes), at the steps where what a Spark write leaves differs from a single
 * process's write (see {@link #kills()}). The same write is then rerun,
 * or the table recovered, with core's code and the write's Glue table; the table then equals one clean run (before the
 * commit point: as before, for a recovery): the same rows, the files the write does not replace byte-identical, the same
 * Glue partitions, nothing under {@code _tmp/} and no open multipart upload.
 *
 * <p>Two cases at a time (each in a bucket and Glue table of its own): a child driver mostly starts Spark on one core,
 * and this class runs late in its module, when the other modules' tests are mostly done; one at a time it was the build's longest
 * stretch on one core. It runs beside the module's other classes, all on the JVM's one Spark session; the class that
 * switches that session to another master waits for it ({@link SparkLake#SESSION_LOCK}).
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(value = SparkLake.SESSION_LOCK, mode = ResourceAccessMode.READ) // beside every other class, not a master switch
class KilledDriverTest {
    static final String FIRST = "SELECT id, IF(id % 2 = 0, '2024-01-15', '2024-01-16') AS dt, IF(id % 3 = 0, 'RU', 'DE') AS country "
            + "FROM range(0, 12, 1, 2)";
    static final String SECOND = "SELECT id, IF(id % 2 = 0, '2024-01-16', '2024-01-17') AS dt, 'RU' AS country FROM range(100, 108, 1, 2)";
    /** The partitions SECOND writes. */
    private static final List<String> SECOND_FOLDERS = List.of("t/dt=2024-01-16/country=RU/", "t/dt=2024-01-17/country=RU/");
    /** Takes a killed driver's lease at once instead of after its time to live. */
    private static final WriteSpec.Tuning TAKE_OVER = WriteSpec.Tuning.defaults().withClockOffset(Duration.ofMinutes(10));

    private static LocalGlue glue;

    /** The table (rows, then Glue partitions) after one clean run of FIRST ("before") and then of SECOND in a mode (by its name). */
    private static final Map<String, List<List<Object>>> CLEAN = new ConcurrentHashMap<>();

    @BeforeAll
    static void startGlue() {
        glue = LocalGlue.start();
    }

    @AfterAll
    static void stopGlue() {
        glue.close();
    }

    static SparkWriteBuilder write(SparkWriteBuilder w, WriteMode mode) {
        return w.partitionBy("dt", "country").mode(mode).maxRowsPerFile(1);
    }

    static GlueTable catalog(GlueCatalog glue, String table) {
        return glue.table("killed", table).createDatabase(true);
    }

    private static GlueTable catalog(String table) {
        return catalog(GlueCatalog.of(glue.client()), table);
    }

    private static String glueName(String bucket) {
        return bucket.replace('-', '_');
    }

    private static List<List<Object>> clean(WriteMode second) {
        String clean = SparkLake.bucket();
        write(SparkParquet.write(SparkLake.spark().sql(FIRST)), WriteMode.APPEND).catalog(catalog(glueName(clean)))
                .s3(SparkLake.settings()).to("s3://" + clean + "/t/");
        if (second != null) {
            write(SparkParquet.write(SparkLake.spark().sql(SECOND)), second).catalog(catalog(glueName(clean)))
                    .s3(SparkLake.settings()).to("s3://" + clean + "/t/");
        }
        return contents(clean);
    }

    /** Rows, then one line per Glue partition: its values and its Location under the table root. */
    private static List<List<Object>> contents(String bucket) {
        List<List<Object>> out = new ArrayList<>(SparkLake.query(bucket, "t/", "SELECT CAST(dt AS VARCHAR), country, id FROM t ORDER BY ALL"));
        String root = "s3://" + bucket + "/t/";
        List<List<Object>> partitions = new ArrayList<>();
        glue.client().getPartitions(b -> b.databaseName("killed").tableName(glueName(bucket))).partitions().forEach(p -> {
            String location = p.storageDescriptor().location();
            partitions.add(List.of("glue partition", String.join("/", p.values()),
                    location.startsWith(root) ? location.substring(root.length()) : location));
        });
        partitions.sort((a, b) -> a.toString().compareTo(b.toString()));
        out.addAll(partitions);
        return out;
    }

    static Stream<Arguments> kills() {
        // The steps where a killed Spark driver leaves what a killed single process does not (STAGED_FILE is the
        // executors', VALIDATE and RECOVER come before the write records itself): the write recorded before its tasks
        // ran (STARTED), the executors' files staged under their task attempts' prefixes and the commit point not passed
        // (LISTED_OLD_FILES), the commit point with the manifest the driver made of its tasks' reports (MANIFEST_WRITTEN);
        // then the Glue step (BEFORE_CATALOG) and an append recovered past its commit point (BEFORE_CLEANUP). Between
        // them the driver runs core's publish alone, its executors done: killed at COPIED_FILE, DELETED_BATCH or
        // STAGING_REMOVED it leaves what a single process killed there leaves, which core's KilledOverwriteTest and
        // KilledAppendTest kill a writer at (then rerun or recovered) and wrangler-glue's InterleavingTest stops a writer
        // at, with Glue, in all three modes; those three children (about 13 CPU s each) were dropped. Rerun and recovery alternate over the three modes.
        return Stream.of(
                Arguments.of(WriteMode.OVERWRITE_PARTITIONS, Step.STARTED, 1, false),
                Arguments.of(WriteMode.APPEND, Step.LISTED_OLD_FILES, 1, true),
                Arguments.of(WriteMode.OVERWRITE, Step.MANIFEST_WRITTEN, 1, false),
                Arguments.of(WriteMode.OVERWRITE_PARTITIONS, Step.BEFORE_CATALOG, 1, true),
                Arguments.of(WriteMode.APPEND, Step.BEFORE_CLEANUP, 1, false));
    }

    @ParameterizedTest(name = "{0} killed at {1}#{2}, rerun={3}")
    @MethodSource("kills")
    void aDriverKilledAtACommitStepIsRepairedByRerunOrRecover(WriteMode mode, Step step, int count, boolean rerun) throws Exception {
        String bucket = SparkLake.bucket();
        String table = "s3://" + bucket + "/t/";
        write(SparkParquet.write(SparkLake.spark().sql(FIRST)), WriteMode.APPEND).catalog(catalog(glueName(bucket)))
                .s3(SparkLake.settings()).to(table);
        Map<String, byte[]> first = SparkLake.snapshot(bucket, "t/");

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
                SparkLake.s3().endpoint().toString(), table, mode.name(), step.name(), String.valueOf(count), glue.endpoint().toString(),
                glueName(bucket))
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

        boolean applied;
        if (rerun) {
            write(SparkParquet.write(SparkLake.spark().sql(SECOND)), mode).catalog(catalog(glueName(bucket))).leaseClockOffset(TAKE_OVER.clockOffset())
                    .s3(SparkLake.settings()).to(table);
            applied = true;
        } else {
            Writes.recover(table, SparkLake.s3().client(), catalog(glueName(bucket)), TAKE_OVER, RequestOptions.defaults());
            applied = mode != WriteMode.APPEND && step.ordinal() >= Step.MANIFEST_WRITTEN.ordinal();
        }
        assertThat(contents(bucket)).isEqualTo(applied ? after : before);
        // The files the write does not replace are the first write's, byte for byte.
        Map<String, byte[]> now = SparkLake.snapshot(bucket, "t/");
        first.forEach((key, bytes) -> {
            boolean replaced = applied && (mode == WriteMode.OVERWRITE
                    || mode == WriteMode.OVERWRITE_PARTITIONS && SECOND_FOLDERS.stream().anyMatch(key::startsWith));
            if (!replaced) {
                assertThat(now).as(key).containsKey(key);
                assertThat(now.get(key)).as(key).isEqualTo(bytes);
            }
        });
        if (!applied) {
            assertThat(now.keySet()).isEqualTo(first.keySet());
        }
        assertThat(SparkLake.keys(bucket, "t/_tmp/")).isEmpty();
        assertThat(SparkLake.s3().openMultipartUploads(bucket, "")).isEmpty();
    }
}
