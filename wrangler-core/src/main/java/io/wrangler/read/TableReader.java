package io.wrangler.read;

import io.wrangler.ReadException;
import io.wrangler.catalog.TableLayout;
import io.wrangler.encoding.Codecs;
import io.wrangler.hive.HiveTypes;
import io.wrangler.hive.HivePaths;
import io.wrangler.storage.Removed;
import io.wrangler.storage.RequestOptions;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.io.InterruptedIOException;
import java.lang.reflect.Constructor;
import java.math.BigDecimal;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A TableReader streams the files of a table as Arrow batches: file by file, row group by row group, at most
 * {@code batchRows} rows a batch, with the partition columns restored from each file's folder. Flat columns are decoded
 * column by column: page by page straight into the Arrow buffers where the chunk's encodings and type allow
 * ({@link DirectColumn}), else with parquet-java's column readers and converters, decided per column chunk; lists, maps
 * and structs are assembled record by record. Memory is bounded whatever the size of the files and their row groups:
 * {@link #READ_BUDGET} bytes of fetched column chunks, plus per column the page being decoded and its dictionary, plus
 * one batch.
 *
 * <p>The schema is the selected data columns, then the partition columns. The data columns are the union by name of
 * the files' columns, matched case-insensitively as Hive, Glue and Athena match them, in order of first appearance in
 * file order and spelled as the first file spells them (or the catalog's, {@link #catalogColumns}); a file that lacks a
 * column gives nulls for it. Every file's footer is fetched before the first batch (several at once). A column whose
 * type differs between two files, or two columns of one file that differ only by case, are refused.
 */
public final class TableReader extends ArrowReader {
    /** parquet-java 1.18's ParquetReadOptions.Builder creates Hadoop's codec factory in its constructor. */
    private static final Constructor<?> OPTIONS = optionsConstructor();
    /**
     * The most bytes of one row group fetched at once: a sixteenth of the heap, 4 to 64 MiB. A row group of more is
     * streamed column by column ({@link RowGroupPages}).
     */
    static final long READ_BUDGET = Math.max(4L << 20, Math.min(64L << 20, Runtime.getRuntime().maxMemory() / 16));

    private final S3Client s3;
    private final RequestOptions options;
    private final String table;
    private final List<TableFiles.DataFile> files;
    private final List<String> partitionColumns;
    private final List<Field> partitionFields;
    private final List<String> selected;
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
     * @param partitionTypes Arrow types of the partition columns by name; a column missing here is inferred from its
     *     values ({@link #inferType})
     * @param selected the columns to read in this order, or null for all
     * @param owned an allocator this reader closes when it is closed, or null
     */
    public TableReader(BufferAllocator allocator, BufferAllocator owned, S3Client s3, RequestOptions options, String table,
                       TableFiles.Listing listing, Map<String, Field> partitionTypes, List<String> selected, int batchRows) {
        super(allocator);
        this.s3 = s3;
        this.options = options;
        this.table = table;
        this.files = listing.files();
        this.partitionColumns = listing.partitionColumns();
        this.batchRows = batchRows;
        this.owned = owned;
        List<Field> parts = new ArrayList<>();
        for (int i = 0; i < partitionColumns.size(); i++) {
            String c = partitionColumns.get(i);
            Field f = partitionTypes.get(c);
            if (f == null) {
                final int at = i;
                f = inferType(c, files.stream().map(d -> d.values().get(at)).distinct().toList());
            }
            parts.add(new Field(c, FieldType.nullable(f.getType()), null));
        }
        this.partitionFields = parts;
        this.selected = selected;
    }

    private long readBudget = READ_BUDGET;
    private boolean directPagesOn = true;
    /** Per column, the kinds of pages decoded straight into its vectors ({@link DirectColumn#V1} to {@link DirectColumn#MIXED}). */
    private final ConcurrentHashMap<String, Integer> directPages = new ConcurrentHashMap<>();
    /** Per flat column, how many of its chunks went through the column readers and converters. */
    private final ConcurrentHashMap<String, Integer> converterChunks = new ConcurrentHashMap<>();

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
        this.threads = threads;
        return this;
    }

    private volatile IntConsumer fileTaken = i -> { };

    /**
     * Calls {@code hook} with a file's index when a thread takes the file to decode it, before it asks for any of its
     * bytes: tests hold a worker there to order the workers' files as a loaded machine may. Call before the first batch.
     */
    public TableReader fileTaken(IntConsumer hook) {
        this.fileTaken = hook;
        return this;
    }

    /** Every file this reader reads, in order. */
    public List<TableFiles.DataFile> files() {
        return files;
    }

    /**
     * The file the last batch came from (a batch never spans files), or null before the first batch and when files are
     * decoded on several threads ({@link #threads}).
     */
    public TableFiles.DataFile currentFile() {
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
     * The data columns a catalog declares (its columns less its partition keys), in its order, each typed as the catalog
     * types it, or null where wrangler does not read the type ({@code varchar(10)}).
     */
    public static Map<String, Field> dataColumns(TableLayout layout) {
        Set<String> keys = new HashSet<>();
        layout.partitionColumns().forEach(c -> keys.add(c.toLowerCase(Locale.ROOT)));
        Map<String, Field> out = new LinkedHashMap<>();
        layout.types().forEach((name, hive) -> {
            if (!keys.contains(name.toLowerCase(Locale.ROOT))) {
                Field f;
                try {
                    f = hive == null ? null : HiveTypes.parse(name, hive);
                } catch (IllegalArgumentException unknown) {
                    f = null;
                }
                out.put(name, f);
            }
        });
        return out;
    }

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

    @Override
    protected Schema readSchema() throws IOException {
        if (schema != null) {
            return schema;
        }
        List<Field> data = union(knownSchemas != null ? knownSchemas : fileSchemas());
        List<Field> all = new ArrayList<>(data);
        all.addAll(partitionFields);
        List<Field> out;
        if (selected == null) {
            out = all;
        } else {
            out = new ArrayList<>();
            for (String name : selected) {
                Field f = all.stream().filter(x -> x.getName().equals(name)).findFirst()
                        .or(() -> all.stream().filter(x -> x.getName().equalsIgnoreCase(name)).findFirst()).orElse(null);
                if (f == null) {
                    throw new ReadException(table, "Cannot read " + table + ": there is no column '" + name + "'; the table's columns "
                            + "are " + all.stream().map(Field::getName).toList() + ". Select columns of the table.", null);
                }
                out.add(f);
            }
        }
        List<Field> dataOut = new ArrayList<>();
        for (Field f : out) {
            if (data.contains(f)) {
                dataOut.add(f);
            }
        }
        this.dataFields = dataOut;
        this.schema = new Schema(out);
        return schema;
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
        int ahead = Math.min(n, p.ahead());
        IntFunction<MessageType> one = i -> {
            TableFiles.DataFile f = files.get(i);
            try {
                S3InputFile in = i < ahead ? p.peek(i, s3, options) : p.footer(i, s3, options);
                try (ParquetFileReader r = open(f, in)) {
                    ParquetMetadata footer = r.getFooter();
                    p.keepParsed(i, footer, in.knownLength());
                    return footer.getFileMetaData().getSchema();
                }
            } catch (IOException | RuntimeException e) {
                throw failed(f, e);
            }
        };
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
                    throw e.getCause() instanceof RuntimeException r ? r : failed(files.get(i), (Exception) e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while reading the footers of " + table);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return List.of(out);
    }

    /**
     * The read's data columns: the union by name of the files' columns, matched case-insensitively (as Hive, Glue and
     * Athena match them), in order of first appearance and spelled as the first file that has them spells them; or,
     * with {@link #catalogColumns}, the catalog's columns first. A column of two types, or two columns of one file
     * that differ only by case, are refused.
     */
    private List<Field> union(List<MessageType> schemas) {
        List<Field> data = new ArrayList<>();
        Map<String, Integer> at = new HashMap<>();
        Map<String, TableFiles.DataFile> typedBy = new HashMap<>();
        Map<String, Field> catalogTypes = new HashMap<>();
        if (catalogColumns != null) {
            for (Map.Entry<String, Field> c : catalogColumns.entrySet()) {
                String key = key(c.getKey());
                if (at.putIfAbsent(key, data.size()) == null) {
                    data.add(null); // typed by the first file that has it, else by the catalog
                    catalogTypes.put(key, c.getValue() == null ? null : rename(c.getValue(), c.getKey()));
                    catalogNames.put(key, c.getKey());
                }
            }
        }
        for (int i = 0; i < schemas.size(); i++) {
            TableFiles.DataFile file = files.get(i);
            Map<String, String> inFile = new HashMap<>();
            for (Type t : schemas.get(i).getFields()) {
                String key = key(t.getName());
                String clash = inFile.putIfAbsent(key, t.getName());
                if (clash != null) {
                    throw new ReadException(table, "Cannot read " + table + ": " + uri(file) + " has the columns '" + clash + "' and '"
                            + t.getName() + "', which differ only by case; Hive, Glue and Athena match column names "
                            + "case-insensitively, so they would be one column. Rewrite the file with distinct names.", null);
                }
                Field has = field(t, file);
                Integer where = at.get(key);
                if (where == null) {
                    at.put(key, data.size());
                    data.add(has);
                    typedBy.put(key, file);
                    continue;
                }
                Field want = data.get(where);
                if (want == null) {
                    data.set(where, rename(has, catalogNames.get(key)));
                    typedBy.put(key, file);
                } else if (!rename(has, want.getName()).equals(want)) {
                    throw new ReadException(table, "Cannot read " + table + ": the column '" + want.getName() + "' is " + describe(want)
                            + " in " + uri(typedBy.get(key)) + " but " + describe(has) + " in " + uri(file) + ". Rewrite one of them "
                            + "with the other's type.", null);
                }
            }
        }
        List<Field> out = new ArrayList<>();
        for (Map.Entry<String, Integer> e : at.entrySet().stream().sorted(Map.Entry.comparingByValue()).toList()) {
            Field f = data.get(e.getValue());
            if (f == null) {
                f = catalogTypes.get(e.getKey()); // only the catalog declares it: nulls
            }
            if (f != null) {
                out.add(f);
            }
        }
        return out;
    }

    /** The catalog's spelling of its columns, by {@link #key}. */
    private final Map<String, String> catalogNames = new HashMap<>();

    /** A column's name as columns are matched: case-insensitively, as Hive, Glue and Athena do. */
    static String key(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    private static Field rename(Field f, String name) {
        return f.getName().equals(name) ? f : new Field(name, f.getFieldType(), f.getChildren());
    }

    private Field field(Type t, TableFiles.DataFile file) {
        try {
            return ParquetArrow.field(t);
        } catch (ParquetArrow.Unsupported e) {
            throw new ReadException(table, "Cannot read " + table + ": in " + uri(file) + ", " + e.getMessage() + ".", e);
        }
    }

    /** The Arrow schema without reading a batch. */
    public Schema schema() {
        try {
            return readSchema();
        } catch (IOException e) {
            throw failed(files.get(0), e);
        }
    }

    // ---- batches ----

    @Override
    public boolean loadNextBatch() throws IOException {
        prepareLoadNextBatch();
        VectorSchemaRoot out = getVectorSchemaRoot();
        boolean more = threads > 1 && files.size() > 1 ? pipeline().next(out) : nextOnThisThread(out);
        if (!more) {
            out.setRowCount(0);
            return false;
        }
        rowsRead += out.getRowCount();
        return true;
    }

    private boolean nextOnThisThread(VectorSchemaRoot out) throws IOException {
        while (true) {
            if (current != null) {
                if (current.next()) {
                    return true;
                }
                closeCurrent();
            }
            if (++fileIndex >= files.size()) {
                return false;
            }
            fileTaken.accept(fileIndex);
            current = new FileDecoder(fileIndex, out, readBudget);
        }
    }

    private void closeCurrent() {
        if (current != null) {
            bytesRead.addAndGet(current.input.bytesRead());
            current.close();
            current = null;
        }
    }

    private Pipeline pipeline() {
        if (pipeline == null) {
            pipeline = new Pipeline();
        }
        return pipeline;
    }

    private synchronized Prefetch prefetch() {
        if (prefetch == null) {
            prefetch = new Prefetch(files, readBudget);
        }
        return prefetch;
    }

    /**
     * A FileDecoder reads one file's row groups into batches of at most {@code batchRows} rows in {@code out}, whose
     * vectors its converters write: flat columns column by column, the others record by record.
     */
    private final class FileDecoder {
        private final TableFiles.DataFile file;
        private final VectorSchemaRoot out;
        private final long budget;
        private final S3InputFile input;
        private final ParquetFileReader reader;
        private final MessageType fileSchema;
        private final List<BlockMetaData> groups;
        private int groupIndex;
        private final MessageType requested;
        /** The selected columns that are flat (one leaf, not repeated): decoded column by column. */
        private final MessageType flatSchema;
        private final GroupConverter flatRoot;
        private final ColumnReader[] flat;
        /** Per flat column, its decoder in this row group when it reads pages straight into the vector, else null. */
        private final DirectColumn[] direct;
        private final FieldVector[] flatVectors;
        private final int[] flatMaxDefinition;
        private final int[] flatRow = new int[1];
        /** The selected columns that are lists, maps or structs: assembled record by record. */
        private final MessageType nestedSchema;
        private RecordReader<Object> records;
        private long rowsLeftInGroup;
        private final int[] row = new int[1];
        private final GroupConverter root;

        FileDecoder(int index, VectorSchemaRoot out, long budget) throws IOException {
            this.file = files.get(index);
            this.out = out;
            this.budget = budget;
            ParquetMetadata footer = prefetch().takeParsed(index);
            this.input = prefetch().input(index, s3, options);
            this.reader = footer == null ? open(file, input) : open(file, input, footer);
            try {
                fileSchema = reader.getFooter().getFileMetaData().getSchema();
                groups = reader.getRowGroups();
                List<Type> all = new ArrayList<>();
                List<Type> flatTypes = new ArrayList<>();
                List<Converter> flatConverters = new ArrayList<>();
                List<FieldVector> flatOut = new ArrayList<>();
                List<Type> nestedTypes = new ArrayList<>();
                List<Converter> nestedConverters = new ArrayList<>();
                Map<String, Type> byKey = new HashMap<>();
                for (Type t : fileSchema.getFields()) {
                    byKey.put(key(t.getName()), t);
                }
                for (Field want : dataFields) {
                    Type t = byKey.get(key(want.getName()));
                    if (t == null) {
                        continue; // nulls
                    }
                    Field has = field(t, file);
                    if (!rename(has, want.getName()).equals(want)) {
                        // the schema was made from this file's footer: it changed since
                        throw new ReadException(table, "Cannot read " + table + ": the column '" + want.getName() + "' is " + describe(has)
                                + " in " + uri(file) + ", not " + describe(want) + " as when the read began. Read again.", null);
                    }
                    all.add(t);
                    if (t.isPrimitive() && !t.isRepetition(Type.Repetition.REPEATED)) {
                        flatTypes.add(t);
                        flatOut.add(out.getVector(want.getName()));
                        flatConverters.add(ParquetArrow.converter(t, out.getVector(want.getName()), () -> flatRow[0]));
                    } else {
                        nestedTypes.add(t);
                        nestedConverters.add(ParquetArrow.converter(t, out.getVector(want.getName()), () -> row[0]));
                    }
                }
                requested = new MessageType(fileSchema.getName(), all);
                flatSchema = new MessageType(fileSchema.getName(), flatTypes);
                nestedSchema = new MessageType(fileSchema.getName(), nestedTypes);
                flat = new ColumnReader[flatTypes.size()];
                direct = new DirectColumn[flatTypes.size()];
                flatVectors = flatOut.toArray(new FieldVector[0]);
                flatMaxDefinition = new int[flatTypes.size()];
                for (int i = 0; i < flat.length; i++) {
                    flatMaxDefinition[i] = flatSchema.getColumns().get(i).getMaxDefinitionLevel();
                }
                flatRoot = group(flatConverters.toArray(new Converter[0]), () -> { });
                root = group(nestedConverters.toArray(new Converter[0]), () -> row[0]++);
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        /** Fills {@code out} with the file's next batch; false at the end of the file. */
        boolean next() throws IOException {
            while (rowsLeftInGroup == 0) {
                if (!nextGroup()) {
                    return false;
                }
            }
            out.allocateNew();
            int n = (int) Math.min(batchRows, rowsLeftInGroup);
            row[0] = 0;
            try {
                for (int c = 0; c < flat.length; c++) {
                    if (direct[c] != null) {
                        direct[c].read(n);
                        directPages.merge(flatVectors[c].getName(), direct[c].seen(), (a, b) -> a | b);
                        continue;
                    }
                    ColumnReader r = flat[c];
                    int defined = flatMaxDefinition[c];
                    for (int i = 0; i < n; i++) {
                        if (r.getCurrentDefinitionLevel() == defined) {
                            flatRow[0] = i;
                            r.writeCurrentValueToConverter();
                        }
                        r.consume();
                    }
                }
                if (records != null) {
                    for (int i = 0; i < n; i++) {
                        records.read();
                    }
                }
            } catch (RuntimeException e) {
                throw failed(file, e);
            }
            rowsLeftInGroup -= n;
            fillPartitions(out, n, file);
            out.setRowCount(n);
            return true;
        }

        private boolean nextGroup() throws IOException {
            while (groupIndex < groups.size()) {
                BlockMetaData block = groups.get(groupIndex++);
                if (block.getRowCount() == 0) {
                    continue;
                }
                try {
                    startGroup(block);
                } catch (IOException | RuntimeException e) {
                    throw failed(file, e);
                }
                rowsLeftInGroup = block.getRowCount();
                return true;
            }
            return false;
        }

        /** Readers over the row group's pages, streamed in bounded memory ({@link RowGroupPages}). */
        private void startGroup(BlockMetaData block) throws IOException {
            RowGroupPages pages = new RowGroupPages(input, block, requested.getColumns(), budget, minWindow);
            records = nestedSchema.getFieldCount() == 0 ? null
                    : new ColumnIOFactory().getColumnIO(nestedSchema, fileSchema).getRecordReader(pages, materializer(root), FilterCompat.NOOP);
            if (flatSchema.getFieldCount() > 0) {
                ColumnReadStoreImpl store = new ColumnReadStoreImpl(pages, flatRoot, flatSchema, reader.getFooter().getFileMetaData().getCreatedBy());
                List<ColumnDescriptor> columns = flatSchema.getColumns();
                for (int i = 0; i < flat.length; i++) {
                    // Decided per column chunk: the next row group's chunk of the column may take the other path.
                    ColumnDescriptor column = columns.get(i);
                    ColumnChunkMetaData chunk = RowGroupPages.chunk(block, column);
                    DirectColumn.Kind kind = directPagesOn && chunk != null ? DirectColumn.kind(column, flatVectors[i], chunk) : null;
                    if (kind != null) {
                        flat[i] = null;
                        direct[i] = new DirectColumn(kind, column, pages.recyclingPageReader(column), flatVectors[i]);
                    } else {
                        direct[i] = null;
                        flat[i] = store.getColumnReader(column);
                        converterChunks.merge(flatVectors[i].getName(), 1, Integer::sum);
                    }
                }
            }
        }

        void close() {
            try {
                reader.close();
            } catch (IOException e) {
                // an S3InputFile holds no connection between reads: nothing to release
            }
        }
    }

    /**
     * A Pipeline decodes files on {@code threads} workers, each taking the next file not yet taken, and hands their batches
     * to the caller in file order. Each file has a queue of at most {@link #AHEAD} decoded batches; a worker whose queue is
     * full waits, and at most {@code 2 * threads} files are taken and not yet handed over whole ({@link #inFlight}).
     * Files are taken in order, so the file the caller is on is always one a worker holds or has finished (or, when no
     * file at or after it is taken, every permit is free for the worker that takes it): the caller never waits on a
     * worker that waits on it.
     */
    private final class Pipeline {
        /** Decoded batches a worker may hold ready for the caller, per file. */
        static final int AHEAD = 2;
        private static final Object END = new Object();
        private final ExecutorService workers;
        private final AtomicInteger nextFile = new AtomicInteger();
        private final ConcurrentHashMap<Integer, BlockingQueue<Object>> queues =
                new ConcurrentHashMap<>();
        private volatile boolean closed;
        private int reading;
        /**
         * Files a worker may hold, taken and not yet handed over whole: without this bound, workers that decode faster
         * than the caller takes batches would hold every file of a table of small files in memory.
         */
        private final Semaphore inFlight;

        Pipeline() {
            int n = Math.min(threads, files.size());
            inFlight = new Semaphore(2 * n);
            workers = Executors.newFixedThreadPool(n, r -> {
                Thread t = new Thread(r, "wrangler-read");
                t.setDaemon(true);
                return t;
            });
            long share = Math.max(1L << 20, readBudget / n);
            for (int i = 0; i < n; i++) {
                workers.execute(() -> work(share));
            }
        }

        private BlockingQueue<Object> queue(int file) {
            return queues.computeIfAbsent(file, k -> new ArrayBlockingQueue<>(AHEAD + 1));
        }

        private void work(long budget) {
            while (!closed) {
                try {
                    inFlight.acquire();
                } catch (InterruptedException e) {
                    return; // closed
                }
                int i = nextFile.getAndIncrement();
                if (i >= files.size()) {
                    inFlight.release();
                    return;
                }
                BlockingQueue<Object> q = queue(i);
                try (VectorSchemaRoot work = VectorSchemaRoot.create(schema, allocator)) {
                    fileTaken.accept(i);
                    FileDecoder d = new FileDecoder(i, work, budget);
                    try {
                        while (d.next()) {
                            VectorSchemaRoot batch = detach(work);
                            try {
                                q.put(batch);
                            } catch (InterruptedException e) {
                                batch.close();
                                throw e;
                            }
                        }
                        bytesRead.addAndGet(d.input.bytesRead());
                    } finally {
                        d.close();
                    }
                    q.put(END);
                } catch (InterruptedException e) {
                    return; // closed
                } catch (Throwable e) {
                    q.offer(e); // room for it: the batches before it are in the queue or taken, and END was not put
                    return;
                }
            }
        }

        /** Moves the next batch in file order into {@code out}; false when every file is read. */
        boolean next(VectorSchemaRoot out) throws IOException {
            while (reading < files.size()) {
                BlockingQueue<Object> q = queue(reading);
                Object x;
                try {
                    x = q.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while reading " + table);
                }
                if (x == END) {
                    queues.remove(reading);
                    reading++;
                    inFlight.release();
                    continue;
                }
                if (x instanceof IOException e) {
                    throw failed(files.get(reading), e);
                }
                if (x instanceof RuntimeException e) {
                    throw failed(files.get(reading), e);
                }
                if (x instanceof Error e) {
                    throw e;
                }
                try (VectorSchemaRoot batch = (VectorSchemaRoot) x) {
                    List<FieldVector> from = batch.getFieldVectors();
                    List<FieldVector> to = out.getFieldVectors();
                    for (int c = 0; c < from.size(); c++) {
                        from.get(c).makeTransferPair(to.get(c)).transfer();
                    }
                    out.setRowCount(batch.getRowCount());
                }
                return true;
            }
            return false;
        }

        /** Stops the workers and releases every batch not handed over. */
        void close() {
            closed = true;
            workers.shutdownNow();
            try {
                if (!workers.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the read workers of " + table + " did not stop within 60 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            for (BlockingQueue<Object> q : queues.values()) {
                for (Object x : q) {
                    if (x instanceof VectorSchemaRoot r) {
                        r.close();
                    }
                }
            }
            queues.clear();
        }
    }

    /** The batch in {@code work}, moved into vectors of its own; {@code work} is left empty for the next one. */
    private VectorSchemaRoot detach(VectorSchemaRoot work) {
        List<FieldVector> moved = new ArrayList<>();
        for (FieldVector v : work.getFieldVectors()) {
            TransferPair t = v.getTransferPair(allocator);
            t.transfer();
            moved.add((FieldVector) t.getTo());
        }
        return new VectorSchemaRoot(work.getSchema().getFields(), moved, work.getRowCount());
    }

    private static GroupConverter group(Converter[] children, Runnable end) {
        return new GroupConverter() {
            @Override
            public Converter getConverter(int i) {
                return children[i];
            }

            @Override
            public void start() {
            }

            @Override
            public void end() {
                end.run();
            }
        };
    }

    private static String describe(Field f) {
        return f.getType() + (f.getChildren().isEmpty() ? "" : " " + f.getChildren());
    }

    private static RecordMaterializer<Object> materializer(GroupConverter root) {
        return new RecordMaterializer<>() {
            @Override
            public Object getCurrentRecord() {
                return null;
            }

            @Override
            public GroupConverter getRootConverter() {
                return root;
            }
        };
    }

    private ParquetFileReader open(TableFiles.DataFile f, S3InputFile in) throws IOException {
        try {
            return ParquetFileReader.open(in, readOptions());
        } catch (IOException | RuntimeException e) {
            throw failed(f, e);
        }
    }

    /** A reader of {@code in} over its {@code footer}, parsed before: the footer is not read again. */
    private ParquetFileReader open(TableFiles.DataFile f, S3InputFile in, ParquetMetadata footer) throws IOException {
        try {
            return ParquetFileReader.open(in, footer, readOptions(), in.newStream());
        } catch (IOException | RuntimeException e) {
            throw failed(f, e);
        }
    }

    private ReadException failed(TableFiles.DataFile f, Exception e) {
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

    private static String uri(TableFiles.DataFile f) {
        return "s3://" + f.bucket() + "/" + f.key();
    }

    // ---- partition columns ----

    private void fillPartitions(VectorSchemaRoot out, int n, TableFiles.DataFile f) {
        for (int c = 0; c < partitionColumns.size(); c++) {
            FieldVector v = out.getVector(partitionColumns.get(c));
            if (v == null) {
                continue; // not selected
            }
            String text = f.values().get(c);
            if (text == null) {
                for (int i = 0; i < n; i++) {
                    v.setNull(i);
                }
                continue;
            }
            Setter set = setter(v, text, partitionColumns.get(c), f);
            if (n > 0) {
                set.at(0);
                if (v instanceof BitVector) {
                    for (int i = 1; i < n; i++) {
                        set.at(i);
                    }
                } else {
                    repeatFirst(v, n);
                }
            }
        }
    }

    /**
     * Repeats the value at index 0 of {@code v} into {@code [1, n)}: a partition value is the same in every row of a
     * file, so its bytes are copied in doubling blocks instead of set row by row (which was a third of a read's time).
     */
    private static final int OFFSET_BLOCK = 4096;
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private static void repeatFirst(FieldVector v, int n) {
        if (v instanceof BaseVariableWidthVector x) {
            int length = x.getValueLength(0);
            while (x.getValueCapacity() < n) {
                x.reallocValidityAndOffsetBuffers();
            }
            while (x.getDataBuffer().capacity() < (long) n * length) {
                x.reallocDataBuffer();
            }
            repeat(x.getDataBuffer(), length, n);
            // the end offsets i * length, a block at a time through an array: one checked ArrowBuf write per row was
            // most of the fill's time for a string partition column
            ArrowBuf offsets = x.getOffsetBuffer();
            byte[] block = new byte[4 * Math.min(n, OFFSET_BLOCK)];
            for (int from = 1; from <= n; from += OFFSET_BLOCK) {
                int k = Math.min(OFFSET_BLOCK, n + 1 - from);
                for (int j = 0; j < k; j++) {
                    INT_LE.set(block, 4 * j, (from + j) * length);
                }
                offsets.setBytes((long) from * BaseVariableWidthVector.OFFSET_WIDTH, block, 0, 4L * k);
            }
            allValid(x.getValidityBuffer(), n);
            x.setLastSet(n - 1);
        } else if (v instanceof BaseFixedWidthVector x && !(v instanceof BitVector)) {
            while (x.getValueCapacity() < n) {
                x.reAlloc();
            }
            repeat(x.getDataBuffer(), x.getTypeWidth(), n);
            allValid(x.getValidityBuffer(), n);
        } else {
            throw new IllegalStateException("no bulk fill for " + v.getClass().getSimpleName()); // setter() makes no other
        }
    }

    /** Copies the first {@code width} bytes of {@code buf} until it holds {@code n} copies. */
    private static void repeat(ArrowBuf buf, int width, int n) {
        long total = (long) width * n;
        long filled = width;
        while (filled < total) {
            long len = Math.min(filled, total - filled);
            buf.setBytes(filled, buf, 0, len);
            filled += len;
        }
    }

    private static void allValid(ArrowBuf validity, int n) {
        validity.setOne(0L, n / 8);
        for (int i = n & ~7; i < n; i++) {
            BitVectorHelper.setBit(validity, i);
        }
    }

    private interface Setter {
        void at(int i);
    }

    private Setter setter(FieldVector v, String text, String column, TableFiles.DataFile f) {
        try {
            if (v instanceof VarCharVector x) {
                byte[] b = text.getBytes(StandardCharsets.UTF_8);
                return i -> x.setSafe(i, b);
            }
            if (v instanceof BigIntVector x) {
                long l = Long.parseLong(text);
                return i -> x.setSafe(i, l);
            }
            if (v instanceof IntVector x) {
                int l = Integer.parseInt(text);
                return i -> x.setSafe(i, l);
            }
            if (v instanceof SmallIntVector x) {
                short l = Short.parseShort(text);
                return i -> x.setSafe(i, l);
            }
            if (v instanceof TinyIntVector x) {
                byte l = Byte.parseByte(text);
                return i -> x.setSafe(i, l);
            }
            if (v instanceof BitVector x) {
                if (!text.equalsIgnoreCase("true") && !text.equalsIgnoreCase("false")) {
                    throw new NumberFormatException("not true or false");
                }
                int b = text.equalsIgnoreCase("true") ? 1 : 0;
                return i -> x.setSafe(i, b);
            }
            if (v instanceof DateDayVector x) {
                int d = (int) LocalDate.parse(text).toEpochDay();
                return i -> x.setSafe(i, d);
            }
            if (v instanceof TimeStampVector x) {
                LocalDateTime t = LocalDateTime.parse(text, TIMESTAMP);
                long s = t.toEpochSecond(ZoneOffset.UTC);
                TimeUnit unit = ((ArrowType.Timestamp) v.getField().getType()).getUnit();
                long value = switch (unit) {
                    case SECOND -> s;
                    case MILLISECOND -> s * 1000 + t.getNano() / 1_000_000;
                    case MICROSECOND -> s * 1_000_000 + t.getNano() / 1000;
                    case NANOSECOND -> s * 1_000_000_000 + t.getNano();
                };
                return i -> x.setSafe(i, value);
            }
            if (v instanceof DecimalVector x) {
                BigDecimal d = new BigDecimal(text).setScale(((ArrowType.Decimal) v.getField().getType()).getScale());
                return i -> x.setSafe(i, d);
            }
            if (v instanceof Float8Vector x) {
                double d = Double.parseDouble(text);
                return i -> x.setSafe(i, d);
            }
            if (v instanceof Float4Vector x) {
                float d = Float.parseFloat(text);
                return i -> x.setSafe(i, d);
            }
        } catch (RuntimeException e) {
            throw new ReadException(table, "Cannot read " + table + ": the folder of " + uri(f) + " gives the partition column '" + column
                    + "' the value '" + text + "', which is not a " + v.getField().getType() + " (" + e.getMessage() + "). Fix the "
                    + "folder name or the catalog's type.", e);
        }
        throw new ReadException(table, "Cannot read " + table + ": the partition column '" + column + "' has the type "
                + v.getField().getType() + ", which wrangler cannot restore from a folder name.", null);
    }

    /** Hive's rendering of timestamps, {@code yyyy-MM-dd HH:mm:ss[.fffffffff]}. */
    static final DateTimeFormatter TIMESTAMP = new DateTimeFormatterBuilder().appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true).optionalEnd().toFormatter();

    /**
     * The type of a partition column known only by its folders' values, by the rule DuckDB and Spark use: integers
     * that fit 64 bits are int64, {@code yyyy-MM-dd} dates are date32, {@code yyyy-MM-dd HH:mm:ss[.f]} timestamps are
     * timestamp(us), {@code true}/{@code false} are bool; anything else, or a mix, is utf8. Nulls do not count.
     */
    static Field inferType(String column, List<String> values) {
        boolean ints = true;
        boolean dates = true;
        boolean times = true;
        boolean bools = true;
        boolean any = false;
        for (String v : values) {
            if (v == null) {
                continue;
            }
            any = true;
            ints &= v.matches("-?\\d{1,19}") && fitsLong(v);
            dates &= v.matches("\\d{4}-\\d{2}-\\d{2}") && parses(() -> LocalDate.parse(v));
            times &= v.matches("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?") && parses(() -> LocalDateTime.parse(v, TIMESTAMP));
            bools &= v.equals("true") || v.equals("false");
        }
        ArrowType t = !any ? ArrowType.Utf8.INSTANCE
                : ints ? new ArrowType.Int(64, true)
                : dates ? new ArrowType.Date(DateUnit.DAY)
                : times ? new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)
                : bools ? ArrowType.Bool.INSTANCE : ArrowType.Utf8.INSTANCE;
        return new Field(column, FieldType.nullable(t), null);
    }

    private static boolean fitsLong(String v) {
        try {
            Long.parseLong(v);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static boolean parses(Runnable r) {
        try {
            r.run();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Arrow types of partition columns from Hive type strings (the catalog's). */
    public static Map<String, Field> fromHive(List<String> columns, Map<String, String> hiveTypes, Function<String, Field> parse) {
        Map<String, Field> out = new HashMap<>();
        for (String c : columns) {
            String t = hiveTypes.get(c);
            if (t != null) {
                Field f = parse.apply(t);
                if (f != null) {
                    out.put(c, f);
                }
            }
        }
        return out;
    }

    // ---- ArrowReader ----

    @Override
    public long bytesRead() {
        FileDecoder c = current;
        return bytesRead.get() + (c == null ? 0 : c.input.bytesRead());
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

    static ParquetReadOptions readOptions() {
        try {
            return (ParquetReadOptions) OPTIONS.newInstance(false, true, true, false, false, true, false, false, false,
                    FilterCompat.NOOP, ParquetMetadataConverter.NO_FILTER, new Codecs(), new HeapByteBufferAllocator(),
                    8 * 1024 * 1024, new HashMap<String, String>(), null, null, new PlainParquetConfiguration());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("parquet-java's ParquetReadOptions changed: " + e, e);
        }
    }

    /**
     * parquet-java 1.18 has no public way to read options without Hadoop: {@code ParquetReadOptions.Builder}'s
     * constructor creates Hadoop's codec factory (HadoopCodecs), whatever codec factory is set afterwards. The options
     * themselves hold nothing of Hadoop, so they are made with their package-private constructor, with our
     * {@link Codecs}.
     */
    private static Constructor<?> optionsConstructor() {
        for (Constructor<?> c : ParquetReadOptions.class.getDeclaredConstructors()) {
            if (c.getParameterCount() == 18) {
                c.setAccessible(true);
                return c;
            }
        }
        throw new IllegalStateException("parquet-java's ParquetReadOptions has no 18-argument constructor: this wrangler needs "
                + "parquet-java 1.18");
    }
}
