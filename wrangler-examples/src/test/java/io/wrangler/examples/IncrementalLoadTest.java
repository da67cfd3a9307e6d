package io.wrangler.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.model.S3Exception;

class IncrementalLoadTest {
    @Test
    void aCrashBetweenAppendAndCheckpointThenARerunLoadsEveryRowOnce(@TempDir Path folder) throws Exception {
        try (ExampleLake lake = ExampleLake.open(folder); Connection db = IncrementalLoad.source()) {
            IncrementalLoad.produce(db, 100);
            assertThat(IncrementalLoad.runOnce(lake, db, false).rows()).isEqualTo(100);
            IncrementalLoad.produce(db, 50);
            assertThatThrownBy(() -> IncrementalLoad.runOnce(lake, db, true)).isInstanceOf(IncrementalLoad.SimulatedCrash.class);
            assertThat(IncrementalLoad.readCheckpoint(lake).lastId()).isEqualTo(100);

            IncrementalLoad.Run rerun = IncrementalLoad.runOnce(lake, db, false);
            assertThat(rerun.fromId()).isEqualTo(101);
            assertThat(rerun.toId()).isEqualTo(150);
            assertThat(IncrementalLoad.state(lake)).containsExactly(150L, 150L, 3L, 150L);
            assertThat(IncrementalLoad.runOnce(lake, db, false)).isNull();
            assertThat(lake.query(IncrementalLoad.TABLE, "SELECT CAST(sum(id) AS BIGINT), count(*) FILTER (WHERE eventtype = 'purchase') FROM t"))
                    .containsExactly(List.of(150L * 151 / 2, 30L));

            IncrementalLoad.produce(db, 30);
            IncrementalLoad.runOnce(lake, db, false);
            List<Object> before = IncrementalLoad.state(lake);
            io.wrangler.CompactionResult c = IncrementalLoad.compact(lake);
            assertThat(c.partitions()).containsExactly(lake.uri(IncrementalLoad.TABLE) + "dt=2026-10-02/");
            assertThat(c.filesAfter()).isEqualTo(1);
            assertThat(c.duplicatesDropped()).isZero();
            assertThat(IncrementalLoad.state(lake)).containsExactly(before.get(0), before.get(1), 3L, 180L);
            assertThat(lake.query(IncrementalLoad.TABLE, "SELECT CAST(sum(id) AS BIGINT), count(*) FILTER (WHERE eventtype = 'purchase') FROM t"))
                    .containsExactly(List.of(180L * 181 / 2, 36L));
        }
    }

    @Test
    void theExampleRunTwiceOnTheSameFolderKeepsEveryRowOnce(@TempDir Path folder) throws Exception {
        // The second run starts over from a new source with the same ids: its keyed runs replace the first run's rows, which
        // the first run's compaction merged into one file per day (keyed runs stay keyed through a compaction).
        IncrementalLoad.main(new String[] {folder.toString()});
        IncrementalLoad.main(new String[] {folder.toString()});
        try (ExampleLake lake = ExampleLake.open(folder)) {
            assertThat(IncrementalLoad.state(lake)).containsExactly(180L, 180L, 3L, 180L);
            assertThat(lake.query(IncrementalLoad.TABLE, "SELECT CAST(sum(id) AS BIGINT), count(*) FILTER (WHERE eventtype = 'purchase') FROM t"))
                    .containsExactly(List.of(180L * 181 / 2, 36L));
        }
    }

    @Test
    void theCheckpointCannotBeMovedByTwoRunsAtOnce(@TempDir Path folder) {
        try (ExampleLake lake = ExampleLake.open(folder)) {
            IncrementalLoad.Checkpoint none = IncrementalLoad.readCheckpoint(lake);
            IncrementalLoad.writeCheckpoint(lake, none, 10);
            assertThatThrownBy(() -> IncrementalLoad.writeCheckpoint(lake, none, 20))
                    .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
            IncrementalLoad.Checkpoint ten = IncrementalLoad.readCheckpoint(lake);
            IncrementalLoad.writeCheckpoint(lake, ten, 30);
            assertThatThrownBy(() -> IncrementalLoad.writeCheckpoint(lake, ten, 40))
                    .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
            assertThat(IncrementalLoad.readCheckpoint(lake).lastId()).isEqualTo(30);
        }
    }
}
