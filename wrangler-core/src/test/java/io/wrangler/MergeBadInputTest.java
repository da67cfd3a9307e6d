package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/** Bad input to a merge: a typed error naming the table, the step and what to do, before anything changes; or a documented no-op. */
class MergeBadInputTest {
    record Event(long event_id, String payload, long updated_at, LocalDate event_date) {
    }

    record Nullable(Long event_id, String payload, long updated_at, LocalDate event_date) {
    }

    record Narrow(int event_id, String payload, long updated_at, LocalDate event_date) {
    }

    private static final LocalDate D1 = LocalDate.of(2024, 1, 1);

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final S3Client s3 = TestLake.memory().client();
    private final String cannot = "Cannot merge into " + table + " (step: validate): ";
    private Map<String, byte[]> before;

    @BeforeEach
    void seed() {
        S3Parquet.write(List.of(new Event(1, "a", 1, D1), new Event(2, "a", 1, D1))).partitionBy("event_date").s3(s3).to(table);
        before = TestLake.snapshot(bucket, "t/");
    }

    private void unchanged() {
        Map<String, byte[]> now = TestLake.snapshot(bucket, "t/");
        assertThat(now.keySet()).isEqualTo(before.keySet());
        now.forEach((k, v) -> assertThat(v).as(k).isEqualTo(before.get(k)));
    }

    private static final String COLUMNS = "[event_id, payload, updated_at, event_date]";

    @Test
    void anUnknownKeyColumn() {
        assertThatThrownBy(() -> S3Parquet.merge(List.of(new Event(1, "b", 2, D1))).on("id").s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage(cannot + "the key column 'id' is not a column of the input; its columns are " + COLUMNS + ". Name columns "
                        + "of the input in on(...); nothing was changed.");
        unchanged();
    }

    @Test
    void anUnknownOrderColumn() {
        assertThatThrownBy(() -> S3Parquet.merge(List.of(new Event(1, "b", 2, D1))).on("event_id").orderBy("updated").s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage(cannot + "the order column 'updated' is not a column of the input; its columns are " + COLUMNS + ". Name "
                        + "columns of the input in orderBy(...); nothing was changed.");
        unchanged();
    }

    @Test
    void aNullKey() {
        assertThatThrownBy(() -> S3Parquet.merge(List.of(new Nullable(1L, "b", 2, D1), new Nullable(null, "c", 2, D1))).on("event_id")
                .s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage(cannot + "the key column 'event_id' is null in row 1 of the input (rows counted from 0). Every row needs a "
                        + "key: fill it, or leave the row out; nothing was changed.");
        unchanged();
    }

    @Test
    void aKeyInTwoRowsWithoutAnOrderColumn() {
        assertThatThrownBy(() -> S3Parquet.merge(List.of(new Event(2, "b", 2, D1), new Event(3, "c", 2, D1), new Event(2, "d", 3, D1)))
                .on("event_id").s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage(cannot + "the key event_id=2 is in more than one row of the input (rows 0 and 2, counted from 0). Give each "
                        + "key one row, or name an orderBy(...) column to keep its newest; nothing was changed.");
        unchanged();
    }

    @Test
    void aKeyOfAnotherTypeThanTheTables() {
        assertThatThrownBy(() -> S3Parquet.merge(List.of(new Narrow(1, "b", 2, D1))).on("event_id").s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage(cannot + "the key column 'event_id' is Int(32, true) in the input and Int(64, true) in the table. Give it "
                        + "the table's type; nothing was changed.");
        unchanged();
    }

    @Test
    void aPartitionColumnAsKey() {
        assertThatThrownBy(() -> S3Parquet.merge(List.of(new Event(1, "b", 2, D1))).on("event_date").s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage(cannot + "the key column 'event_date' is a partition column of the table. Merge on columns of the rows (a "
                        + "partition is replaced whole with a write of mode OVERWRITE_PARTITIONS); nothing was changed.");
        unchanged();
    }

    @Test
    void otherPartitionColumnsThanTheTables() {
        assertThatThrownBy(() -> S3Parquet.merge(List.of(new Event(1, "b", 2, D1))).on("event_id").partitionBy("payload").s3(s3).to(table))
                .isInstanceOf(InvalidWriteException.class)
                .hasMessage(cannot + "partitionBy [payload] differs from the table's partition columns [event_date]. Leave partitionBy "
                        + "out (a merge keeps the table's partitions) or name the table's; nothing was changed.");
        unchanged();
    }

    @Test
    void noKeyColumnsAndOptionsAMergeCannotHonour() {
        assertThatThrownBy(() -> S3Parquet.merge(List.of(new Event(1, "b", 2, D1))).s3(s3).to(table))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Cannot merge into " + table + ": no key columns; name them with on(...)");
        assertThatThrownBy(() -> S3Parquet.merge(List.of(new Event(1, "b", 2, D1))).options(WriteOptions.builder().mode(WriteMode.OVERWRITE)
                .build())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot merge with these WriteOptions: mode is OVERWRITE, but a merge always replaces exactly the files that "
                        + "hold a matched key. Give merge(...) options that leave it at its default.");
        unchanged();
    }

    @Test
    void anEmptyInputIsANoOp() {
        MergeResult r = S3Parquet.merge(List.<Event>of()).on("event_id").s3(s3).to(table);
        assertThat(r).isEqualTo(new MergeResult(table, 0, 0, 0, List.of(), List.of(), null));
        unchanged();
    }
}
