package io.wrangler.read;

import io.wrangler.storage.Replaced;
import io.wrangler.storage.RequestOptions;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import software.amazon.awssdk.core.exception.RetryableException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * An S3InputFile is one S3 object as parquet-java's {@link InputFile}: every read is a ranged GET of exactly the bytes
 * asked for, except the file's last {@link #TAIL} bytes (the whole file up to {@link #WHOLE} bytes), fetched with one
 * GET when the file is opened, from which the footer is read. {@link RowGroupPages} reads a row group's column chunks through {@link #read}: a small row group
 * whole, a large one column by column in windows of bounded size.
 */
final class S3InputFile implements InputFile {
    /** Enough for the footer of most files: one GET gives parquet-java its length, magic and metadata. */
    static final int TAIL = 64 * 1024;
    /**
     * A file of at most this many bytes is fetched whole by that first GET: a request costs more than the bytes (tens of
     * milliseconds on S3, several megabytes' worth), so a small file costs one GET, not one for its footer and more for
     * its row groups.
     */
    static final int WHOLE = 1024 * 1024;

    private final S3Client s3;
    private final String bucket;
    private final String key;
    private final long length;
    /** The If-Match condition of every GET: the ETag the file was listed with, or null when not known ({@link Replaced#condition}). */
    private final String ifMatch;
    private final RequestOptions options;
    private byte[] tail;
    private long bytesRead;
    /** The first GET's bytes, fetched ahead by {@link Prefetch}, or null. */
    private CompletableFuture<byte[]> head;
    /** Whether every read outside the known bytes is a GET of its own range: no first GET of the file's head ({@link #ranged}). */
    private boolean ranged;

    /**
     * The object {@code key} of {@code length} bytes, listed with {@code eTag} (null: not known): every GET carries
     * {@code If-Match: eTag}, so that every byte read is of the object listed, and an object put under the key since is a
     * {@link Replaced} (never bytes of two objects taken for one file's).
     */
    S3InputFile(S3Client s3, String bucket, String key, long length, String eTag, RequestOptions options) {
        this.s3 = s3;
        this.bucket = bucket;
        this.key = key;
        this.length = length;
        this.ifMatch = Replaced.condition(eTag);
        this.options = options;
    }

    /** The data file {@code f}, every GET on the condition of its listed ETag. */
    S3InputFile(S3Client s3, TableFiles.DataFile f, RequestOptions options) {
        this(s3, f.bucket(), f.key(), f.size(), f.eTag(), options);
    }

    /** The data file {@code f}, its first GET's bytes fetched ahead ({@code head}, or null). */
    S3InputFile(S3Client s3, TableFiles.DataFile f, RequestOptions options, CompletableFuture<byte[]> head) {
        this(s3, f, options);
        this.head = head;
    }

    /**
     * The data file {@code f}.
     *
     * @param known the file's last {@code known.length} bytes (its footer, fetched for the read's schema), or null: reads
     *     within them are answered from memory, and the first GET fetches only the bytes before them
     */
    S3InputFile(S3Client s3, TableFiles.DataFile f, RequestOptions options, CompletableFuture<byte[]> head, byte[] known) {
        this(s3, f, options, head);
        this.known = known != null && known.length <= length ? known : null;
        if (this.known != null && this.known.length == length) {
            bytesRead = length; // the whole file, fetched by one GET for its footer
        }
    }

    /** The file's last bytes already fetched ({@link #known}), or null; set once, when made ({@link #knowing}). */
    private byte[] known;

    /**
     * Takes {@code tail}, the file's last {@code tail.length} bytes fetched by the caller ({@link #fetchFooter}): reads
     * within them are answered from memory, and every other read is a GET of exactly its bytes (never the file's head).
     * Call before the first read. Returns this.
     */
    S3InputFile knowing(byte[] tail) {
        this.known = tail.length <= length ? tail : null;
        this.exact = true;
        return this;
    }

    /**
     * Whether every read beyond {@link #known} and {@link #kept} bytes is a GET of exactly the bytes asked for, never the
     * file's head ({@link #exact}).
     */
    private boolean exact;

    /** Byte ranges fetched ahead by a reader that planned its reads ({@link #keep}): start offset to bytes. */
    private final java.util.TreeMap<Long, byte[]> kept = new java.util.TreeMap<>();

    /**
     * Reads nothing but what is asked for: no read fetches the file's head (its last {@link #TAIL} bytes, or the whole file
     * when small). For reads that skip most of a file by its footer (row filters): the footer, bloom filters, page indexes
     * and the pages a filter needs are fetched by their own ranges.
     */
    S3InputFile exact() {
        this.exact = true;
        return this;
    }

    /**
     * Fetches {@code [from, from + n)} with one GET and keeps it: later reads within it are answered from memory. A
     * reader that knows which ranges it needs (page indexes, pages) fetches them with as few GETs as it decides.
     */
    void keep(long from, int n) throws IOException {
        if (n <= 0 || held(from, n) != null) {
            return;
        }
        byte[] b = new byte[n];
        get(from, b, 0, n);
        synchronized (kept) {
            kept.put(from, b);
        }
    }

