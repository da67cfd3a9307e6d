package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The ready-made progress line (a test clock, no timing) and the listener example of {@link Progress}'s javadoc. */
class ProgressTest {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final List<String> lines = new ArrayList<>();

    private ProgressLog log() {
        return new ProgressLog("Write of s3://lake/t/", Duration.ofSeconds(5), nanos::get, lines::add);
    }

    private void at(double seconds) {
        nanos.set(1_000_000_000L + (long) (seconds * 1e9));
    }

    @Test
    void aLineEveryPeriodOnceThePeriodHasPassedAndALastOneAtPublish() {
        ProgressLog p = log();
        at(1);
        p.rowsEncoded(100_000);
        at(4.9);
        p.filesStaged(1);
        assertThat(lines).as("nothing within the first five seconds").isEmpty();
        at(5);
        p.rowsEncoded(1_200_000);
        at(6);
        p.bytesUploaded(3 * 1024 * 1024 + 512 * 1024);
        at(9.9);
        p.rowsEncoded(2_000_000);
        at(10.2);
        p.filesStaged(2);
        at(12);
        p.partitionsPublished(4, 4);
        assertThat(lines).containsExactly(
                "Write of s3://lake/t/: 1,200,000 rows encoded, 1 files staged, 0 bytes uploaded, 5.0 s elapsed",
                "Write of s3://lake/t/: 2,000,000 rows encoded, 2 files staged, 3.5 MB uploaded, 10.2 s elapsed",
                "Write of s3://lake/t/: done, 2,000,000 rows in 2 files (3.5 MB) and 4 of 4 partitions published in 12.0 s");
    }

    @Test
    void aShortWritePrintsNothing() {
        ProgressLog p = log();
        at(0.5);
        p.rowsEncoded(10);
        p.filesStaged(1);
        p.bytesUploaded(900);
        p.partitionsPublished(1, 1);
        assertThat(lines).isEmpty();
    }

    @Test
    void totalsReportedOutOfOrderByTwoThreadsNeverGoBack() {
        ProgressLog p = log();
        p.rowsEncoded(500);
        p.rowsEncoded(300); // a thread that read its total earlier reports it later
        at(5);
        p.filesStaged(1);
        assertThat(lines).containsExactly("Write of s3://lake/t/: 500 rows encoded, 1 files staged, 0 bytes uploaded, 5.0 s elapsed");
    }

    @Test
    void aWriteLogsProgressByDefaultNamingItsTable() {
        WriteBuilder w = S3Parquet.write(List.of(new Orders.Order("a", LocalDate.of(2024, 1, 15), "RU", 1, BigDecimal.ONE)));
        assertThat(w.progressFor("s3://lake/t/")).isInstanceOfSatisfying(ProgressLog.class,
                p -> assertThat(p.what()).isEqualTo("Write of s3://lake/t/"));
        Progress mine = Progress.none();
        assertThat(w.progress(mine).progressFor("s3://lake/t/")).isSameAs(mine);
        assertThatThrownBy(() -> Progress.logging("x", Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("every must be zero or positive, found PT-1S");
    }

    @Test
    void theJavadocsListenerPrintsOnceForEachMillionOfAWrite() {
        // The javadoc's example, with a thousand rows for a million; the write reports runs of at most 250 rows (a file each).
        List<Orders.Order> rows = new ArrayList<>();
        for (int i = 0; i < 5_500; i++) {
            rows.add(new Orders.Order("o" + i, LocalDate.of(2024, 1, 15 + i % 3), "RU", i, BigDecimal.ONE));
        }
        AtomicLong thousands = new AtomicLong();
        List<String> printed = new CopyOnWriteArrayList<>();
        AtomicLong callbacks = new AtomicLong();
        String bucket = TestLake.memoryBucket();
        S3Parquet.write(rows).partitionBy("dt").maxRowsPerFile(250).progress(new Progress() {
            @Override
            public void rowsEncoded(long total) {
                callbacks.incrementAndGet();
                long m = total / 1_000;
                if (thousands.getAndAccumulate(m, Math::max) < m) {
                    printed.add(total + " rows encoded");
                }
            }
        }).s3(TestLake.memory().client()).to("s3://" + bucket + "/t/");
        assertThat(callbacks.get()).isGreaterThan(5);
        assertThat(printed).hasSize(5);
        assertThat(thousands.get()).isEqualTo(5);
    }
}
