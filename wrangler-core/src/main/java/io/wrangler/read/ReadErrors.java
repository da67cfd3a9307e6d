package io.wrangler.read;

import io.wrangler.ReadException;
import io.wrangler.storage.Removed;

/** The failure of reading one file of a table, in the reader's words: one wording for the schema, the decoder and the pipeline. */
final class ReadErrors {
    private ReadErrors() {
    }

    /** {@code f} as a read reports it: {@code s3://bucket/key}. */
    static String uri(TableFiles.DataFile f) {
        return "s3://" + f.bucket() + "/" + f.key();
    }

    /** Reading {@code f} of {@code table} failed with {@code e} (a {@link ReadException} passes unchanged). */
    static ReadException failed(String table, TableFiles.DataFile f, Exception e) {
        if (e instanceof ReadException r) {
            return r;
        }
        if (Removed.by(e)) {
            return new ReadException(table, "Cannot read " + table + ": the table changed while it was read: " + uri(f) + ", listed "
                    + "by this read, was removed by another write (an overwrite, a keyed rerun or a compaction) before it was read ("
                    + e + "). A read changes nothing: read again, and it reads the table as it is now.", e);
        }
        return new ReadException(table, "Cannot read " + table + ": reading " + uri(f) + " failed: " + e
                + ". A read changes nothing: fix the cause and read again.", e);
    }
}