    /** Forgets the ranges {@link #keep} fetched (a row group's pages, once decoded). */
    void forgetKept() {
        synchronized (kept) {
            kept.clear();
        }
    }

    /** The kept bytes holding all of {@code [pos, pos + len)}, or null. */
    private Held keptAt(long pos, long len) {
        synchronized (kept) {
            java.util.Map.Entry<Long, byte[]> e = kept.floorEntry(pos);
            if (e != null && pos + len <= e.getKey() + e.getValue().length) {
                return new Held(e.getValue(), (int) (pos - e.getKey()));
            }
        }
        return null;
    }

    /** The most bytes {@link #fetchFooter} asks for at first: the footer of a file of a few dozen columns. */
    static final int FOOTER_GET = 16 * 1024;

    /**
     * Fetches the file's footer (its metadata, its length and the magic): one GET of the last {@link #FOOTER_GET} bytes
     * (a second one when the footer is longer), trimmed to the footer; a file of at most that size is fetched and kept
     * whole (a second GET for the rest would cost more than its bytes). The bytes of a file that is not Parquet are
     * returned as fetched, for parquet-java to refuse.
     */
    byte[] fetchFooter() throws IOException {
        return fetchFooter(FOOTER_GET);
    }

    /** {@link #fetchFooter()} whose first GET asks for the last {@code guess} bytes (a guess of the footer's length). */
    byte[] fetchFooter(int guess) throws IOException {
        int n = (int) Math.min(length, Math.max(8, guess));
        byte[] last = new byte[n];
        get(length - n, last, 0, n);
        if (n < 8 || n == length) {
            return last;
        }
        long metadata = ByteBuffer.wrap(last, n - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xFFFFFFFFL;
        long footer = metadata + 8;
        if (footer > length) {
            return last;
        }
        if (footer <= n) {
            return Arrays.copyOfRange(last, (int) (n - footer), n);
        }
        byte[] all = new byte[(int) footer];
        get(length - footer, all, 0, (int) (footer - n));
        System.arraycopy(last, 0, all, (int) (footer - n), n);
        return all;
    }

    /** How many of the file's last bytes are known ({@link #known}) or fetched ahead, for a footer's share of a budget. */
    long knownLength() {
        if (known != null && known.length == length && length >= 8) {
            // the whole file: its footer is the metadata's length (in the last 8 bytes) and those 8 bytes
            long metadata = ByteBuffer.wrap(known, known.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xFFFFFFFFL;
            return Math.min(length, metadata + 8);
        }
        return known != null ? known.length : Math.min(length, FOOTER_GET);
    }

    /** Bytes of the file held in memory: {@code bytes} from {@code offset}, read only. */
    record Held(byte[] bytes, int offset) {
    }

    /**
     * The bytes {@code [pos, pos + len)} where this file holds them in memory (the whole file fetched for its footer, or
     * the first GET's bytes once fetched), for reading in place without a copy; null when they are not all held.
     */
    Held held(long pos, long len) throws IOException {
        if (pos < 0 || len < 0 || pos + len > length) {
            return null;
        }
        if (known != null && pos >= length - known.length) {
            return new Held(known, (int) (pos - (length - known.length)));
        }
        Held k = keptAt(pos, len);
        if (k != null) {
            return k;
        }
        if (pos >= tailStart() && (tail != null || !exact)) {
            return new Held(tail(), (int) (pos - tailStart()));
        }
        return null;
    }

    /**
     * This file read by ranged GETs only, each of the bytes asked for (a bloom filter, a row group's column chunks), never
     * its head or the whole file: for a read that skips most of a file after its footer. Returns this.
     */
    S3InputFile ranged() {
        this.ranged = true;
        return this;
    }

    /** Where the bytes of the first GET start: the whole file up to {@link #WHOLE} bytes, else its last {@link #TAIL}. */
    private long tailStart() {
        if (ranged) {
            return length; // no first GET: every read fetches its own range
        }
        return length <= WHOLE ? 0 : length - TAIL;
    }

    /** Fetches the bytes the first read of this file would fetch (for {@link Prefetch}); counts nothing as read. */
    byte[] fetchHead() throws IOException {
        long from = tailStart();
        byte[] got = new byte[(int) (length - from)];
        long knownFrom = known == null ? length : length - known.length;
        if (knownFrom > from) {
            get(from, got, 0, (int) (knownFrom - from));
        }
        if (known != null) {
            long start = Math.max(from, knownFrom);
            System.arraycopy(known, (int) (start - knownFrom), got, (int) (start - from), (int) (length - start));
        }
        return got;
    }

    @Override
    public long getLength() {
        return length;
    }

    long bytesRead() {
        return bytesRead;
    }

    String key() {
        return key;
    }

    /** Its URI: parquet-java names the file by it in its errors. */
    @Override
    public String toString() {
        return "s3://" + bucket + "/" + key;
    }

    /**
     * One ranged GET of {@code [from, from + n)} straight into {@code into}: the body is read from the response stream,
     * with no array of the SDK's in between. The body is read inside the SDK's call (a response transformer), so that a
     * body cut short is retried by the SDK like any other broken connection, as the request options' retries say.
     */
    private void get(long from, byte[] into, int off, int n) throws IOException {
        if (n == 0) {
            return;
        }
        GetObjectRequest r = options.apply(GetObjectRequest.builder().bucket(bucket).key(key).ifMatch(ifMatch)
                .range("bytes=" + from + "-" + (from + n - 1))).build();
        long answered;
        try {
            answered = s3.getObject(r, (response, in) -> {
            Long length = response.contentLength();
            if (length != null && length != n) {
                return length;
            }
            try {
                int got = in.readNBytes(into, off, n);
                return got == n && in.read() < 0 ? (long) n : (long) got;
            } catch (IOException e) {
                // A body cut short is a broken connection: transient, so the SDK sends the whole GET again.
                throw RetryableException.builder().message("reading " + this + " bytes " + from + "-" + (from + n - 1) + " failed: " + e)
                        .cause(e).build();
            }
            });
        } catch (S3Exception e) {
            if (ifMatch != null && Replaced.preconditionFailed(e)) {
                throw new Replaced(toString(), ifMatch, e);
            }
            throw e;
        }
        if (answered != n) {
            throw new EOFException("s3://" + bucket + "/" + key + " answered " + answered + " bytes for a range of " + n
                    + ": the object changed while it was read");
        }
        bytesRead += n;
    }

    /** Reads {@code [pos, pos + len)} of the file into {@code into}: from the tail when it lies there, else one GET. */
    void read(long pos, byte[] into, int off, int len) throws IOException {
        if (pos < 0 || pos + len > length) {
            throw new EOFException("read of " + len + " bytes at " + pos + " past the end of s3://" + bucket + "/" + key + " (" + length
                    + " bytes)");
        }
        if (known != null && pos >= length - known.length) {
            System.arraycopy(known, (int) (pos - (length - known.length)), into, off, len);
            return;
        }
        Held k = keptAt(pos, len);
        if (k != null) {
            System.arraycopy(k.bytes(), k.offset(), into, off, len);
            return;
        }
        long tailStart = tailStart();
        if (pos >= tailStart && !exact) {
            System.arraycopy(tail(), (int) (pos - tailStart), into, off, len);
            return;
        }
        get(pos, into, off, len);
    }

    /** The first GET's bytes ({@link #tailStart} to the end): taken from the prefetch, else fetched now; once. */
    private byte[] tail() throws IOException {
        if (tail == null && head != null) {
            try {
                tail = head.join();
                bytesRead += tail.length;
            } catch (CompletionException | CancellationException e) {
                Replaced replaced = Replaced.in(e);
                if (replaced != null) {
                    head = null;
                    throw replaced; // not fetched again: the object listed is gone from its key
                }
                // fetched again below: a failed prefetch costs a request, not the read
            }
            head = null;
        }
        if (tail == null) {
            tail = fetchHead();
        }
        return tail;
    }

    @Override
    public SeekableInputStream newStream() {
        return new Stream();
    }

    /** A stream over the file: its reads are the file's ranged reads, from the stream's position. */
    private final class Stream extends SeekableInputStream {
        private long pos;

        @Override
        public long getPos() {
            return pos;
        }

        @Override
        public void seek(long newPos) {
            pos = newPos;
        }

        @Override
        public int read() throws IOException {
            if (pos >= length) {
                return -1;
            }
            byte[] one = new byte[1];
            S3InputFile.this.read(pos++, one, 0, 1);
            return one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (pos >= length) {
                return -1;
            }
            int n = (int) Math.min(len, length - pos);
            S3InputFile.this.read(pos, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public void readFully(byte[] bytes) throws IOException {
            readFully(bytes, 0, bytes.length);
        }

        @Override
        public void readFully(byte[] bytes, int start, int len) throws IOException {
            S3InputFile.this.read(pos, bytes, start, len);
            pos += len;
        }

        @Override
        public int read(ByteBuffer buf) throws IOException {
            if (pos >= length) {
                return -1;
            }
            int n = (int) Math.min(buf.remaining(), length - pos);
            byte[] b = new byte[n];
            S3InputFile.this.read(pos, b, 0, n);
            pos += n;
            buf.put(b);
            return n;
        }

        @Override
        public void readFully(ByteBuffer buf) throws IOException {
            int n = buf.remaining();
            byte[] b = new byte[n];
            S3InputFile.this.read(pos, b, 0, n);
            pos += n;
            buf.put(b);
        }
    }
}
