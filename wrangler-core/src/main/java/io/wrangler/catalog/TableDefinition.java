package io.wrangler.catalog;

import io.wrangler.Compression;
import io.wrangler.WriteMode;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A TableDefinition is what a write tells its catalog about the table it writes.
 *
 * @param location the table root, {@code s3://bucket/prefix/}
 * @param columns the columns stored in the files, in file order (partition columns excluded)
 * @param partitionKeys the partition columns in {@code partitionBy} order
 * @param mode the write's mode; {@link WriteMode#OVERWRITE} may redefine the table
 * @param compression the codec of the files
 * @param bucketColumns the columns each partition's files are bucketed by, as the catalog names them, in hashing order
 *     (awswrangler's {@code bucketing_info}); empty when the write does not bucket
 * @param buckets the number of buckets; 0 when the write does not bucket
 */
public record TableDefinition(String location, List<Field> columns, List<Field> partitionKeys, WriteMode mode,
                              Compression compression, List<String> bucketColumns, int buckets) {
    public TableDefinition {
        columns = List.copyOf(columns);
        partitionKeys = List.copyOf(partitionKeys);
        bucketColumns = List.copyOf(bucketColumns);
        if (bucketColumns.isEmpty() != (buckets == 0) || buckets < 0) {
            throw new IllegalArgumentException("bucket columns " + bucketColumns + " with " + buckets + " buckets");
        }
    }

    /** A definition without bucketing. */
    public TableDefinition(String location, List<Field> columns, List<Field> partitionKeys, WriteMode mode, Compression compression) {
        this(location, columns, partitionKeys, mode, compression, List.of(), 0);
    }

    /** True when the write buckets its files. */
    public boolean bucketed() {
        return buckets > 0;
    }
}
