package io.wrangler.spark;

import io.wrangler.spi.TableSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownFilters;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A read being planned by Spark: the columns it needs ({@link #pruneColumns}: only those are fetched) and its filters
 * ({@link #pushFilters}: those on partition columns prune the listing, see {@link PartitionFilters}; those on data
 * columns become the tasks' row filter, see {@link RowFilters}). Every filter is
 * handed back to Spark to apply to the rows: what the listing prunes is a superset of the rows that pass.
 */
final class WranglerScanBuilder implements ScanBuilder, SupportsPushDownFilters, SupportsPushDownRequiredColumns {
    private final Map<String, String> options;
    private final TableSnapshot loaded;
    private final StructType schema;
    private StructType required;
    private PartitionFilters.Pushed pushed = new PartitionFilters.Pushed(io.wrangler.PartitionFilter.all(), List.of());
    private RowFilters.Pushed rows = new RowFilters.Pushed(null, List.of());

    /**
     * @param loaded the snapshot the DataFrame was loaded with: its schema is the read's
     * @param schema its schema as Spark's
     */
    WranglerScanBuilder(Map<String, String> options, TableSnapshot loaded, StructType schema) {
        this.options = options;
        this.loaded = loaded;
        this.schema = schema;
        this.required = schema;
    }

    @Override
    public Filter[] pushFilters(Filter[] filters) {
        pushed = PartitionFilters.of(filters, schema, loaded.partitionColumns());
        rows = RowFilters.of(filters, loaded.schema(), loaded.partitionColumns());
        return filters; // all applied again by Spark to the rows
    }

    @Override
    public Filter[] pushedFilters() {
        List<Filter> all = new ArrayList<>(pushed.used());
        all.addAll(rows.used());
        return all.toArray(new Filter[0]);
    }

    @Override
    public void pruneColumns(StructType requiredSchema) {
        List<StructField> out = new ArrayList<>();
        for (StructField f : schema.fields()) {
            if (requiredSchema.getFieldIndex(f.name()).isDefined()) {
                out.add(f); // whole, nested fields included: the reader selects top-level columns
            }
        }
        this.required = new StructType(out.toArray(new StructField[0]));
    }

    @Override
    public Scan build() {
        return new WranglerScan(options, loaded, required, pushed, rows.used());
    }
}
