package io.wrangler.merge;

import io.wrangler.PartitionFilter;
import io.wrangler.WriteOptions;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.commit.WriteSpec;
import io.wrangler.input.BatchSource;
import io.wrangler.spi.StepHook;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import java.util.List;
import java.util.Objects;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A MergeSpec is everything a merge by key was asked to do, fixed before it starts: what the public {@code MergeBuilder}
 * collected, with the table's location parsed and the client chosen. Internal.
 *
 * @param location the table
 * @param s3 the client
 * @param options the write options (never mode, bucketBy, dtype or deferred uploads: the builder refused them)
 * @param requests what every S3 request carries, the reads' too
 * @param input the rows to merge, opened (its read failures already made InputExceptions)
 * @param keys the key columns, as the input names them
 * @param orderBy the column whose greater value wins between an input row and the table's rows of its key, or null
 * @param keepExisting whether a matched key keeps the table's rows (the input's row is dropped)
 * @param scope the partitions matched besides those the input's rows go to
 * @param catalog the catalog table, or null
 * @param hook told at each step of the commit protocol
 * @param tuning sizes and limits of the write machinery
 */
public record MergeSpec(S3Location location, S3Client s3, WriteOptions options, RequestOptions requests, BatchSource input,
                        List<String> keys, String orderBy, boolean keepExisting, PartitionFilter scope, CatalogTable catalog,
                        StepHook hook, WriteSpec.Tuning tuning) {
    public MergeSpec {
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(s3, "s3");
        Objects.requireNonNull(options, "options");
        keys = List.copyOf(keys);
        Objects.requireNonNull(hook, "hook");
        Objects.requireNonNull(tuning, "tuning");
    }

    /** The table URI, normalized. */
    public String table() {
        return location.uri();
    }

    /** The start of every message: {@code Cannot merge into s3://b/t/ (step: validate): }. */
    String cannot(String step) {
        return "Cannot merge into " + table() + " (step: " + step + "): ";
    }
}
