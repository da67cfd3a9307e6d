package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.CrashRecoveryTest.SimulatedCrash;
import io.wrangler.Orders.Order;
import io.wrangler.commit.Step;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Incremental reads by scenario: what a delta, a mark and the reads of a file subset return, the marks and names a read
 * refuses (exact messages), a write still under {@code _tmp/}, and writes that crashed and were recovered. The random
 * histories are {@link IncrementalHistoryPropertyTest}'s.
 */
class IncrementalReadTest {
    private static final LocalDate D15 = LocalDate.of(2024, 1, 15);
    private static final LocalDate D16 = LocalDate.of(2024, 1, 16);
    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";

    private WriteResult append(List<Order> rows) {
        return S3Parquet.write(rows).partitionBy("dt", "country").s3(TestLake.memory().client()).to(table);
    }

    private ReadBuilder read() {
        return S3Parquet.read(table).s3(TestLake.memory().client());
    }

    private List<Order> duck(String where) {
        return TestLake.query(bucket, "t/", "SELECT \"orderId\", dt, country, \"amountCents\", price FROM t WHERE " + where).stream()
                .map(r -> new Order((String) r.get(0), LocalDate.parse(r.get(1).toString()), (String) r.get(2),
                        ((Number) r.get(3)).longValue(), (java.math.BigDecimal) r.get(4)))
                .toList();
    }

    @Test
    void aDeltaReturnsExactlyWhatCommittedAfterTheMarkAndEndsAtTheLastCommit() {
        WriteResult a = append(Orders.orders("a", List.of(D15), List.of("RU", "DE"), 2));
        WriteResult b = append(Orders.orders("b", List.of(D15, D16), List.of("RU"), 3));
        assertThat(a.mark().sequence()).isEqualTo(1);
        assertThat(b.mark()).isEqualTo(CommitMark.of(a.mark().log(), 2));
        ReadBuilder delta = read().committedAfter(a.mark().toString());
        assertThat(delta.toList(Order.class)).containsExactlyInAnyOrderElementsOf(duck("\"orderId\" LIKE 'b-%'"));
        assertThat(delta.lastMark()).isEqualTo(b.mark());
        ReadBuilder none = read().committedAfter(b.mark());
        assertThat(none.toList(Order.class)).isEmpty();
        assertThat(none.count()).isZero();
        assertThat(none.lastMark()).isEqualTo(b.mark());
        ReadBuilder whole = read().withMark();
        assertThat(whole.count()).isEqualTo(10);
        assertThat(whole.lastMark()).isEqualTo(b.mark());
        assertThat(TestLake.keys(bucket, "t/_wrangler/log/")).containsExactly(
                "t/_wrangler/log/0000000000/0000000000000000001." + a.writeId() + ".json",
                "t/_wrangler/log/0000000000/0000000000000000002." + b.writeId() + ".json");
    }

    @Test
    void anOverwriteOfAPartitionHoldingRowsFromBeforeTheMarkIsReportedWithItsPartition() {
        WriteResult a = append(Orders.orders("a", List.of(D15, D16), List.of("RU"), 2));
        S3Parquet.write(Orders.orders("o", List.of(D16), List.of("RU"), 1)).partitionBy("dt", "country")
                .mode(WriteMode.OVERWRITE_PARTITIONS).s3(TestLake.memory().client()).to(table);
        assertThatThrownBy(() -> read().committedAfter(a.mark()).toList(Order.class))
                .isInstanceOfSatisfying(ReplacedSinceMarkException.class, e -> {
                    assertThat(e.partitions()).containsExactly("dt=2024-01-16/country=RU/");
                    assertThat(e.mark()).isEqualTo(a.mark());
                })
                .hasMessage("Cannot read what " + table + " committed after " + a.mark() + ": rows that existed at the mark were "
                        + "replaced since (an overwrite, a keyed rerun, a compaction with dedupBy, or another change of rows) in 1 "
                        + "partition(s): [dt=2024-01-16/country=RU/]. No delta can tell the rows you have from the rows since. Read the "
                        + "table (or these partitions) whole with withMark(), and keep that read's mark. Nothing was changed.");
        // the partition the overwrite did not touch reads its delta (none) through a filter
        assertThat(read().committedAfter(a.mark()).filter(PartitionFilter.in("dt", "2024-01-15")).toList(Order.class)).isEmpty();
    }

