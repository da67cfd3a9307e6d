package io.wrangler.spark;

import io.wrangler.spi.StagedFiles;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * What one committed task attempt staged, sent to the driver: the engine SPI's {@link StagedFiles} (the partitions it
 * saw and each file). Only the driver's commit makes them part of the table.
 */
record TaskMessage(StagedFiles staged) implements WriterCommitMessage {
    private static final long serialVersionUID = 2L;
}
