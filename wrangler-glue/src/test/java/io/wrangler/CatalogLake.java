package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.commit.Step;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.MemoryS3;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.glue.model.Partition;

/**
 * The fixture of the tests of the catalog operations (register, repair, drop table, and merge, delete and drop of
 * partitions through Glue): a fresh MemoryS3 bucket and the Glue database of the same name, the tables' URIs and Glue
 * tables, Glue's partitions read from every page, and the check that Glue equals S3.
 */
final class CatalogLake {
    final MemoryS3 s3 = TestLakes.memoryS3();
    final LocalGlue glue = TestLakes.glue();
    final String bucket;
    final String db;

    CatalogLake(String prefix) {
        bucket = TestLakes.bucket(prefix, s3);
        db = TestLakes.database(bucket);
    }

    String uri(String name) {
        return "s3://" + bucket + "/" + name + "/";
    }

    GlueTable table(String name) {
        return GlueCatalog.of(glue.client()).table(db, name);
    }

    /** Every partition Glue registers for the table, from every page, in the order of their values. */
    List<Partition> partitions(String name) {
        return partitions(glue, db, name);
    }

    /** Every partition Glue registers for {@code db.name}, from every page, in the order of their values. */
    static List<Partition> partitions(LocalGlue glue, String db, String name) {
        List<Partition> out = new ArrayList<>();
        String token = null;
        do {
            String t = token;
            var page = glue.client().getPartitions(b -> b.databaseName(db).tableName(name).nextToken(t));
            out.addAll(page.partitions());
            token = page.nextToken();
        } while (token != null);
        out.sort(Comparator.comparing(p -> String.join("/", p.values())));
        return out;
    }

    /** The first value of each registered partition, in order. */
    List<String> firstValues(String name) {
        return partitions(name).stream().map(p -> p.values().get(0)).toList();
    }

    /** Each registered partition as {@code values @ Location}, sorted. */
    List<String> locations(String name) {
        List<String> out = new ArrayList<>();
        for (Partition p : partitions(name)) {
            out.add(String.join("/", p.values()) + " @ " + p.storageDescriptor().location());
        }
        out.sort(null);
        return out;
    }

    /** Every object under the prefix but the tables' commit logs and leases ({@code /_}), with its bytes. */
    Map<String, byte[]> objects(String prefix) {
        Map<String, byte[]> out = new LinkedHashMap<>(s3.snapshot(bucket, prefix));
        out.keySet().removeIf(k -> k.contains("/_"));
        return out;
    }

    /** The bytes of a Parquet file holding {@code rows} (written to a scratch table, which is then removed). */
    byte[] parquetOf(List<? extends Record> rows) {
        String scratch = "scratch-" + System.nanoTime() + "/";
        S3Parquet.write(rows).s3(s3.client()).to("s3://" + bucket + "/" + scratch);
        Map<String, byte[]> files = objects(scratch);
        assertThat(files).hasSize(1);
        s3.list(bucket, scratch).keySet().forEach(k -> s3.client().deleteObject(b -> b.bucket(bucket).key(k)));
        return files.values().iterator().next();
    }

    /** Deletes every object under {@code prefix}. */
    void deleteFolder(String prefix) {
        deleteFolder(s3, bucket, prefix);
    }

    static void deleteFolder(MemoryS3 s3, String bucket, String prefix) {
        s3.list(bucket, prefix).keySet().forEach(k -> s3.client().deleteObject(b -> b.bucket(bucket).key(k)));
    }

    /** The one object under {@code prefix} but commit logs and leases. */
    static byte[] only(MemoryS3 s3, String bucket, String prefix) {
        Map<String, byte[]> objects = new LinkedHashMap<>(s3.snapshot(bucket, prefix));
        objects.keySet().removeIf(k -> k.contains("/_"));
        assertThat(objects).hasSize(1);
        return objects.values().iterator().next();
    }

    boolean tableExists(String name) {
        return exists(glue, db, name);
    }

    static boolean exists(LocalGlue glue, String db, String name) {
        return glue.client().getTables(b -> b.databaseName(db)).tableList().stream().anyMatch(t -> t.name().equals(name));
    }

    /** Waits for {@code latch}; fails after 60 s. */
    static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new AssertionError("the other side did not reach its step within 60 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** A write held at a step until released. */
    record Held(CompletableFuture<WriteResult> write, CountDownLatch latch) {
        void release() {
            latch.countDown();
        }
    }

    /** Starts {@code w}, and returns once it reached {@code step} (its {@code count}-th time; 0: any), where it waits. */
    static Held heldAt(WriteBuilder w, String uri, Step step, int count) {
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<WriteResult> write = CompletableFuture.supplyAsync(() -> w.stepHook((s, c) -> {
            if (s == step && (count == 0 || c == count)) {
                reached.countDown();
                await(release);
            }
        }).to(uri));
        await(reached);
        return new Held(write, release);
    }

    /**
     * Glue equals S3: the table exists exactly when a data file lies under its folder, and its partitions' Locations are
     * exactly the folders that hold a data file ({@code _tmp/} and hidden objects left out).
     */
    void assertGlueEqualsS3(String name, String story) {
        String root = name + "/";
        TreeSet<String> folders = new TreeSet<>();
        for (String k : s3.list(bucket, root).keySet()) {
            String rel = k.substring(root.length());
            if (k.endsWith(".parquet") && !rel.startsWith("_") && !rel.contains("/_") && !rel.contains("/.")) {
                folders.add(uri(name) + rel.substring(0, rel.lastIndexOf('/') + 1));
            }
        }
        boolean exists = tableExists(name);
        assertThat(exists).as("a Glue table exactly when S3 holds data: " + story + "; folders " + folders).isEqualTo(!folders.isEmpty());
        if (exists) {
            var t = glue.client().getTable(b -> b.databaseName(db).name(name)).table();
            TreeSet<String> registered = new TreeSet<>();
            if (t.partitionKeys().isEmpty()) {
                registered.add(t.storageDescriptor().location());
            } else {
                partitions(name).forEach(p -> registered.add(p.storageDescriptor().location()));
            }
            assertThat(registered).as("Glue's Locations are the folders holding data: " + story).isEqualTo(folders);
        }
    }
}
