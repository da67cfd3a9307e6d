package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.commit.Step;
import io.wrangler.spi.StepHook;
import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.S3Fixture;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Partition;

/**
 * What the interleaving tests share ({@link InterleavingTest}, {@link ThreeActorTest}): actors paused at a step of
 * their commit, their outcomes checked against their commit points, and the table {@code t/} of a bucket as S3,
 * DuckDB and Glue see it.
 */
final class PausedActors {
    private PausedActors() {
    }

    /** A paused actor: holds at its step (first time reached) until released; records its commit point. */
    static final class Actor implements StepHook {
        private final Step at;
        private final String name;
        private final List<String> commits;
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        Actor(String name, Step at, List<String> commits) {
            this.name = name;
            this.at = at;
            this.commits = commits;
        }

        @Override
        public void reached(Enum<?> step, int count) {
            if (step == Step.MANIFEST_WRITTEN) {
                synchronized (commits) {
                    commits.add(name);
                }
            }
            if (step == at && count == 1 && reached.getCount() > 0) {
                reached.countDown();
                try {
                    if (!release.await(60, TimeUnit.SECONDS)) {
                        throw new AssertionError(name + " was never released from " + at);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Waits until {@code actor} holds at its step, or its operation {@code f} ended before it (then returns). */
    static void awaitReached(Actor actor, CompletableFuture<?> f, String name) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!actor.reached.await(20, TimeUnit.MILLISECONDS)) {
            if (f.isDone()) {
                return; // it ended before its pause point (a takeover stopped it, or it never passes that step)
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + " never reached its pause point");
            }
        }
    }

    /** What {@code f} threw, or null when it succeeded. */
    static Throwable outcome(CompletableFuture<?> f, String name) throws InterruptedException {
        try {
            f.get(90, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw new AssertionError(name + " did not finish", e);
        }
    }

    static String describe(Throwable t) {
        return t == null ? "ok" : t.getClass().getSimpleName();
    }

    /** The outcome is success, not applied or incomplete, and agrees with whether its write passed the commit point. */
    static void checkOutcome(Throwable t, boolean committed, String story) {
        if (t == null) {
            assertThat(committed).as(story + ": a write that succeeded passed its commit point").isTrue();
            return;
        }
        // Not CommitStateUnknownException: every actor here can tell what it left (a lost lease says which side of its
        // commit point it stopped on).
        assertThat(t).as(story).isInstanceOfAny(WriteNotAppliedException.class, WriteIncompleteException.class);
        if (t instanceof WriteNotAppliedException) {
            assertThat(committed).as(story + ": a write reported not applied passed its commit point: " + t.getMessage()).isFalse();
        } else {
            assertThat(committed).as(story + ": a write reported incomplete never passed its commit point: " + t.getMessage()).isTrue();
        }
    }

    /** Every object of the bucket outside the table {@code t/}, key to content. */
    static Map<String, byte[]> outside(S3Fixture s3, String bucket) {
        Map<String, byte[]> all = new TreeMap<>(s3.snapshot(bucket, ""));
        all.keySet().removeIf(k -> k.startsWith("t/"));
        return all;
    }

    /** The table {@code t/} as DuckDB reads it: partition (dt) to its ids, each read once. */
    static Map<String, Set<String>> contents(S3Fixture s3, String bucket) {
        Map<String, Set<String>> out = new TreeMap<>();
        if (s3.list(bucket, "t/").keySet().stream().noneMatch(k -> k.endsWith(".parquet"))) {
            return out;
        }
        for (List<Object> row : DuckReader.query(s3, bucket, "t/", "SELECT CAST(dt AS VARCHAR), id FROM t")) {
            Set<String> ids = out.computeIfAbsent((String) row.get(0), k -> new TreeSet<>());
            assertThat(ids.add((String) row.get(1))).as("row " + row + " is read once").isTrue();
        }
        return out;
    }

    /** The Locations of the Glue table {@code db.t}'s partitions (none when it does not exist). */
    static Set<String> gluePartitions(GlueClient client, String db) {
        Set<String> out = new TreeSet<>();
        boolean exists = client.getTables(x -> x.databaseName(db)).tableList().stream().anyMatch(t -> t.name().equals("t"));
        if (!exists) {
            return out;
        }
        client.getPartitionsPaginator(x -> x.databaseName(db).tableName("t"))
                .forEach(page -> page.partitions().stream().map(Partition::storageDescriptor).forEach(sd -> out.add(sd.location())));
        return out;
    }

    /** The folders of {@code t/} that hold a data file, as Glue Locations. */
    static Set<String> s3Partitions(S3Fixture s3, String bucket) {
        Set<String> out = new TreeSet<>();
        for (String k : s3.list(bucket, "t/").keySet()) {
            if (k.endsWith(".parquet") && !k.startsWith("t/_tmp/")) {
                out.add("s3://" + bucket + "/" + k.substring(0, k.lastIndexOf('/') + 1));
            }
        }
        return out;
    }
}
