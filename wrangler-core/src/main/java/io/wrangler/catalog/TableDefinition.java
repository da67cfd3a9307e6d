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
 */
public record TableDefinition(String location, List<Field> columns, List<Field> partitionKeys, WriteMode mode,
                              Compression compression) {
    public TableDefinition {
        columns = List.copyOf(columns);
        partitionKeys = List.copyOf(partitionKeys);
    }
}
