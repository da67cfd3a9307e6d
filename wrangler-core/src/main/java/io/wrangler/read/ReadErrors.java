package io.wrangler.read;

import io.wrangler.ReadException;
import io.wrangler.storage.Removed;
import io.wrangler.storage.Replaced;

/** The failure of reading one file of a table, in the reader's words: one wording for the schema, the decoder and the pipeline. */
final class ReadErrors {
    private ReadErrors() {
    }

    /** {@code f} as a read reports it: {@code s3://bucket/key}. */
    static String uri(TableFiles.DataFile f) {
        return "s3://" + f.bucket() + "/" + f.key();
    }

    /**
     * A file of {@code table} was replaced under its own name after the read listed it ({@link Replaced}): the
     * read stopped rather than take bytes of another object for the file's.
     */
    static ReadException replaced(String table, Replaced replaced, Exception e) {
        return new ReadException(table, "Cannot read " + table + " (step: read): the table changed while it was read: "
                + replaced.changedSinceListed() + ". A read changes nothing: read again (safe to retry), and it reads the table as it "
                + "is now.", e);
    }

    /** Reading {@code f} of {@code table} failed with {@code e} (a {@link ReadException} passes unchanged). */
    static ReadException failed(String table, TableFiles.DataFile f, Exception e) {
        if (e instanceof ReadException r) {
            return r;
        }
        Replaced replaced = Replaced.in(e);
        if (replaced != null) {
            return replaced(table, replaced, e);
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
