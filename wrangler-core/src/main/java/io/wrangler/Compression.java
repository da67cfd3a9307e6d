package io.wrangler;

/** A Compression is the codec applied to every Parquet page of a write. */
public enum Compression {
    SNAPPY("snappy"),
    ZSTD("zstd"),
    GZIP("gzip"),
    LZ4_RAW("lz4"),
    NONE("none");

    private final String glueName;

    Compression(String glueName) {
        this.glueName = glueName;
    }

    /** The value of the Glue table parameter {@code compressionType} for this codec. */
    public String glueName() {
        return glueName;
    }

    /** The infix of the data file names, as Spark writes it: {@code part-...snappy.parquet}. */
    public String fileInfix() {
        return this == NONE ? "" : "." + (this == LZ4_RAW ? "lz4raw" : name().toLowerCase(java.util.Locale.ROOT));
    }
}
