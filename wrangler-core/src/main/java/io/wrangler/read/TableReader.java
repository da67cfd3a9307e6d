package io.wrangler.read;

import io.wrangler.RowFilter;
import io.wrangler.filter.BoundFilter;
import io.wrangler.filter.Verdict;
import io.wrangler.storage.RequestOptions;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A TableReader streams the files of a table as Arrow batches: file by file, row group by row group, at most
 * {@code batchRows} rows a batch, with the partition columns restored from each file's folder. Flat columns are decoded
 * column by column: page by page straight into the Arrow buffers where the chunk's encodings and type allow
 * ({@link DirectColumn}), else with parquet-java's column readers and converters, decided per column chunk; lists, maps
 * and structs are assembled record by record ({@link FileDecoder}; several files at once: {@link Pipeline}). Memory is bounded whatever the size of the files and their row groups:
 * {@link #READ_BUDGET} bytes of fetched column chunks, plus per column the page being decoded and its dictionary, plus
 * one batch.
 *
 * <p>The schema is the selected data columns, then the partition columns. The data columns are the union by name of
 * the files' columns, matched case-insensitively as Hive, Glue and Athena match them, in order of first appearance in
 * file order and spelled as the first file spells them (or the catalog's, {@link #catalogColumns}): {@link TableSchema};
 * a file that lacks a column gives nulls for it. The partition columns: {@link PartitionColumns}. Every file's footer is fetched before the first batch (several at once);
 * a read of every row on several threads decodes each file as its bytes arrive meanwhile ({@link Early}), and a read
 * under a row filter judges each file as its footer arrives ({@link JudgeEarly}). A column whose
 * type differs between two files, or two columns of one file that differ only by case, are refused.
 */public final class TableReader extends ArrowReader {
    /**
     * The most bytes of one row group fetched at once: a sixteenth of the heap, 4 to 64 MiB. A row group of more is
     * streamed column by column ({@link RowGroupPages}).
     */
    static final long READ_BUDGET = Math.max(4L << 20, Math.min(64L << 20, Runtime.getRuntime().maxMemory() / 16));

    /**
     * What a reader reads.
     *
     * @param table the table's URI, for messages
     * @param listing the files to read, in this order, and the table's partition columns
     * @param partitionTypes Arrow types of the partition columns by name; a column missing here is inferred from its
     *     values ({@link PartitionColumns#inferType})
     */
    public record Source(S3Client s3, RequestOptions options, String table, TableFiles.Listing listing, Map<String, Field> partitionTypes) {
    }

    private final S3Client s3;
    private final RequestOptions options;
    private final String table;
    private final List<TableFiles.DataFile> files;
    private final PartitionColumns partitions;
    private List<String> selected;
    private final int batchRows;
    private final BufferAllocator owned;
    private Schema schema;
    private List<Field> dataFields;

    /** Files read one after another on the caller's thread: the one being read. */
    private int fileIndex = -1;
    private FileDecoder current;
    /** Files decoded on worker threads, batches handed over in file order: set when {@link #threads} is above 1. */
    private Pipeline pipeline;
    private Prefetch prefetch;
    private int threads = 1;
    private final AtomicLong bytesRead = new AtomicLong();
    private long rowsRead;

    /**
     * @param selected the columns to read in this order, or null for all
     * @param owned an allocator this reader closes when it is closed, or null
     */
    public TableReader(BufferAllocator allocator, BufferAllocator owned, Source source, List<String> selected, int batchRows) {
        super(allocator);
        this.s3 = source.s3();
        this.options = source.options();
        this.table = source.table();
        this.files = source.listing().files();
        this.partitions = new PartitionColumns(table, source.listing(), source.partitionTypes());
        this.batchRows = batchRows;
        this.owned = owned;
        this.selected = selected;
    }

    private long readBudget = READ_BUDGET;
    private boolean directPagesOn = true;
    /** Per column, the kinds of pages decoded straight into its vectors ({@link DirectColumn#V1} to {@link DirectColumn#MIXED}). */
    private final ConcurrentHashMap<String, Integer> directPages = new ConcurrentHashMap<>();
    /** Per flat column, how many of its chunks went through the column readers and converters. */
    private final ConcurrentHashMap<String, Integer> converterChunks = new ConcurrentHashMap<>();
    /** The read's columns matched to each distinct file schema, once for all its files. */
    private final FileDecoder.Layouts layouts = new FileDecoder.Layouts();

    /**
     * Whether flat columns whose chunks allow it are decoded page by page straight into their vectors
     * ({@link DirectColumn}, the default) or all through parquet-java's column readers and the converters; for tests.
     */
    TableReader directPages(boolean on) {
        this.directPagesOn = on;
        return this;
    }

    /** The columns some of whose pages were decoded by {@link DirectColumn}, with what those pages were (a mask). */
    Map<String, Integer> directPages() {
        return Map.copyOf(directPages);
    }

    /** Per flat column, how many of its chunks went through parquet-java's column readers and the converters. */
    Map<String, Integer> converterChunks() {
        return Map.copyOf(converterChunks);
    }
    private int minWindow = RowGroupPages.MIN_WINDOW;

    /**
     * Fetches at most {@code budget} bytes of a row group at once, through windows of at least {@code minWindow} bytes
     * per column ({@link #READ_BUDGET} and {@link RowGroupPages#MIN_WINDOW} by default); for tests. Call before the first batch.
     */
    public TableReader readBudget(long budget, int minWindow) {
        this.readBudget = budget;
        this.minWindow = minWindow;
        return this;
    }

    /**
     * Decodes up to {@code threads} files at once, each on a thread of its own, and hands their batches over in file
     * order: the rows and batches are the same as with one thread. Memory grows with it: each thread holds the
     * row group it decodes (its share of the read budget), and at most {@code 2 * threads} files are decoded ahead of
     * the caller, each with up to {@link Pipeline#AHEAD} decoded batches. 1 decodes on the caller's thread. Call before
     * the first batch.
     */
    public TableReader threads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        cancelEarly(); // decoded as asked, from the bytes already fetched
        this.threads = threads;
        return this;
    }

    private volatile IntConsumer fileTaken = i -> { };

    /**
     * Calls {@code hook} with a file's index when a thread takes the file to decode it, before it asks for any of its
     * bytes: tests hold a worker there to order the workers' files as a loaded machine may. Call before the first batch.
     */
    public TableReader fileTaken(IntConsumer hook) {
        cancelEarly(); // every file taken again, through the hook, from the bytes already fetched
        this.fileTaken = hook;
        return this;
    }

    /** Every file this reader reads, in order. */
    public List<TableFiles.DataFile> files() {
        return files;
    }

    /**
     * The file the last batch came from (a batch never spans files), whether files are decoded on this thread or on
     * several ({@link #threads}); null before the first batch.
     */
    public TableFiles.DataFile currentFile() {
        if (pipeline != null) {
            return pipeline.current();
        }
        return current == null ? null : current.file;
    }

    /** Rows read so far. */
    public long rowsRead() {
        return rowsRead;
    }

    /** The allocator of the batches. */
    public BufferAllocator allocator() {
        return allocator;
    }
    // ---- schema ----

    /** The catalog's data columns, by its names in its order, with its types (null where wrangler cannot read the type). */
    private Map<String, Field> catalogColumns;

    /**
     * Takes the data columns' names and order from a catalog: a file's column is matched to the catalog's case-insensitively
     * and named as the catalog names it; a column only the catalog declares reads as nulls of the catalog's type (left out
     * when wrangler cannot read that type); a column the files hold and the catalog does not follows the catalog's,
     * never hidden. Types stay the files' (Glue's name them coarser: {@code timestamp} for every unit). Call before the
     * first batch.
     *
     * @param columns the catalog's data columns in its order, each with its Arrow type, or null for a type wrangler does not read
     */
    public TableReader catalogColumns(Map<String, Field> columns) {
        this.catalogColumns = new LinkedHashMap<>(columns);
        return this;
    }

    /** The files' schemas read from their footers before this reader was made, or null. */
    private List<MessageType> knownSchemas;
    /** Called with each footer this reader fetches for its schema, or null. */
    private java.util.function.BiConsumer<TableFiles.DataFile, ParquetMetadata> footerSeen;

    /**
     * Calls {@code seen} with the footer of each file as this reader fetches it for the read's schema (on the threads that
     * fetch them, several at once), so that a caller that needs more of a footer than the schema does not fetch it again.
     * Call before the schema is read.
     */
    public TableReader footerSeen(java.util.function.BiConsumer<TableFiles.DataFile, ParquetMetadata> seen) {
        this.footerSeen = seen;
        return this;
    }

    /**
     * Reads only the columns {@code columns} (in this order) instead of those given when this reader was made: for a
     * caller that chose them from the read's {@link #schema()}. The footers fetched for that schema are kept, not fetched
     * again. Call before the first batch.
     */
    public TableReader select(List<String> columns) {
        if (fileIndex >= 0 || started) {
            throw new IllegalStateException("select(...) after the first batch of " + table);
        }
        cancelEarly();
        this.selected = columns == null ? null : List.copyOf(columns);
        this.schema = null;
        return this;
    }

    /** The read's data columns as a reader of the whole table resolved them (an engine's task reads some of its files), or null. */
    private List<Field> fixedData;

    /**
     * Takes the read's data columns as given (resolved before, over every file of the table, by a reader on another
     * process) instead of from the footers of this reader's files, which may lack some: a file without a column gives
     * nulls for it, and each file's own footer is still checked against these columns when it is decoded (a type that
     * changed since fails the read). Call before the first batch.
     */
    public TableReader dataColumns(List<Field> columns) {
        this.fixedData = List.copyOf(columns);
        return this;
    }

    /**
     * Takes the files' schemas from their footers read by the caller ({@link FileFooters}), one per file in file order:
     * the read's schema is made from them and no footer is fetched for it (each file's own footer is still checked
     * against the read's schema when the file is decoded). Call before the first batch.
     */
    public TableReader knownSchemas(List<MessageType> schemas) {
        if (schemas.size() != files.size()) {
            throw new IllegalArgumentException(schemas.size() + " schemas for " + files.size() + " files");
        }
        this.knownSchemas = List.copyOf(schemas);
        return this;
    }

    /** The files' footers parsed by the caller, in file order, or null: each file's footer is then read when it is decoded. */
    private List<ParquetMetadata> knownFooters;

    /**
     * Takes the files' footers read and parsed by the caller (one per file, in file order) for their schemas
     * ({@link #knownSchemas}) and for their decoding: no footer is fetched or parsed again. For a caller that read the footers
     * of these very objects just before (a merge's scan of the files it planned by them). Call before the first batch.
     */
    public TableReader knownFooters(List<ParquetMetadata> footers) {
        knownSchemas(footers.stream().map(m -> m.getFileMetaData().getSchema()).toList());
        this.knownFooters = List.copyOf(footers);
        return this;
    }

    /** The rows to read, or null for all; bound to the read's columns with the schema. */
    private RowFilter rowFilter;
    private BoundFilter bound;
    /** The columns the filter reads that the read does not select: decoded (or filled) beside the batch, then dropped. */
    private List<Field> filterOnly = List.of();

    /**
     * Reads only the rows that pass {@code filter} (null: every row): it is checked against the read's columns with the
     * schema, before any row is decoded ({@link BoundFilter#bind}); row groups that statistics rule out are skipped
     * unread, and the filter is applied to every row decoded. Call before the first batch.
     */
    public TableReader rowFilter(RowFilter filter) {
        cancelEarly();
        this.rowFilter = filter;
        this.schema = null; // bound with the schema: again, if it was read before (the footers are not fetched again)
        return this;
    }

    /** Whether files' footers are fetched alone for the schema even without a row filter ({@link #footersAlone}). */
    private boolean footersAlone;

    /**
     * Fetches each file's footer alone for the read's schema, and then only the ranges its decoding asks for (a bloom
     * filter, the column chunks of the row groups not skipped), never a file whole or ahead: a file whose row groups the
     * {@link #rowFilter} rules out costs the GET of its footer (and of its bloom filters) only. For a read that expects to
     * skip most files (a delete's scan). Call before the schema.
     */
    public TableReader footersAlone() {
        this.footersAlone = true;
        return this;
    }

    /** The bound row filter, or null: known once the schema is. */
    BoundFilter boundFilter() {
        return bound;
    }

    @Override
    protected Schema readSchema() throws IOException {
        if (schema != null) {
            return schema;
        }
        if (fixedData == null && knownSchemas == null) {
            knownSchemas = fileSchemas(); // kept: a select(...) after this does not fetch them again
        }
        List<Field> data = fixedData != null ? fixedData : new TableSchema(table, files, catalogColumns).union(knownSchemas);
        List<Field> all = new ArrayList<>(data);
        all.addAll(partitions.fields());
        List<Field> out = TableSchema.select(table, all, selected);
        List<Field> dataOut = new ArrayList<>();
        for (Field f : out) {
            if (data.contains(f)) {
                dataOut.add(f);
            }
        }
        this.dataFields = dataOut;
        if (rowFilter != null) {
            bound = BoundFilter.bind(table, rowFilter, all);
            List<Field> extra = new ArrayList<>();
            for (String c : bound.missingFrom(out.stream().map(Field::getName).collect(java.util.stream.Collectors.toSet()))) {
                extra.add(bound.columns().get(c));
            }
            this.filterOnly = List.copyOf(extra);
        }
        this.schema = new Schema(out);
        if (pipeline != null) {
            pipeline.schema(schema);
        }
        return schema;
    }

    /** Each file's row groups' verdicts under the row filter, judged before any file is decoded; null without a filter. */
    private Verdict[][] judged;
    /** Footers parsed for the schema kept for {@link #judge} (within a quarter of the budget), by file; null entries: refetched. */
    private ParquetMetadata[] judgeFooters;
    private long judgeFooterBytes;
    /** The indexes of the files to decode: those the filter does not rule out whole. */
    private int[] order;

    /**
     * Judges every file's row groups by their footers, bloom filters and partition values ({@link FilePruning}), several
     * files at once, before the first batch (a reader asked only for its schema judges nothing): the files ruled out
     * whole are then neither opened nor fetched.
     */
    private void judge() throws IOException {
        Prefetch p = prefetch();
        ParquetMetadata[] kept = judgeFooters;
        judgeFooters = null;
        Verdict[][] known = judgedEarly != null ? judgedEarly.kept(bound) : new Verdict[files.size()][];
        judgedEarly = null;
        judged = FilePruning.judge(table, files, new FilePruning.Filter(bound, partitions, allocator), new FilePruning.Footers() {
            @Override
            public ParquetMetadata footer(int index) throws IOException {
                if (kept != null && kept[index] != null) {
                    return kept[index];
                }
                try (ParquetFileReader r = ParquetOptions.open(p.footer(index, s3, options))) {
                    return r.getFooter();
                }
            }

            @Override
            public S3InputFile input(int index) {
                TableFiles.DataFile f = files.get(index);
                return new S3InputFile(s3, f, options).exact();
            }
        }, bytesRead, known);
        List<Integer> left = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            if (!FilePruning.none(judged[i])) {
                left.add(i);
            }
        }
        order = left.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The index of the {@code position}th file to decode. */
    private int fileAt(int position) {
        return order == null ? position : order[position];
    }

    /** How many files are decoded. */
    private int filesToDecode() {
        return order == null ? files.size() : order.length;
    }

    /**
     * Keeps a footer parsed for the schema for {@link #judge}, while the kept ones weigh at most a quarter of the budget:
     * under a row filter, or when the footers are fetched alone (a delete's scan asks for the schema first and sets its
     * filter after, and must not fetch a footer twice).
     */
    private synchronized void keepForJudging(int index, ParquetMetadata footer, long bytes) {
        if (rowFilter == null && !footersAlone) {
            return;
        }
        if (judgeFooters == null) {
            judgeFooters = new ParquetMetadata[files.size()];
        }
        long weight = Prefetch.PARSED_WEIGHT * bytes;
        if (judgeFooterBytes + weight <= readBudget / 4) {
            judgeFooters[index] = footer;
            judgeFooterBytes += weight;
        }
    }

    /** Whether the first batch was asked for. */
    private boolean started;
    /** Whether {@link #pipeline} was started before the read's schema was known ({@link Early}). */
    private boolean decodingEarly;

    /**
     * Whether files are decoded as their bytes arrive, before every footer is in and the read's schema known
     * ({@link Early}): a read of every row (no row filter) of several files on several threads, its schema made from the
     * footers it fetches, each file fetched whole when small.
     */
    private boolean earlyDecoding() {
        return threads > 1 && files.size() > 1 && rowFilter == null && !footersAlone && fixedData == null && knownSchemas == null
                && prefetch().wholeFiles();
    }

    /**
     * Starts the workers that decode files as their footers arrive ({@link Early}); no file is then fetched ahead by
     * {@link Prefetch}: the footer threads fetch them all.
     */
    private Early startEarly(Prefetch p) {
        p.noAhead();
        Early early = new Early();
        pipeline = new Pipeline(table, files, null, allocator, threads, early).aheadBytes(decodeAheadBytes());
        this.decodingEarly = true;
        return early;
    }

    /**
     * Whether this read's files are decoded as their bytes arrive, before every footer is in and the read's schema known
     * (a read of every row on several threads whose schema comes from the footers it fetches): its workers started with
     * its schema. False before the schema is read.
     */
    public boolean decodesAsFilesArrive() {
        return pipeline != null && decodingEarly;
    }

    /**
     * The bytes of batches a read that decodes its files as they arrive ({@link #decodesAsFilesArrive}) may hold decoded
     * ahead of the caller before its schema is known, beyond the {@code 2 * threads} files it may always hold: an eighth
     * of the read's budget. Once the schema is known, no file is taken while {@code 2 * threads} are not handed over.
     */
    public long decodeAheadBytes() {
        return readBudget / 8;
    }

    /** Stops the files decoded before the schema was known, for a read whose columns or rows changed since. */
    private void cancelEarly() {
        if (pipeline != null && !started) {
            pipeline.close();
            pipeline = null;
            decodingEarly = false;
            prefetch().aheadAgain();
        }
    }

    /**
     * Files decoded as their bytes arrive, before the read's schema is known: each into vectors of its own selected
     * columns, typed from its own footer, which the pipeline maps by name into the read's schema when it hands the
     * batches over ({@link Pipeline#next}); a column the file lacks is nulls there. The read's schema is the union of
     * the footers, so it holds every file's columns with their types: the mapping moves buffers, never copies rows.
     * Files decoded ahead of the caller before the schema is known are bounded by {@link #decodeAheadBytes}.
     */
    private final class Early implements Pipeline.Decoders {
        private final java.util.concurrent.ConcurrentHashMap<Integer, java.util.concurrent.CompletableFuture<ParquetMetadata>> footers =
                new java.util.concurrent.ConcurrentHashMap<>();

        private java.util.concurrent.CompletableFuture<ParquetMetadata> of(int index) {
            return footers.computeIfAbsent(index, k -> new java.util.concurrent.CompletableFuture<>());
        }

        void arrived(int index, ParquetMetadata footer) {
            of(index).complete(footer);
        }

        void failed(int index, Throwable e) {
            of(index).completeExceptionally(e);
        }

        /** Fails every footer not in yet: the read's schema failed, and no worker waits for a footer never fetched. */
        void abandon() {
            for (int i = 0; i < files.size(); i++) {
                of(i).completeExceptionally(new InterruptedIOException("the footers of " + table + " were not all read"));
            }
        }

        private ParquetMetadata footer(int index) throws IOException {
            try {
                return of(index).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while reading " + table);
            } catch (ExecutionException e) {
                throw ReadErrors.failed(table, files.get(index), (Exception) e.getCause());
            }
        }

        @Override
        public Schema schema(int index, Schema read) throws IOException {
            MessageType own = footer(index).getFileMetaData().getSchema();
            List<Field> out = new ArrayList<>();
            java.util.Set<String> taken = new java.util.HashSet<>();
            for (Field p : partitions.fields()) {
                taken.add(TableSchema.key(p.getName()));
            }
            for (org.apache.parquet.schema.Type t : own.getFields()) {
                if (wanted(t.getName()) && taken.add(TableSchema.key(t.getName()))) {
                    out.add(TableSchema.field(table, t, files.get(index)));
                }
            }
            for (Field p : partitions.fields()) {
                if (wanted(p.getName())) {
                    out.add(p);
                }
            }
            return new Schema(out);
        }

        private boolean wanted(String name) {
            if (selected == null) {
                return true;
            }
            for (String s : selected) {
                if (s.equalsIgnoreCase(name)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public FileDecoder open(int index, VectorSchemaRoot out) throws IOException {
            fileTaken.accept(index);
            ParquetMetadata footer = footer(index);
            footers.remove(index);
            List<Field> data = new ArrayList<>();
            for (Field f : out.getSchema().getFields()) {
                if (!partitions.fields().contains(f)) {
                    data.add(f);
                }
            }
            long share = Math.max(1L << 20, readBudget / Math.min(threads, files.size()));
            FileDecoder.Setup setup = new FileDecoder.Setup(table, data, batchRows, minWindow, directPagesOn, partitions, directPages,
                    converterChunks, null, List.of(), allocator, layouts);
            return new FileDecoder(setup, files.get(index), prefetch().inputKept(index, s3, options), footer, out, share);
        }

        @Override
        public void done(int index) {
            prefetch().forget(index);
        }
    }

    private boolean judgeAsFootersArrive;

    /**
     * Judges each file under the row filter as its footer arrives ({@link JudgeEarly}), for a reader whose batches will be
     * read: its bloom filters are then fetched with its schema (a reader asked only for its schema must not fetch them).
     * Call before the schema.
     */
    TableReader judgeAsFootersArrive() {
        this.judgeAsFootersArrive = true;
        return this;
    }

    /** The verdicts of files judged as their footers arrived, until the first batch; null when none are. */
    private JudgeEarly judgedEarly;

    /**
     * Files judged under the row filter as their footers arrive, on the threads that fetch them, instead of after every
     * footer is in: the filter is bound to the file's own columns (and the partition columns) for it; a file that lacks
     * a column the filter reads is judged after the schema, as before. A verdict is kept when the filter bound to the
     * read's schema reads the same columns with the same types ({@link #kept}); the read's schema is the union of the
     * footers, so it does, but for a column whose type the catalog gives.
     */
    private final class JudgeEarly {
        private final Verdict[][] verdicts = new Verdict[files.size()][];
        private final List<Map<String, Field>> used = new ArrayList<>(java.util.Collections.nCopies(files.size(), null));

        /** Judges file {@code index} by its footer, just fetched; false when it is left for after the schema. */
        boolean judge(int index, ParquetMetadata footer) throws IOException {
            TableFiles.DataFile f = files.get(index);
            List<Field> columns = new ArrayList<>();
            for (org.apache.parquet.schema.Type t : footer.getFileMetaData().getSchema().getFields()) {
                columns.add(TableSchema.field(table, t, f));
            }
            columns.addAll(partitions.fields());
            BoundFilter b;
            try {
                b = BoundFilter.bind(table, rowFilter, columns);
            } catch (RuntimeException e) {
                return false; // a column the file lacks, or an error the read's schema reports: judged after the schema
            }
            S3InputFile in = new S3InputFile(s3, f, options).exact();
            Verdict[] v = FilePruning.verdicts(new FilePruning.Filter(b, partitions, allocator), f, footer, in, bytesRead);
            synchronized (this) {
                verdicts[index] = v;
                used.set(index, b.columns());
            }
            return true;
        }

        /** The verdicts judged with the same columns and types as {@code read} binds; null for the others. */
        synchronized Verdict[][] kept(BoundFilter read) {
            Verdict[][] out = new Verdict[files.size()][];
            for (int i = 0; i < out.length; i++) {
                if (verdicts[i] != null && sameColumns(used.get(i), read.columns())) {
                    out[i] = verdicts[i];
                }
            }
            return out;
        }

        private boolean sameColumns(Map<String, Field> early, Map<String, Field> read) {
            if (early.size() != read.size()) {
                return false;
            }
            Map<String, Field> byKey = new java.util.HashMap<>();
            early.forEach((k, v) -> byKey.put(TableSchema.key(k), v));
            for (Map.Entry<String, Field> e : read.entrySet()) {
                Field a = byKey.get(TableSchema.key(e.getKey()));
                if (a == null || TableSchema.merge(a, e.getValue()) == null) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Footers fetched at once for the read's schema. */
    private static final int FOOTER_THREADS = 8;

    /**
     * The schema of every file, in file order. The files the read fetches ahead anyway have their first GET started here
     * and kept for their decoding; the others have only their footer fetched and kept, so no footer is fetched twice.
     * Up to {@link #FOOTER_THREADS} at once.
     */
    private List<MessageType> fileSchemas() throws IOException {
        int n = files.size();
        MessageType[] out = new MessageType[n];
        if (n == 0) {
            return List.of();
        }
        Prefetch p = prefetch();
        Early early = earlyDecoding() ? startEarly(p) : null;
        JudgeEarly judgeEarly = judgeAsFootersArrive && rowFilter != null && !footersAlone ? new JudgeEarly() : null;
        this.judgedEarly = judgeEarly;
        int ahead = early != null ? 0 : Math.min(n, p.ahead());
        IntFunction<MessageType> one = i -> schemaOf(i, i < ahead && p.wholeFiles(), early, judgeEarly);
        if (n == 1) {
            out[0] = one.apply(0);
            return List.of(out);
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(n, FOOTER_THREADS), r -> {
            Thread t = new Thread(r, "wrangler-footers");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<MessageType>> futures = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                final int at = i;
                futures.add(pool.submit(() -> one.apply(at)));
            }
            for (int i = 0; i < n; i++) {
                try {
                    out[i] = futures.get(i).get();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : ReadErrors.failed(table, files.get(i), (Exception) e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while reading the footers of " + table);
                }
            }
        } finally {
            pool.shutdownNow();
            if (early != null) {
                early.abandon(); // a no-op when every footer was read
            }
        }
        return List.of(out);
    }

    /**
     * The schema of file {@code index}, from its footer fetched ({@code peek}: with its first GET kept for its decoding)
     * and parsed here, handed to whoever else waits for it: the workers that decode files as they arrive, the judging
     * of files as their footers arrive, or else kept for the file's decoding and for judging.
     */
    private MessageType schemaOf(int index, boolean peek, Early early, JudgeEarly judgeEarly) {
        TableFiles.DataFile f = files.get(index);
        Prefetch p = prefetch();
        try {
            S3InputFile in = peek ? p.peek(index, s3, options) : p.footer(index, s3, options);
            try (ParquetFileReader r = ParquetOptions.open(in)) {
                ParquetMetadata footer = r.getFooter();
                if (footerSeen != null) {
                    footerSeen.accept(f, footer);
                }
                if (early != null) {
                    early.arrived(index, footer);
                } else {
                    p.keepParsed(index, footer, in.knownLength());
                }
                if (judgeEarly == null || !judgeEarly.judge(index, footer)) {
                    keepForJudging(index, footer, in.knownLength());
                }
                return footer.getFileMetaData().getSchema();
            }
        } catch (IOException | RuntimeException e) {
            if (early != null) {
                early.failed(index, e);
            }
            throw ReadErrors.failed(table, f, e);
        }
    }

    /** The Arrow schema without reading a batch. */
    public Schema schema() {
        try {
            return readSchema();
        } catch (IOException e) {
            throw ReadErrors.failed(table, files.get(0), e);
        }
    }

    // ---- batches ----

    @Override
    public boolean loadNextBatch() throws IOException {
        started = true;
        prepareLoadNextBatch();
        VectorSchemaRoot out = getVectorSchemaRoot();
        judgeOnce();
        boolean more = pipeline != null || threads > 1 && filesToDecode() > 1 ? pipeline().next(out) : nextOnThisThread(out);
        if (!more) {
            out.setRowCount(0);
            return false;
        }
        rowsRead += out.getRowCount();
        return true;
    }

    /** The files judged under the row filter ({@link #judge}), once, at the first batch: not for a look at the schema. */
    private void judgeOnce() throws IOException {
        if (bound != null && judged == null) {
            judge();
        }
    }

    private boolean nextOnThisThread(VectorSchemaRoot out) throws IOException {
        while (true) {
            if (current != null) {
                if (current.next()) {
                    return true;
                }
                closeCurrent();
            }
            if (++fileIndex >= filesToDecode()) {
                return false;
            }
            fileTaken.accept(fileAt(fileIndex));
            current = decoder(fileAt(fileIndex), out, readBudget);
        }
    }

    /** The decoder of the file at {@code index} into {@code out}, its prefetched bytes and parsed footer taken over. */
    private FileDecoder decoder(int index, VectorSchemaRoot out, long budget) throws IOException {
        FileDecoder.Setup setup = new FileDecoder.Setup(table, dataFields, batchRows, minWindow, directPagesOn, partitions, directPages,
                converterChunks, bound, filterOnly, allocator, layouts);
        ParquetMetadata footer = knownFooters != null ? knownFooters.get(index) : prefetch().takeParsed(index);
        return new FileDecoder(setup, files.get(index), prefetch().input(index, s3, options), footer, out, budget)
                .judged(judged == null ? null : judged[index]);
    }

    private void closeCurrent() {
        if (current != null) {
            bytesRead.addAndGet(current.bytesRead());
            current.close();
            current = null;
        }
    }

    private Pipeline pipeline() {
        if (pipeline == null) {
            long share = Math.max(1L << 20, readBudget / Math.min(threads, filesToDecode()));
            List<TableFiles.DataFile> decoded = new ArrayList<>(filesToDecode());
            for (int i = 0; i < filesToDecode(); i++) {
                decoded.add(files.get(fileAt(i)));
            }
            pipeline = new Pipeline(table, decoded, schema, allocator, threads, (i, work) -> {
                fileTaken.accept(fileAt(i));
                return decoder(fileAt(i), work, share);
            });
        }
        return pipeline;
    }

    private synchronized Prefetch prefetch() {
        if (prefetch == null) {
            // With a row filter most files may be skipped after their footer: fetch footers alone, not whole files.
            prefetch = new Prefetch(files, readBudget, rowFilter == null && !footersAlone);
            if (footersAlone) {
                prefetch.ranged();
            }
        }
        return prefetch;
    }

    // ---- ArrowReader ----

    @Override
    public long bytesRead() {
        FileDecoder c = current;
        return bytesRead.get() + (pipeline == null ? 0 : pipeline.bytesRead()) + (c == null ? 0 : c.bytesRead());
    }

    @Override
    protected void closeReadSource() throws IOException {
        if (pipeline != null) {
            pipeline.close();
        }
        closeCurrent();
        if (prefetch != null) {
            prefetch.close();
        }
        if (owned != null) {
            owned.close();
        }
    }
}
