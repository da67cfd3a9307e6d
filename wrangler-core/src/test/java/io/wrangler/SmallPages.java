package io.wrangler;

import io.wrangler.commit.WriteSpec;
import java.time.Duration;
import org.apache.arrow.vector.VectorSchemaRoot;
import software.amazon.awssdk.services.s3.S3Client;

/** Writes with row groups and pages of a given size (the writer's tuning is package-private): for tests in other packages. */
public final class SmallPages {
    private SmallPages() {
    }

    /** Writes {@code root} to {@code table} in row groups of about {@code rowGroupBytes} and pages of {@code pageBytes}. */
    public static void write(VectorSchemaRoot root, long rowGroupBytes, int pageBytes, S3Client s3, String table) {
        write(root, rowGroupBytes, pageBytes, Compression.SNAPPY, s3, table);
    }

    /** As {@link #write(VectorSchemaRoot, long, int, S3Client, String)}, with {@code compression}. */
    public static void write(VectorSchemaRoot root, long rowGroupBytes, int pageBytes, Compression compression, S3Client s3,
                             String table) {
        WriteSpec.Tuning d = WriteSpec.Tuning.defaults();
        WriteSpec.Tuning t = new WriteSpec.Tuning(d.threads(), d.partSize(), d.maxPendingParts(), rowGroupBytes, pageBytes, d.maxOpenFiles(),
                d.deleteBatch(), d.singleCopyLimit(), d.copyPartSize(), d.leaseTtl(), d.openBytes(), Duration.ZERO);
        S3Parquet.write(root).tuning(new S3Parquet.Tuning(t)).compression(compression).s3(s3).to(table);
    }
}
