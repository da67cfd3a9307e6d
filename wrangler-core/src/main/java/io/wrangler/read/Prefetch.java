package io.wrangler.read;

import io.wrangler.storage.RequestOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A Prefetch keeps the first GET of the next few files of a read in flight while the current one is decoded: for a
 * table of small files a GET's round trip (tens of milliseconds on S3) costs more than decoding the file, and several
 * GETs at once cost no more than one. The first GET of a file is its footer, or the whole file when it is at most
 * {@link S3InputFile#WHOLE} bytes, so at most {@code ahead} times 1 MiB is held ahead (and the heads of the files the
 * read's workers took and have not started yet, at most {@code 2 * threads}).
 *
 * <p>Each file is fetched ahead at most once and its head is held until the file is read (every file of a read is,
 * once) or the read closes: held heads are those of the files between the earliest not yet read and the last
 * scheduled, whatever order the read's workers start their files in.
 *
 * <p>Only an optimisation: a file whose prefetch failed is fetched again when it is read, with the read's own retries
 * and errors.
 */
final class Prefetch implements AutoCloseable {
    /** Files fetched ahead at the most. */
    static final int MAX_AHEAD = 8;
    private static final int THREADS = 4;

    private final List<TableFiles.DataFile> files;
    private int ahead;
    private final int initialAhead;
    /** Whether files are read by ranged GETs only, none fetched ahead ({@link #ranged}). */
    private boolean ranged;
    private final ConcurrentHashMap<Integer, CompletableFuture<byte[]>> heads = new ConcurrentHashMap<>();
    /** Footers fetched for the read's schema ({@link #footer}), until their file is read: at most half the budget. */
    private final ConcurrentHashMap<Integer, byte[]> known = new ConcurrentHashMap<>();
    private long knownBytes;
    /**
     * Footers parsed for the read's schema ({@link #keepParsed}), until their file is read: the files fetched ahead, and
     * those whose footer bytes are {@link #known}, counted in the same half of the budget at {@link #PARSED_WEIGHT} times
     * their bytes. Their file is then opened without parsing its footer again.
     */
    private final ConcurrentHashMap<Integer, ParquetMetadata> parsed = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, Long> parsedBytes = new ConcurrentHashMap<>();
    /** A parsed footer's objects weigh a few times its bytes. */
    static final int PARSED_WEIGHT = 4;
    private long parsedTotal;
    private final long budget;
    /** Whether files of at most {@link S3InputFile#WHOLE} bytes are fetched whole for their footer ({@link #footer}). */
    private final boolean wholeFiles;
    private ExecutorService pool;
    private int scheduled = -1;
    private boolean closed;

    /** @param budget the read's memory budget: a file ahead holds up to 1 MiB of it */
    Prefetch(List<TableFiles.DataFile> files, long budget) {
        this(files, budget, true);
    }

    /**
     * @param wholeFiles whether a file small enough is fetched whole when only its footer is asked for ({@link #footer}):
     *     one GET where two would do, when the read decodes every file it looks at (false when most files may be
     *     skipped after their footer)
     */
    Prefetch(List<TableFiles.DataFile> files, long budget, boolean wholeFiles) {
        this.files = files;
        this.budget = budget;
        this.wholeFiles = wholeFiles;
        this.ahead = (int) Math.max(1, Math.min(MAX_AHEAD, budget / S3InputFile.WHOLE / 2));
        this.initialAhead = ahead;
    }

    /**
     * The input of file {@code index} for a look at its footer before it is decoded (the read's schema): its first GET
     * is started here, or taken if already in flight, and left for {@link #input} so the file is not fetched twice.
     */
    synchronized S3InputFile peek(int index, S3Client s3, RequestOptions options) {
        TableFiles.DataFile f = files.get(index);
        CompletableFuture<byte[]> head = heads.get(index);
        if (head == null && !closed) {
            head = fetchAhead(index, s3, options);
            if (head != null) {
                heads.put(index, head);
            }
            // input() starts the files after those already peeked
            scheduled = Math.max(scheduled, index);
        }
        return new S3InputFile(s3, f, options, head);
    }

    /**
     * No file fetched ahead or whole: each is read by ranged GETs of what its decoding asks for ({@link S3InputFile#ranged}),
     * for a read that skips most files, or most of each, after their footers. Returns this.
     */
    Prefetch ranged() {
        this.ranged = true;
        this.ahead = 0;
        return this;
    }

    /**
     * No file fetched ahead by {@link #input}: for a read whose footer GETs fetch every file (whole when small) while
     * its files are decoded. Returns this.
     */
    synchronized Prefetch noAhead() {
        this.ahead = 0;
        return this;
    }

    /** Files fetched ahead again after {@link #noAhead} (not after {@link #ranged}). */
    synchronized void aheadAgain() {
        if (!ranged) {
            this.ahead = initialAhead;
        }
    }

    /** Whether files small enough are fetched whole for their footer (and the first files' heads with it). */
    boolean wholeFiles() {
        return wholeFiles;
    }

    /** Files whose first GET {@link #peek} may keep for their decoding: the files the read fetches ahead anyway. */
    int ahead() {
        return ahead;
    }

    /**
     * The input of file {@code index} for a look at its footer only: the footer is fetched (on the caller's thread) and
     * kept for {@link #input}, whose first GET then fetches only the bytes before it (none for a file of at most
     * {@link S3InputFile#FOOTER_GET} bytes, kept whole). Only the footer is held, not the file's head: the footers of a
     * read of many files are fetched before its first batch, and held up to half the read's budget.
     */
    S3InputFile footer(int index, S3Client s3, RequestOptions options) throws IOException {
        TableFiles.DataFile f = files.get(index);
        S3InputFile in = new S3InputFile(s3, f, options);
        if (reserveWhole(f.size())) {
            // One GET for the file: its footer for the schema now, its data for the decoding later, from the same bytes.
            byte[] whole;
            try {
                whole = in.fetchHead();
            } catch (IOException | RuntimeException e) {
                release(f.size());
                throw e;
            }
            synchronized (this) {
                if (closed) {
                    knownBytes -= f.size();
                } else {
                    known.put(index, whole);
                }
            }
            return new S3InputFile(s3, f, options, null, whole);
        }
        byte[] footer = wholeFiles ? in.fetchFooter() : in.fetchFooter(footerGuess);
        if (!wholeFiles) {
            learnFooter(footer.length);
        }
        synchronized (this) {
            // Beyond the budget a footer is fetched again with its file's first GET: memory stays bounded, not by the table.
            if (!closed && knownBytes + footer.length <= knownBudget()) {
                known.put(index, footer);
                knownBytes += footer.length;
            }
        }
        return new S3InputFile(s3, f, options, null, footer);
    }

    /**
     * The first footer GET of a read that skips most files by their footer (a row filter): a guess of the footer's length,
     * from the longest footer of the read's files seen so far (they are alike: one writer, one schema), so the footers
     * of a table of small files are not most of what a lookup fetches. A footer longer than the guess costs a second GET.
     */
    private volatile int footerGuess = FIRST_FOOTER_GUESS;
    private int longestFooter;
    /** The first footer GETs' length, before any footer of the read was seen: as an unfiltered read's. */
    static final int FIRST_FOOTER_GUESS = S3InputFile.FOOTER_GET;

    private synchronized void learnFooter(int length) {
        if (length > longestFooter) {
            longestFooter = length;
        }
        footerGuess = Math.max(1024, Math.min(S3InputFile.WHOLE, longestFooter + longestFooter / 8 + 256));
    }

    /** The bytes {@link #known} may hold: three quarters of the read's budget (the parsed footers have the last quarter). */
    private long knownBudget() {
        return budget / 4 * 3;
    }

    /**
     * Whether a file of {@code size} bytes is fetched whole for its footer and held until it is decoded: a file of at
     * most {@link S3InputFile#WHOLE} bytes while the held bytes stay within {@link #knownBudget}; the bytes are
     * reserved when it is. Files past the budget have their footer fetched alone, and their data with a second GET.
     */
    private synchronized boolean reserveWhole(long size) {
        if (!wholeFiles || closed || size > S3InputFile.WHOLE || knownBytes + size > knownBudget()) {
            return false;
        }
        knownBytes += size;
        return true;
    }

    private synchronized void release(long size) {
        knownBytes -= size;
    }

    /**
     * Keeps the footer of file {@code index} ({@code bytes} long), parsed for the read's schema, for the file's decoding,
     * if its head was fetched ahead ({@link #peek}) or its footer is held ({@link #footer}) and the budget allows.
     */
    synchronized void keepParsed(int index, ParquetMetadata footer, long bytes) {
        if (closed || !(heads.containsKey(index) || known.containsKey(index))) {
            return;
        }
        long weight = PARSED_WEIGHT * bytes;
        if (parsedTotal + weight <= budget / 4) {
            parsed.put(index, footer);
            parsedBytes.put(index, weight);
            parsedTotal += weight;
        }
    }

    /** The footer of file {@code index} parsed for the read's schema and kept ({@link #keepParsed}), or null; taken once. */
    synchronized ParquetMetadata takeParsed(int index) {
        ParquetMetadata m = parsed.remove(index);
        Long weight = parsedBytes.remove(index);
        if (weight != null) {
            parsedTotal -= weight;
        }
        return m;
    }

    /**
     * The input of file {@code index}, with its first GET's bytes if they were fetched ahead; starts the next ones. Called
     * once per file, by the read's workers in any order (a worker that took a file may start it after another worker
     * started later files): a head fetched ahead is kept until its own file asks for it (or the read closes), never
     * dropped because a later file was asked for first, and no file is fetched ahead once it was asked for.
     */
    synchronized S3InputFile input(int index, S3Client s3, RequestOptions options) {
        TableFiles.DataFile f = files.get(index);
        CompletableFuture<byte[]> head = heads.remove(index);
        byte[] footer = known.remove(index);
        if (footer != null) {
            knownBytes -= footer.length;
        }
        if (ranged) {
            return new S3InputFile(s3, f, options, null, footer).ranged();
        }
        // This file fetches its own first GET now: one before it, asked for later, must not fetch it ahead again.
        scheduled = Math.max(scheduled, index);
        if (!wholeFiles) {
            // most files may be skipped after their footer: nothing is fetched ahead, and only the ranges needed are
            return new S3InputFile(s3, f, options, head, footer).exact();
        }
        if (!closed) {
            for (int i = Math.max(index + 1, scheduled + 1); i <= index + ahead && i < files.size(); i++) {
                CompletableFuture<byte[]> h = fetchAhead(i, s3, options);
                if (h != null) {
                    heads.put(i, h);
                }
                scheduled = i;
            }
        }
        return new S3InputFile(s3, f, options, head, footer);
    }

    /**
     * The input of file {@code index} with the bytes held for it ({@link #footer}), which stay held until
     * {@link #forget}: for a file decoded before the read's schema is known, whose decoding may be given up and done
     * again without fetching the file twice. Nothing is fetched ahead.
     */
    synchronized S3InputFile inputKept(int index, S3Client s3, RequestOptions options) {
        return new S3InputFile(s3, files.get(index), options, null, known.get(index));
    }

    /** Drops the bytes held for file {@code index} ({@link #inputKept}): its batches were handed over. */
    synchronized void forget(int index) {
        byte[] held = known.remove(index);
        if (held != null) {
            knownBytes -= held.length;
        }
    }

    private CompletableFuture<byte[]> fetchAhead(int index, S3Client s3, RequestOptions options) {
        TableFiles.DataFile file = files.get(index);
        if (pool == null) {
            pool = Executors.newFixedThreadPool(THREADS, r -> {
                Thread t = new Thread(r, "wrangler-prefetch");
                t.setDaemon(true);
                return t;
            });
        }
        byte[] held = known.get(index);
        if (held != null && held.length == file.size()) {
            return null; // held whole: nothing to fetch
        }
        S3InputFile in = new S3InputFile(s3, file, options, null, held);
        return CompletableFuture.supplyAsync(() -> {
            try {
                return in.fetchHead();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, pool);
    }

    @Override
    public synchronized void close() {
        closed = true;
        heads.values().forEach(h -> h.cancel(true));
        heads.clear();
        known.clear();
        parsed.clear();
        parsedBytes.clear();
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
