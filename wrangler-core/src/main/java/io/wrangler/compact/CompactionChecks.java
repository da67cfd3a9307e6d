package io.wrangler.compact;

import io.wrangler.InvalidWriteException;
import io.wrangler.WriteStep;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.catalog.TableLayout;
import io.wrangler.read.TableFiles;
import io.wrangler.storage.S3Location;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CompactionChecks holds the invariants a compaction checks on the files it chose, all before it writes anything or
 * takes the lease: that every file lies in the table (under its root, or under a Location the catalog registers there),
 * where the commit replaces it, and that the files' bucket numbers let each bucket be rewritten into itself.
 *
 * <p>Bucket numbers are read from the file names ({@code ..._bucket-00003.snappy.parquet}, as awswrangler and wrangler
 * name them). A compaction merges the files of one bucket of a partition into files of that bucket, with the same
 * number, so every row stays in the bucket its writer gave it, whatever hash that writer used; it refuses a partition
 * where that cannot hold: files with and without a bucket number side by side, a catalog that declares the table
 * bucketed while a file has no number, or a number beyond the catalog's count of buckets.
 */
final class CompactionChecks {
    /** A bucket file's number, before the codec and {@code .parquet}. */
    private static final Pattern BUCKET = Pattern.compile("_bucket-(\\d{1,9})(?:\\.[A-Za-z0-9_]+)?\\.parquet$");

    private final String table;
    private final S3Location location;
    private final List<String> partitionColumns;
    private final TableLayout layout;
    private final String catalog;
    /** What the operation is called in messages: "compact", "delete rows of", "drop partitions of". */
    private String verb = "compact";

    CompactionChecks(String table, S3Location location, List<String> partitionColumns, TableLayout layout, String catalog) {
        this.table = table;
        this.location = location;
        this.partitionColumns = partitionColumns;
        this.layout = layout;
        this.catalog = catalog;
    }

    /** These checks for the operation {@code verb} (as {@link CompactionSpec#verb}). */
    CompactionChecks verb(String verb) {
        this.verb = verb;
        return this;
    }

    /** The bucket number of a file by its name, or -1. */
    static int bucketOf(TableFiles.DataFile f) {
        Matcher m = BUCKET.matcher(f.key());
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** The files of one partition by bucket number, in number order ({@code -1}: files without one). */
    Map<Integer, List<TableFiles.DataFile>> buckets(List<TableFiles.DataFile> files) {
        Map<Integer, List<TableFiles.DataFile>> out = new TreeMap<>();
        for (TableFiles.DataFile f : files) {
            out.computeIfAbsent(bucketOf(f), k -> new ArrayList<>()).add(f);
        }
        return out;
    }

    /** The partition's folder as an {@code s3://} URI: under the table, or the Location the catalog registers. */
    String uri(TableFiles.DataFile f) {
        return f.folder().startsWith("s3://") ? f.folder() : table + f.folder();
    }

    /** Refuses a partition to be compacted whose files can not be kept in their buckets. */
    void bucketed(List<TableFiles.DataFile> files, Set<Integer> numbers) {
        int declared = layout == null ? 0 : layout.buckets();
        if (numbers.contains(-1) && (numbers.size() > 1 || declared > 0)) {
            TableFiles.DataFile without = files.stream().filter(f -> bucketOf(f) < 0).findFirst().orElseThrow();
            String found = numbers.size() > 1
                    ? "holds files with a bucket number (_bucket-N in their names) and files without one, such as " + s3(without)
                    : "is declared bucketed by " + catalog + " (by " + layout.bucketColumns() + " into " + declared + " buckets), but "
                    + s3(without) + " has no bucket number (_bucket-N) in its name";
            throw invalid("the partition " + name(files.get(0)) + " " + found + ", so the bucket of its rows is not known and a "
                    + "compaction could not keep each row in its bucket", "Move the files without a bucket number out of the partition, "
                    + "or rewrite the partition with bucketBy (OVERWRITE_PARTITIONS), then compact again; nothing was changed.");
        }
        if (declared > 0) {
            for (TableFiles.DataFile f : files) {
                if (bucketOf(f) >= declared) {
                    throw invalid(s3(f) + " has the bucket number " + bucketOf(f) + ", but " + catalog + " declares " + declared
                            + " buckets, so the files were bucketed otherwise than the catalog says and a compaction could not keep "
                            + "Athena's reads right", "Set the catalog's NumberOfBuckets to the files' count, or rewrite the table with "
                            + "bucketBy (OVERWRITE), then compact again; nothing was changed.");
                }
            }
        }
    }

    /**
     * Refuses a partition to be compacted that does not lie in the table: under another bucket, outside the table root,
     * at the root itself (of a partitioned table) or in its staging. The commit deletes the files it replaces, and a
     * compaction never deletes outside its table.
     */
    void inTable(List<TableFiles.DataFile> files) {
        for (TableFiles.DataFile f : files) {
            String rest = f.bucket().equals(location.bucket()) && f.key().startsWith(location.prefix())
                    ? f.key().substring(location.prefix().length()) : null;
            String folder = rest == null ? null : rest.substring(0, rest.lastIndexOf('/') + 1);
            String where = rest == null ? "outside the table root " + table
                    : folder.isEmpty() && !partitionColumns.isEmpty() ? "the table root itself"
                    : folder.startsWith("_tmp/") || folder.contains("/_tmp/") ? "inside the table's staging folder"
                    : null;
            if (where != null) {
                String at = f.folder().startsWith("s3://") ? f.folder() : table + f.folder();
                throw invalid("the partition " + name(f) + (catalog == null ? " lies at " : " is registered in " + catalog + " at the Location ")
                        + at + ", which is " + where + "; " + (verb.equals("compact") ? "a compaction" : "wrangler") + " replaces files only in "
                        + "their partition's folder under the table, "
                        + "and never deletes elsewhere", "Move the partition's files to a folder under " + table + " and set its Location "
                        + "to it, or leave the partition out with filter(...); nothing was changed.");
            }
        }
    }

    private String name(TableFiles.DataFile f) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < partitionColumns.size(); i++) {
            String v = f.values().get(i);
            parts.add(partitionColumns.get(i) + "=" + (v == null ? PartitionEntry.DEFAULT_PARTITION : v));
        }
        return parts.toString();
    }

    private static String s3(TableFiles.DataFile f) {
        return "s3://" + f.bucket() + "/" + f.key();
    }

    private InvalidWriteException invalid(String what, String todo) {
        return new InvalidWriteException(table, WriteStep.VALIDATE, "Cannot " + verb + " " + table + " (step: validate): " + what + ". " + todo);
    }
}