    @Test
    void badMarksAreRefusedBeforeAnythingIsReadNamingTheFix() {
        WriteResult a = append(Orders.orders("a", List.of(D15), List.of("RU"), 1));
        assertThatThrownBy(() -> read().committedAfter("wm1.zz.3")).isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read " + table + " after a mark: 'wm1.zz.3' is not a commit mark: a mark reads wm1.<16 hex digits "
                        + "or none>.<number> (e.g. wm1.3f9c2a7b1d4e5f60.42). Store the text of the mark a write or read returned, unchanged.");
        String other = "s3://" + bucket + "/other/";
        CommitMark otherMark = S3Parquet.write(Orders.orders("x", List.of(D15), List.of("RU"), 1)).s3(TestLake.memory().client())
                .to(other).mark();
        String log = a.mark().log();
        assertThatThrownBy(() -> read().committedAfter(otherMark).toList(Order.class)).isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read what " + table + " committed after " + otherMark + ": the mark belongs to another table's "
                        + "commit log (this table's log is " + log + "; the table was dropped and written again, or the mark is another "
                        + "table's). Use a mark this table's writes or reads returned, or read the table whole with withMark() and keep "
                        + "that read's mark.");
        CommitMark ahead = CommitMark.of(log, 7);
        assertThatThrownBy(() -> read().committedAfter(ahead).count()).isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read what " + table + " committed after " + ahead + ": the mark is ahead of the table's commit "
                        + "log, which ends at 1 (the table was dropped and written again, or the mark was edited). Read the table whole "
                        + "with withMark() and keep that read's mark.");
        assertThatThrownBy(() -> CommitMark.parse("wm1.none.4")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> read().lastMark()).isInstanceOf(IllegalStateException.class)
                .hasMessage("no read of " + table + " found a commit mark yet: call committedAfter(mark) or withMark(), then open(), "
                        + "toList() or count()");
    }

    @Test
    void aMarkOlderThanTheEntriesTheLogHoldsIsRefused() {
        WriteResult a = append(Orders.orders("a", List.of(D15), List.of("RU"), 1));
        WriteResult b = append(Orders.orders("b", List.of(D15), List.of("RU"), 1));
        append(Orders.orders("c", List.of(D15), List.of("RU"), 1));
        TestLake.memory().client().deleteObject(r -> r.bucket(bucket).key("t/_wrangler/log/0000000000/0000000000000000002."
                + b.writeId() + ".json"));
        assertThatThrownBy(() -> read().committedAfter(a.mark()).toList(Order.class)).isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read what " + table + " committed after " + a.mark() + ": the table's commit log no longer holds "
                        + "the commits right after the mark (its first entry after it is 3; older entries expired, by a lifecycle rule "
                        + "on _wrangler/log/ or by hand). Read the table whole with withMark() and keep that read's mark; keep log "
                        + "entries longer than the longest gap between two of your reads.");
        assertThat(read().committedAfter(b.mark()).toList(Order.class)).extracting(Order::orderId).containsExactly("c-2024-01-15-RU-0");
    }

    @Test
    void aWriteStillUnderTmpEndsTheRangeBeforeItsEntry() {
        WriteResult a = append(Orders.orders("a", List.of(D15), List.of("RU"), 1));
        WriteResult b = append(Orders.orders("b", List.of(D15), List.of("RU"), 1));
        String inFlight = "t/_tmp/" + b.writeId() + "/staged";
        TestLake.memory().put(bucket, inFlight, new byte[] {1});
        ReadBuilder delta = read().committedAfter(a.mark());
        assertThat(delta.toList(Order.class)).isEmpty();
        assertThat(delta.lastMark()).isEqualTo(a.mark());
        TestLake.memory().client().deleteObject(r -> r.bucket(bucket).key(inFlight));
        assertThat(delta.toList(Order.class)).extracting(Order::orderId).containsExactly("b-2024-01-15-RU-0");
        assertThat(delta.lastMark()).isEqualTo(b.mark());
    }

    @Test
    void aPlainAppendCrashedBeforeItsEndIsRetractedAndAKeyedOneStaysLoggedOnce() {
        WriteResult a = append(Orders.orders("a", List.of(D15), List.of("RU"), 1));
        crash(S3Parquet.write(Orders.orders("b", List.of(D15), List.of("RU"), 1)));
        Tunings.recover(table, TestLake.memory().client());
        ReadBuilder delta = read().committedAfter(a.mark());
        assertThat(delta.toList(Order.class)).isEmpty();
        // The append logged itself (2) once its files were in place, before its end; the recovery retracted it (3).
        assertThat(delta.lastMark()).as("the undone append's ROLLED_BACK entry").isEqualTo(CommitMark.of(a.mark().log(), 3));
        crash(S3Parquet.write(Orders.orders("k", List.of(D16), List.of("DE"), 2)).idempotencyKey("day-16"));
        Tunings.recover(table, TestLake.memory().client());
        assertThat(delta.toList(Order.class)).containsExactlyInAnyOrderElementsOf(duck("\"orderId\" LIKE 'k-%'")).hasSize(2);
        assertThat(delta.lastMark()).as("the keyed append, logged by itself before its end; the recovery adds no entry")
                .isEqualTo(CommitMark.of(a.mark().log(), 4));
        assertThat(read().withMark().count()).isEqualTo(3);
        // Cut short at its commit point, before any file was in place: not logged by itself, logged by the recovery.
        CommitMark before = delta.lastMark();
        crash(S3Parquet.write(Orders.orders("m", List.of(D16), List.of("RU"), 1)).idempotencyKey("day-16-ru"), Step.MANIFEST_WRITTEN);
        assertThat(TestLake.keys(bucket, "t/_wrangler/log/")).hasSize(4);
        Tunings.recover(table, TestLake.memory().client());
        ReadBuilder since = read().committedAfter(before);
        assertThat(since.toList(Order.class)).extracting(Order::orderId).containsExactly("m-2024-01-16-RU-0");
        assertThat(since.lastMark()).as("the keyed append rolled forward, logged by the recovery").isEqualTo(CommitMark.of(a.mark().log(), 5));
    }

    private void crash(WriteBuilder w) {
        crash(w, Step.STAGING_REMOVED);
    }

    private void crash(WriteBuilder w, Step at) {
        assertThatThrownBy(() -> w.partitionBy("dt", "country").s3(TestLake.memory().client()).tuning(Tunings.pastLeases())
                .stepHook((step, n) -> {
                    if (step == at) {
                        throw new SimulatedCrash(step, n);
                    }
                }).to(table)).isInstanceOf(SimulatedCrash.class);
    }

    /**
     * A damaged last entry of the log (here: one that names another table, as a hand edit or a copied log leaves) used to
     * fail every write's end step; now the next write logs itself after it with a WARNING naming it, a delta across it
     * fails naming it, and a delta from past it (or from a whole read's mark) reads on.
     */
    @Test
    void aDamagedLastEntryDoesNotStopWritesAndADeltaAcrossItFailsNamingIt() {
        WriteResult a = append(Orders.orders("a", List.of(D15), List.of("RU"), 1));
        WriteResult b = append(Orders.orders("b", List.of(D15), List.of("RU"), 1));
        String key = "t/_wrangler/log/0000000000/0000000000000000002." + b.writeId() + ".json";
        String other = "s3://" + bucket + "/elsewhere/";
        TestLake.memory().put(bucket, key, new String(TestLake.memory().get(bucket, key), java.nio.charset.StandardCharsets.UTF_8)
                .replace(table, other).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        String why = "the log entry s3://" + bucket + "/" + key + " is refused: it records the table " + other;
        java.util.logging.Logger commitLog = java.util.logging.Logger.getLogger("io.wrangler.commit");
        List<String> warned = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                if (r.getLevel() == java.util.logging.Level.WARNING) {
                    warned.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        commitLog.addHandler(handler);
        WriteResult c;
        try {
            c = append(Orders.orders("c", List.of(D16), List.of("DE"), 1));
        } finally {
            commitLog.removeHandler(handler);
        }
        assertThat(c.mark()).isEqualTo(CommitMark.of(a.mark().log(), 3));
        assertThat(warned).containsExactly("The commit log of " + table + " holds 1 damaged entry at its end: " + why + ". Write "
                + c.writeId() + " logs itself after it; incremental reads (committedAfter) whose range crosses it fail naming it. "
                + "Restore the entry from a backup or version of the object if there is one; readers whose mark is before it read "
                + "the table whole with withMark().");
        assertThatThrownBy(() -> read().committedAfter(a.mark()).toList(Order.class)).isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read what " + table + " committed after " + a.mark() + " (step: log): " + why + ". A log entry is "
                        + "written whole by one PUT, so this one was damaged (or written by a newer wrangler), and no delta across it "
                        + "can be told. Nothing was changed. Restore the entry from a backup or version of the object if there is one; "
                        + "otherwise read the table whole with withMark() and keep that read's mark (it is past the damaged entry).");
        ReadBuilder past = read().committedAfter(b.mark());
        assertThat(past.toList(Order.class)).extracting(Order::orderId).containsExactly("c-2024-01-16-DE-0");
        assertThat(past.lastMark()).isEqualTo(c.mark());
        ReadBuilder whole = read().withMark();
        assertThat(whole.toList(Order.class)).extracting(Order::orderId)
                .containsExactlyInAnyOrder("a-2024-01-15-RU-0", "b-2024-01-15-RU-0", "c-2024-01-16-DE-0");
        assertThat(whole.lastMark()).isEqualTo(c.mark());
        // Damaged beyond parsing, now the last entry again: the next write still logs itself, after it.
        String cKey = "t/_wrangler/log/0000000000/0000000000000000003." + c.writeId() + ".json";
        TestLake.memory().put(bucket, cKey, "{\"format\": 1, \"table\"".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        WriteResult d = append(Orders.orders("d", List.of(D16), List.of("DE"), 1));
        assertThat(d.mark()).isEqualTo(CommitMark.of(a.mark().log(), 4));
        assertThatThrownBy(() -> read().committedAfter(b.mark()).toList(Order.class)).isInstanceOf(InvalidReadException.class)
                .hasMessageStartingWith("Cannot read what " + table + " committed after " + b.mark() + " (step: log): the log entry s3://"
                        + bucket + "/" + cKey + " cannot be parsed (");
        assertThat(read().committedAfter(c.mark()).toList(Order.class)).extracting(Order::orderId).containsExactly("d-2024-01-16-DE-0");
    }

    @Test
    void filesAndLastModifiedReadASubsetOfTheTableAsItIs() {
        WriteResult a = append(Orders.orders("a", List.of(D15), List.of("RU", "DE"), 1));
        Instant between = Instant.now();
        while (Instant.now().toEpochMilli() == between.toEpochMilli()) {
            Thread.onSpinWait(); // the next write's objects are dated after this millisecond (MemoryS3 dates them to the ms)
        }
        WriteResult b = append(Orders.orders("b", List.of(D16), List.of("RU"), 1));
        assertThat(read().lastModifiedBetween(null, between).toList(Order.class)).extracting(Order::orderId)
                .containsExactlyInAnyOrder("a-2024-01-15-RU-0", "a-2024-01-15-DE-0");
        assertThat(read().lastModifiedBetween(between.plusMillis(1), null).toList(Order.class)).extracting(Order::orderId)
                .containsExactly("b-2024-01-16-RU-0");
        String de = a.paths().stream().filter(p -> p.contains("country=DE")).findFirst().orElseThrow();
        assertThat(read().files(List.of(b.paths().get(0), de)).toList(Order.class)).extracting(Order::orderId)
                .containsExactly("b-2024-01-16-RU-0", "a-2024-01-15-DE-0");
        assertThatThrownBy(() -> read().files(List.of("s3://elsewhere/t/x.parquet")).count()).isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read files of " + table + ": the file 's3://elsewhere/t/x.parquet' cannot be read as one of its "
                        + "files: it is not in the table's bucket " + bucket + ". Name each file once, by its s3:// URI or its key. Nothing "
                        + "was read.");
        String gone = table + "dt=2024-01-15/country=RU/part-00000-000-gone.parquet";
        assertThatThrownBy(() -> read().files(List.of(de, gone)).count()).isInstanceOf(InvalidReadException.class)
                .hasMessage("Cannot read files of " + table + ": 1 of the files named are not data files of the table as a reader sees "
                        + "it now (gone, replaced, a write's in flight, or outside the filter): [" + gone + "]. Name files the table lists "
                        + "now (WriteResult.paths() of a committed write, or a listing). Nothing was read.");
        assertThatThrownBy(() -> read().files(List.of(table + "_wrangler/log/x.json")).count()).isInstanceOf(InvalidReadException.class);
    }
}
