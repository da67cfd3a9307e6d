package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.commit.Step;
import io.wrangler.spi.DistributedWrite;
import io.wrangler.spi.StagedFiles;
import io.wrangler.spi.TaskBatches;
import io.wrangler.spi.WriteTarget;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * The engine SPI ({@code io.wrangler.spi}) end to end, as wrangler-spark uses it, with its "tasks" in this JVM: begin on
 * the driver, each attempt stages under its own prefix and reports serialized {@link StagedFiles}, an attempt that does
 * not count discards its files, and the commit publishes exactly the reported attempts.
 */
class EngineSpiTest {
    private static final Schema SCHEMA = new Schema(List.of(
            Field.nullable("country", ArrowType.Utf8.INSTANCE), Field.nullable("n", new ArrowType.Int(64, true))));

    private static WriteOptions options(String prefix, boolean lease) {
        return WriteOptions.builder().mode(WriteMode.OVERWRITE_PARTITIONS).partitionBy("country").leaseWait(Duration.ofSeconds(30))
                .lease(lease).concurrency(4).filenamePrefix(prefix).build();
    }

    private static StagedFiles stage(String uri, String writeId, String attempt, String[] countries, long[] ns) {
        return stage(new WriteTarget(uri, TestLake.s3().client(), options(attempt, false), null, null), writeId, countries, ns);
    }

    /**
     * One task attempt of {@code task} staging one batch of (country, n) rows through the SPI, and its message as the
     * driver gets it (after a Java serialization round trip); SpiAdversaryTest stages through it too.
     */
    static StagedFiles stage(WriteTarget task, String writeId, String[] countries, long[] ns) {
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, a)) {
            VarCharVector c = (VarCharVector) root.getVector("country");
            BigIntVector n = (BigIntVector) root.getVector("n");
            for (int i = 0; i < countries.length; i++) {
                c.setSafe(i, countries[i].getBytes(StandardCharsets.UTF_8));
                n.setSafe(i, ns[i]);
            }
            root.setRowCount(countries.length);
            TaskBatches one = new TaskBatches() {
                private boolean read;

                @Override
                public Schema schema() {
                    return SCHEMA;
                }

                @Override
                public boolean next() {
                    boolean more = !read;
                    read = true;
                    return more;
                }

                @Override
                public VectorSchemaRoot current() {
                    return root;
                }
            };
            return roundTrip(DistributedWrite.stage(task, writeId, 2, one));
        }
    }

    /** What crosses the wire from a task to the driver. */
    static StagedFiles roundTrip(StagedFiles staged) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                out.writeObject(staged);
            }
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
                return (StagedFiles) in.readObject();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aWriteThroughTheSpiPublishesExactlyTheAttemptsItCommits() {
        String bucket = TestLake.bucket();
        String uri = "s3://" + bucket + "/t/";
        List<String> steps = new CopyOnWriteArrayList<>();
        WriteResult r;
        WriteTarget driver = new WriteTarget(uri, TestLake.s3().client(), options("", true), null, null);
        try (DistributedWrite w = DistributedWrite.begin(driver, SCHEMA, (step, n) -> steps.add(step + " " + n), Duration.ZERO)) {
            assertThat(w.table()).isEqualTo(uri);
            StagedFiles first = stage(uri, w.writeId(), "t00000-a0-", new String[] {"RU", "DE"}, new long[] {1, 2});
            StagedFiles lost = stage(uri, w.writeId(), "t00001-a0-", new String[] {"RU"}, new long[] {30});
            StagedFiles retry = stage(uri, w.writeId(), "t00001-a1-", new String[] {"RU"}, new long[] {3});
            assertThat(first.partitions()).containsExactly(List.of("RU"), List.of("DE"));
            assertThat(first.files()).extracting(StagedFiles.File::rows).containsExactly(1L, 1L);
            assertThat(lost.files()).singleElement().extracting(StagedFiles.File::stagedKey).asString().contains("/t00001-a0-part-");

            DistributedWrite.discardAttempt(new WriteTarget(uri, TestLake.s3().client(), options("t00001-a0-", false), null, null),
                    w.writeId(), "t00001-a0-");
            List<String> staged = new ArrayList<>(TestLake.keys(bucket, "t/_tmp/" + w.writeId() + "/"));
            assertThat(staged).hasSize(4).noneMatch(k -> k.contains("t00001-a0-")); // the two other attempts' three files, the manifest

            r = w.commit(List.of(first, retry));
        }
        assertThat(r.rows()).isEqualTo(3);
        assertThat(TestLake.query(bucket, "t/", "SELECT country, n FROM t ORDER BY n"))
                .containsExactly(List.of("RU", 1L), List.of("DE", 2L), List.of("RU", 3L));
        assertThat(TestLake.keys(bucket, "t/")).noneMatch(k -> k.contains("_tmp/") && !k.endsWith("_lease.json"));
        // the hook is told of the engine's steps, the engine's constants
        assertThat(steps).contains(Step.STARTED + " 1", Step.MANIFEST_WRITTEN + " 1", Step.STAGING_REMOVED + " 1");
    }
}
