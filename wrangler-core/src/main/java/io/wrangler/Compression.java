package io.wrangler;

import java.util.Locale;

/** A Compression is the codec applied to every Parquet page of a write. */
public enum Compression {
    SNAPPY,
    ZSTD,
    GZIP,
    LZ4_RAW,
    NONE;

    /** The infix of the data file names, as Spark writes it: {@code part-...snappy.parquet}. */
    public String fileInfix() {
        return this == NONE ? "" : "." + (this == LZ4_RAW ? "lz4raw" : name().toLowerCase(Locale.ROOT));
    }
}
