package io.wrangler.spark;

import io.wrangler.spi.TableSnapshot;
import org.apache.spark.sql.connector.read.InputPartition;

/** The files one task reads: a part of the driver's snapshot, with the read's schema. */
record ReadPartition(TableSnapshot part) implements InputPartition {
    private static final long serialVersionUID = 1L;
}
