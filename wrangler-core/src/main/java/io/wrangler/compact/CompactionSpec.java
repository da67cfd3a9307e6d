package io.wrangler.compact;

import io.wrangler.PartitionFilter;
import io.wrangler.WriteOptions;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.spi.StepHook;
import io.wrangler.commit.WriteSpec;
import io.wrangler.read.TableFiles;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A CompactionSpec is everything a compaction was asked to do, fixed before it starts: what the public
 * {@code CompactBuilder} collected, with the table's location parsed and the client chosen. Internal.
 *
 * @param location the table
 * @param s3 the client
 * @param options the compaction's options (never mode, partitionBy, bucketBy, dtype or deferred uploads: the builder
 *     refused them)
 * @param requests what every S3 request carries, the reads' too
 * @param codecChosen whether the caller chose the codec (else the files' own is kept)
 * @param choice which partitions are compacted
 * @param dedup the keys and order of {@code dedupBy}, or null
 * @param catalog the catalog table, or null
 * @param seams what tests change
 * @param removal for a delete of rows or a drop of partitions, what it removes; null for a compaction
 */
public record CompactionSpec(S3Location location, S3Client s3, WriteOptions options, RequestOptions requests, boolean codecChosen,
                             Choice choice, DedupBy dedup, CatalogTable catalog, Seams seams, Removal removal) {
    public CompactionSpec {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(s3, "s3");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(choice, "choice");
        Objects.requireNonNull(seams, "seams");
    }

    /** What the operation is called in messages: "compact", "delete rows of", "drop partitions of". */
    public String verb() {
        return removal == null ? "compact" : removal.verb();
    }

    /** The table URI, normalized. */
    public String table() {
        return location.uri();
    }

    /**
     * Which partitions a compaction rewrites: those {@code filter} passes with more than {@code moreFilesThan} files, or
     * with at least two files one of which is smaller than {@code smallerThan} bytes; -1 leaves a threshold unset, and
     * with neither set a partition of more than one file is compacted.
     */
    public record Choice(PartitionFilter filter, int moreFilesThan, long smallerThan) {
        public Choice {
            Objects.requireNonNull(filter, "filter");
        }

        /** Whether the files of one unit (a partition, or a bucket of one) are compacted. */
        boolean wanted(List<TableFiles.DataFile> files) {
            if (moreFilesThan < 0 && smallerThan < 0) {
                return files.size() > 1;
            }
            if (moreFilesThan >= 0 && files.size() > moreFilesThan) {
                return true;
            }
            return smallerThan >= 0 && files.size() > 1 && files.stream().anyMatch(f -> f.size() < smallerThan);
        }
    }

    /** {@code dedupBy(keys, order)}: one row kept per value of {@code keys} in a unit, by {@link Dedup}'s rule. */
    public record DedupBy(List<String> keys, String order) {
        public DedupBy {
            keys = List.copyOf(keys);
            Objects.requireNonNull(order, "order");
        }
    }

    /**
     * What tests change.
     *
     * @param hook told at each step of the commit protocol
     * @param tuning sizes and limits of the write machinery (and the clock of the recovery before the listing)
     * @param batchRows rows per batch read
     * @param outputSchema changes the schema the new files are written with (the check must catch it)
     */
    public record Seams(StepHook hook, WriteSpec.Tuning tuning, int batchRows, UnaryOperator<Schema> outputSchema) {
        public Seams {
            Objects.requireNonNull(hook, "hook");
            Objects.requireNonNull(tuning, "tuning");
            Objects.requireNonNull(outputSchema, "outputSchema");
        }
    }
}
