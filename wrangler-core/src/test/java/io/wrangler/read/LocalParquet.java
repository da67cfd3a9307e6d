package io.wrangler.read;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;

/** Tests: parquet-java's own reader of a local file, with the read options wrangler reads with (no Hadoop). */
public final class LocalParquet {
    private LocalParquet() {
    }

    public static ParquetFileReader open(Path file) throws IOException {
        return ParquetFileReader.open(new LocalInputFile(file), ParquetOptions.readOptions());
    }
}
