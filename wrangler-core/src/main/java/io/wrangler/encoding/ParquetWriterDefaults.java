package io.wrangler.encoding;

/** Parquet writer settings that are not options of wrangler. */
final class ParquetWriterDefaults {
    /** No padding of row groups to HDFS block boundaries: S3 objects have none. */
    static final int MAX_PADDING = 0;

    private ParquetWriterDefaults() {
    }
}
