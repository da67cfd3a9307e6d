package io.wrangler.read;

import io.wrangler.ReadException;
import io.wrangler.encoding.Codecs;
import io.wrangler.partition.HivePaths;
import io.wrangler.storage.RequestOptions;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
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
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
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
 * column by column with parquet-java's column readers; lists, maps and structs are assembled record by record. Memory is
 * bounded whatever the size of the files and their row groups: {@link #READ_BUDGET} bytes of fetched column chunks, plus
 * per column the page being decoded and its dictionary, plus one batch.
 *
 * <p>The schema is the selected data columns as the first file has them, then the partition columns. A later file
 * that lacks a column gives nulls for it; one whose column has another type is refused.
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

    private int fileIndex = -1;
    private ParquetFileReader reader;
    private S3InputFile input;
    private MessageType fileSchema;
    private MessageType requested;
    private List<BlockMetaData> groups;
    private int groupIndex;
    /** The selected columns that are flat (one leaf, not repeated): decoded column by column. */
    private MessageType flatSchema;
    private GroupConverter flatRoot;
    private ColumnReader[] flat = new ColumnReader[0];
    private int[] flatMaxDefinition = new int[0];
    private final int[] flatRow = new int[1];
    /** The selected columns that are lists, maps or structs: assembled record by record. */
    private MessageType nestedSchema;
    private RecordReader<Object> records;
    private long rowsLeftInGroup;
    private final int[] row = new int[1];
    private GroupConverter root;
    private long bytesRead;
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

    /** Every file this reader reads, in order. */
    public List<TableFiles.DataFile> files() {
        return files;
    }

    /** Rows read so far. */
    public long rowsRead() {
        return rowsRead;
    }

    // ---- schema ----

    @Override
    protected Schema readSchema() throws IOException {
        if (schema != null) {
            return schema;
        }
        List<Field> data = new ArrayList<>();
        if (!files.isEmpty()) {
            TableFiles.DataFile first = files.get(0);
            try (ParquetFileReader r = open(first)) {
                for (Type t : r.getFooter().getFileMetaData().getSchema().getFields()) {
                    data.add(field(t, first));
                }
            }
        }
        List<Field> all = new ArrayList<>(data);
        all.addAll(partitionFields);
        List<Field> out;
        if (selected == null) {
            out = all;
        } else {
            out = new ArrayList<>();
            for (String name : selected) {
                Field f = all.stream().filter(x -> x.getName().equals(name)).findFirst().orElse(null);
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
        while (rowsLeftInGroup == 0) {
            if (!nextGroup()) {
                out.setRowCount(0);
                return false;
            }
        }
        out.allocateNew();
        int n = (int) Math.min(batchRows, rowsLeftInGroup);
        row[0] = 0;
        try {
            for (int c = 0; c < flat.length; c++) {
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
            throw failed(files.get(fileIndex), e);
        }
        rowsLeftInGroup -= n;
        fillPartitions(out, n, files.get(fileIndex));
        out.setRowCount(n);
        rowsRead += n;
        return true;
    }

    private boolean nextGroup() throws IOException {
        while (true) {
            if (reader != null) {
                if (groupIndex < groups.size()) {
                    BlockMetaData block = groups.get(groupIndex++);
                    if (block.getRowCount() == 0) {
                        continue;
                    }
                    try {
                        startGroup(block);
                    } catch (IOException | RuntimeException e) {
                        throw failed(files.get(fileIndex), e);
                    }
                    rowsLeftInGroup = block.getRowCount();
                    return true;
                }
                closeFile();
            }
            if (++fileIndex >= files.size()) {
                return false;
            }
            openFile(files.get(fileIndex));
        }
    }

    /** Readers over the row group's pages, streamed in bounded memory ({@link RowGroupPages}). */
    private void startGroup(BlockMetaData block) throws IOException {
        RowGroupPages pages = new RowGroupPages(input, block, requested.getColumns(), readBudget, minWindow);
        records = nestedSchema.getFieldCount() == 0 ? null
                : new ColumnIOFactory().getColumnIO(nestedSchema, fileSchema).getRecordReader(pages, materializer(), FilterCompat.NOOP);
        if (flatSchema.getFieldCount() > 0) {
            ColumnReadStoreImpl store = new ColumnReadStoreImpl(pages, flatRoot, flatSchema, reader.getFooter().getFileMetaData().getCreatedBy());
            List<ColumnDescriptor> columns = flatSchema.getColumns();
            for (int i = 0; i < flat.length; i++) {
                flat[i] = store.getColumnReader(columns.get(i));
            }
        }
    }

    private void openFile(TableFiles.DataFile f) throws IOException {
        reader = open(f);
        fileSchema = reader.getFooter().getFileMetaData().getSchema();
        groups = reader.getRowGroups();
        groupIndex = 0;
        VectorSchemaRoot out = getVectorSchemaRoot();
        List<Type> all = new ArrayList<>();
        List<Type> flatTypes = new ArrayList<>();
        List<Converter> flatConverters = new ArrayList<>();
        List<Type> nestedTypes = new ArrayList<>();
        List<Converter> nestedConverters = new ArrayList<>();
        for (Field want : dataFields) {
            if (!fileSchema.containsField(want.getName())) {
                continue; // nulls
            }
            Type t = fileSchema.getType(want.getName());
            Field has = field(t, f);
            if (!has.equals(want)) {
                throw new ReadException(table, "Cannot read " + table + ": the column '" + want.getName() + "' is " + describe(has)
                        + " in " + uri(f) + " but " + describe(want) + " in " + uri(files.get(0)) + ". Rewrite one of them with the "
                        + "other's type.", null);
            }
            all.add(t);
            if (t.isPrimitive() && !t.isRepetition(Type.Repetition.REPEATED)) {
                flatTypes.add(t);
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
        flatMaxDefinition = new int[flatTypes.size()];
        for (int i = 0; i < flat.length; i++) {
            flatMaxDefinition[i] = flatSchema.getColumns().get(i).getMaxDefinitionLevel();
        }
        flatRoot = group(flatConverters.toArray(new Converter[0]), () -> { });
        root = group(nestedConverters.toArray(new Converter[0]), () -> row[0]++);
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

    private RecordMaterializer<Object> materializer() {
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

    private ParquetFileReader open(TableFiles.DataFile f) throws IOException {
        input = new S3InputFile(s3, f.bucket(), f.key(), f.size(), options);
        try {
            return ParquetFileReader.open(input, readOptions());
        } catch (IOException | RuntimeException e) {
            throw failed(f, e);
        }
    }

    private void closeFile() throws IOException {
        if (reader != null) {
            bytesRead += input.bytesRead();
            reader.close();
            reader = null;
        }
    }

    private ReadException failed(TableFiles.DataFile f, Exception e) {
        if (e instanceof ReadException r) {
            return r;
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
            for (int i = 0; i < n; i++) {
                set.at(i);
            }
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
                : dates ? new ArrowType.Date(org.apache.arrow.vector.types.DateUnit.DAY)
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
        return bytesRead + (input == null || reader == null ? 0 : input.bytesRead());
    }

    @Override
    protected void closeReadSource() throws IOException {
        closeFile();
        if (owned != null) {
            owned.close();
        }
    }

    private static ParquetReadOptions readOptions() {
        try {
            return (ParquetReadOptions) OPTIONS.newInstance(false, true, true, false, false, true, false, false, false,
                    FilterCompat.NOOP, ParquetMetadataConverter.NO_FILTER, new Codecs(), new org.apache.parquet.bytes.HeapByteBufferAllocator(),
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
