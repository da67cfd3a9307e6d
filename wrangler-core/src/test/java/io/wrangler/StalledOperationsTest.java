package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.commit.Step;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A merge, a delete of rows or a drop of partitions stalls at a step boundary holding the lease; a newcomer (an append,
 * or a recovery) takes the table over as after the lease expired; then the operation resumes. Once everything settles and
 * a last recovery ran: the table is the one before the operation or the one after it, as the operation's outcome says
 * (success or {@link WriteIncompleteException}: applied; {@link WriteNotAppliedException} or
 * {@link CommitConflictException}: not applied; no other exception), the newcomer's row is there once, no row of the
 * table is lost, doubled or brought back, and nothing is left under {@code _tmp/}.
 */
class StalledOperationsTest {
    record Row(long id, String user_id, long amount, String dt) {
    }

    private static final List<String> DAYS = List.of("2024-01-15", "2024-01-16", "2024-01-17");
    private static final Row NEWCOMER = new Row(900, "u-9", 9, DAYS.get(1));

    enum Op {
        /** Erases u-2. */
        DELETE(rows -> rows.stream().filter(r -> !r.user_id().equals("u-2")).toList()),
        /** Updates every row of u-2 (amount + 1000), by id. */
        MERGE(rows -> rows.stream().map(r -> r.user_id().equals("u-2") ? updated(r) : r).toList()),
        /** Drops the first day. */
        DROP(rows -> rows.stream().filter(r -> !r.dt().equals(DAYS.get(0))).toList());

        final UnaryOperator<List<Row>> effect;

        Op(UnaryOperator<List<Row>> effect) {
            this.effect = effect;
        }
    }

    enum Newcomer { APPEND, RECOVER }

    static Row updated(Row r) {
        return new Row(r.id(), r.user_id(), r.amount() + 1000, r.dt());
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Op op : Op.values()) {
            List<Step> steps = op == Op.DROP
                    ? List.of(Step.STARTED, Step.LISTED_OLD_FILES, Step.MANIFEST_WRITTEN, Step.DELETED_BATCH, Step.BEFORE_CLEANUP)
                    : List.of(Step.STARTED, Step.STAGED_FILE, Step.LISTED_OLD_FILES, Step.MANIFEST_WRITTEN, Step.COPIED_FILE,
                            Step.DELETED_BATCH, Step.BEFORE_CLEANUP);
            for (Step s : steps) {
                out.add(Arguments.of(op, s, Newcomer.APPEND));
                if (s == Step.LISTED_OLD_FILES || s == Step.COPIED_FILE || op == Op.DROP && s == Step.DELETED_BATCH) {
                    out.add(Arguments.of(op, s, Newcomer.RECOVER));
                }
            }
        }
        return out.stream();
    }

    private final String bucket = TestLake.memoryBucket();
    private final String table = "s3://" + bucket + "/t/";
    private final S3Client s3 = TestLake.memory().client();

    private List<Row> seed() {
        List<Row> all = new ArrayList<>();
        long id = 0;
        for (int load = 0; load < 2; load++) {
            List<Row> rows = new ArrayList<>();
            for (String day : DAYS) {
                for (String user : List.of("u-1", "u-2")) {
                    rows.add(new Row(id, user, id, day));
                    id++;
                }
            }
            S3Parquet.write(rows).partitionBy("dt").mode(WriteMode.APPEND).s3(s3).to(table);
            all.addAll(rows);
        }
        return all;
    }

    private Object run(Op op, List<Row> before, Step at, CountDownLatch reached, CountDownLatch release) {
        io.wrangler.spi.StepHook hook = (step, n) -> {
            if (step == at && n == 1) {
                reached.countDown();
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        return switch (op) {
            case DELETE -> S3Parquet.deleteRows(table).keys("user_id", List.of("u-2")).s3(s3).stepHook(hook).tuning(Tunings.smallDeleteBatches()).run();
            case MERGE -> S3Parquet.merge(before.stream().filter(r -> r.user_id().equals("u-2")).map(StalledOperationsTest::updated).toList())
                    .on("id").partitionBy("dt").s3(s3).stepHook(hook).tuning(Tunings.smallDeleteBatches()).to(table);
            case DROP -> S3Parquet.dropPartitions(table).filter(PartitionFilter.in("dt", DAYS.get(0))).s3(s3).stepHook(hook)
                    .tuning(Tunings.smallDeleteBatches()).run();
        };
    }

    private List<List<Object>> contents() {
        return TestLake.query(bucket, "t/", "SELECT id, user_id, amount, CAST(dt AS VARCHAR) FROM t ORDER BY ALL");
    }

    private static List<List<Object>> rows(List<Row> rows) {
        return rows.stream().sorted(Comparator.comparingLong(Row::id)).map(r -> List.<Object>of(r.id(), r.user_id(), r.amount(), r.dt())).toList();
    }

    @ParameterizedTest(name = "{0} stalled at {1}, then {2}")
    @MethodSource("cases")
    void aStalledOperationThatResumesAfterATakeoverIsAppliedOnceOrNotAtAllAsItsOutcomeSays(Op op, Step at, Newcomer n) throws Exception {
        List<Row> before = seed();
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Object> stalled = CompletableFuture.supplyAsync(() -> run(op, before, at, reached, release));
        String newcomer;
        try {
            assertThat(reached.await(60, TimeUnit.SECONDS)).as(op + " reached " + at).isTrue();
            newcomer = switch (n) {
                case APPEND -> {
                    S3Parquet.write(List.of(NEWCOMER)).partitionBy("dt").mode(WriteMode.APPEND).s3(s3).tuning(Tunings.pastLeases()).to(table);
                    yield "appended";
                }
                case RECOVER -> Tunings.recover(table, s3).toString();
            };
        } finally {
            release.countDown();
        }
        Throwable failure = Stalls.failureOf(stalled);
        List<List<Object>> afterOp = contents();
        RecoveryResult last = Tunings.recover(table, s3);
        String story = op + " stalled at " + at + ", newcomer " + n + " (" + newcomer + "); its outcome: "
                + (failure == null ? "success" : failure.getClass().getSimpleName() + ": " + failure.getMessage())
                + "; table after it resumed: " + afterOp + "; last recovery: " + last;

        assertThat(failure).as(story).satisfiesAnyOf(f -> assertThat(f).isNull(),
                f -> assertThat(f).isInstanceOfAny(WriteIncompleteException.class, WriteNotAppliedException.class, CommitConflictException.class));
        boolean applied = failure == null || failure instanceof WriteIncompleteException;
        List<Row> expected = new ArrayList<>(applied ? op.effect.apply(before) : before);
        if (n == Newcomer.APPEND) {
            expected.add(NEWCOMER);
        }
        assertThat(contents()).as(story).isEqualTo(afterOp).isEqualTo(rows(expected));
        assertThat(TestLake.keys(bucket, "t/_tmp/")).as(story).allMatch(k -> k.endsWith("_lease.json"));
        if (applied && op == Op.DELETE) {
            DeleteRowsTest.noObjectHolds(bucket, "t/", "u-2");
        }
    }
}
