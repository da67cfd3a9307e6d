package io.wrangler.read;

import io.wrangler.ReadException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import io.wrangler.filter.BoundFilter;
import io.wrangler.filter.Rows;
import io.wrangler.filter.Verdict;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * A FileDecoder reads one file's row groups into batches of at most {@code batchRows} rows in {@code out}, whose
 * vectors its converters write: flat columns column by column (page by page straight into the vectors where the
 * chunk allows, {@link DirectColumn}, else through parquet-java's column readers and converters, decided per column
 * chunk), lists, maps and structs record by record; the partition columns from the file's folder. One row group's
 * column chunks are fetched at most {@code budget} bytes at a time ({@link RowGroupPages}).
 */
final class FileDecoder {
    /**
     * What every file of a read is decoded with.
     *
     * @param dataFields the read's selected data columns (the vectors of {@code out} of these names are written)
     * @param directPages whether flat columns may be decoded page by page straight into their vectors
     * @param directSeen per column, the kinds of pages decoded straight into its vectors (a mask), merged into
     * @param converterChunks per flat column, how many of its chunks went through the converters, added to
     * @param filter the rows to read, or null for all
     * @param filterOnly the columns the filter reads that the read does not select (data or partition columns)
     * @param allocator the allocator of the vectors of {@code filterOnly}
     * @param layouts the read's columns matched to each distinct file schema, shared by every file of the read
     */
    record Setup(String table, List<Field> dataFields, int batchRows, int minWindow, boolean directPages, PartitionColumns partitions,
                 Map<String, Integer> directSeen, Map<String, Integer> converterChunks, BoundFilter filter, List<Field> filterOnly,
                 BufferAllocator allocator, Layouts layouts) {
    }

    /**
     * The layouts of one read: the columns it decodes matched to a file's schema, made once for each distinct file
     * schema (and list of columns) and shared by the files that have it, on any thread. A read of many files of one
     * schema matches their columns once instead of once a file: per-file work is also the JIT's, compiled late because it
     * runs only a few hundred times a read.
     */
    static final class Layouts {
        private final ConcurrentHashMap<List<Object>, Layout> byKey = new ConcurrentHashMap<>();

        /** The layout of {@code fields} in files of {@code fileSchema}, made by {@code make} the first time. */
        Layout get(MessageType fileSchema, List<Field> fields, Function<List<Object>, Layout> make) {
            return byKey.computeIfAbsent(List.of(fileSchema, fields), make);
        }
    }

    /**
     * The read's columns {@code names} found in a file's schema, in the order of the columns read: {@code types} (flat
     * ones where {@code flat}), and what their readers need, made from them once.
     */
    record Layout(List<String> names, List<Type> types, boolean[] flat, MessageType requested, List<ColumnDescriptor> requestedColumns,
                  MessageType flatSchema, List<ColumnDescriptor> flatColumns, int[] flatMaxDefinition, MessageType nestedSchema) {
    }

    private final Setup setup;
    private final String table;
    private final int batchRows;
    final TableFiles.DataFile file;
    private final VectorSchemaRoot out;
    private final long budget;
    final S3InputFile input;
    /**
     * parquet-java's reader of the file, for its column and offset indexes: made when the filter first needs them (or at
     * once when the footer is read here); a read of every row never makes it.
     */
    private ParquetFileReader reader;
    private final ParquetMetadata footer;
    private final MessageType fileSchema;
    private final List<BlockMetaData> groups;
    private int groupIndex;
    /** The columns decoded in a row group the filter must be evaluated on (the read's and the filter's), and in others. */
    private final Plan full;
    private final Plan plain;
    private Plan plan;
    /** The filter's columns the read does not select, decoded or filled beside {@code out}; null when none. */
    private final VectorSchemaRoot extras;
    /** {@code out}'s vectors and {@link #extras}', for the filter; null without a filter. */
    private final VectorSchemaRoot view;
    /** Whether the current row group's rows are tested one by one (statistics could not decide them). */
    private boolean filterGroup;
    /** The filter's partition columns, by name: their one value in this file (canonical), as statistics. */
    private final Map<String, VectorSchemaRoot> partitionValues = new HashMap<>();
    private final int[] flatRow = new int[1];
    private long rowsLeftInGroup;
    private final int[] row = new int[1];

    /** Each row group's verdict, judged before the file was opened ({@link FilePruning}), or null: judged here. */
    private Verdict[] judged;
    /** The rows of the current row group that are read, when its page indexes narrowed it ({@link PageRanges}), else null. */
    private PageRanges ranges;

    /** Takes the verdict of each row group of the file, judged before it was opened ({@link FilePruning}); null: judged here. */
    FileDecoder judged(Verdict[] verdicts) {
        this.judged = verdicts;
        return this;
    }

    /**
     * @param footer the file's footer parsed before (not read again), or null to read it
     */
    FileDecoder(Setup setup, TableFiles.DataFile file, S3InputFile input, ParquetMetadata footer, VectorSchemaRoot out, long budget)
            throws IOException {
        this.setup = setup;
        this.table = setup.table();
        this.batchRows = setup.batchRows();
        this.file = file;
        this.out = out;
        this.budget = budget;
        this.input = input;
        this.reader = footer == null ? open() : null;
        this.footer = footer == null ? reader.getFooter() : footer;
        this.extras = setup.filter() == null || setup.filterOnly().isEmpty() ? null
                : VectorSchemaRoot.create(new Schema(setup.filterOnly()), setup.allocator());
        try {
            fileSchema = this.footer.getFileMetaData().getSchema();
            // parquet-java's reader would list the same row groups: it filters none without a record filter
            groups = this.footer.getBlocks();
            plain = columns(setup.dataFields());
            List<Field> wide = new ArrayList<>(setup.dataFields());
            if (extras != null) {
                wide.addAll(setup.filterOnly());
            }
            full = setup.filter() == null ? plain : columns(wide);
            if (setup.filter() != null) {
                List<FieldVector> all = new ArrayList<>(out.getFieldVectors());
                if (extras != null) {
                    all.addAll(extras.getFieldVectors());
                }
                view = new VectorSchemaRoot(all);
                partitionValues();
            } else {
                view = null;
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The filter's partition columns' one value in this file, each in a one-row batch. */
    private void partitionValues() {
        partitionValues.putAll(FilePruning.partitionValues(setup.filter(), setup.partitions(), file, setup.allocator()));
    }

    /** A reader of the file, its footer fetched and parsed. */
    private ParquetFileReader open() throws IOException {
        try {
            return ParquetOptions.open(input);
        } catch (IOException | RuntimeException e) {
            throw ReadErrors.failed(table, file, e);
        }
    }

    /** parquet-java's reader of the file over its footer, made the first time. */
    private ParquetFileReader reader() throws IOException {
        if (reader == null) {
            reader = ParquetOptions.open(input, footer);
        }
        return reader;
    }

    /** The readers of a row group's columns: flat ones column by column, the others record by record. */
    private static final class Plan {
        MessageType requested;
        /** {@link #requested}'s leaves, and {@link #flatSchema}'s: made once (parquet-java makes the list anew at each call). */
        List<ColumnDescriptor> requestedColumns;
        List<ColumnDescriptor> flatColumns;
        /** The selected columns that are flat (one leaf, not repeated): decoded column by column. */
        MessageType flatSchema;
        /** Their converters, made for the first chunk that takes them ({@link #flatRoot}): none for a file of direct chunks. */
        GroupConverter flatRoot;
        ColumnReader[] flat;
        /** Per flat column, its decoder in this row group when it reads pages straight into the vector, else null. */
        DirectColumn[] direct;
        FieldVector[] flatVectors;
        int[] flatMaxDefinition;
        /** The selected columns that are lists, maps or structs: assembled record by record. */
        MessageType nestedSchema;
        RecordReader<Object> records;
        GroupConverter root;
    }

    /**
     * Matches {@code fields} to the file's columns (once per distinct file schema of the read: {@link Layouts}), and makes
     * the converters of nested columns into this file's vectors.
     */
    private Plan columns(List<Field> fields) {
        Layout layout = setup.layouts().get(fileSchema, fields, key -> layout(fields));
        Plan p = new Plan();
        int n = layout.names().size();
        int flatCount = layout.flatSchema().getFieldCount();
        FieldVector[] flatOut = new FieldVector[flatCount];
        Converter[] nestedConverters = new Converter[n - flatCount];
        for (int i = 0, f = 0, c = 0; i < n; i++) {
            String name = layout.names().get(i);
            FieldVector v = out.getVector(name);
            if (v == null) {
                v = extras.getVector(name);
            }
            if (layout.flat()[i]) {
                flatOut[f++] = v;
            } else {
                nestedConverters[c++] = ParquetArrow.converter(layout.types().get(i), v, () -> row[0]);
            }
        }
        p.requested = layout.requested();
        p.flatSchema = layout.flatSchema();
        p.nestedSchema = layout.nestedSchema();
        p.flat = new ColumnReader[flatCount];
        p.direct = new DirectColumn[flatCount];
        p.flatVectors = flatOut;
        p.requestedColumns = layout.requestedColumns();
        p.flatColumns = layout.flatColumns();
        p.flatMaxDefinition = layout.flatMaxDefinition();
        p.root = group(nestedConverters, () -> row[0]++);
        return p;
    }

    /**
     * The columns of {@code fields} this file has (the others are nulls, or partition columns the filter reads), each
     * checked against the read's type of it.
     */
    private Layout layout(List<Field> fields) {
        List<String> names = new ArrayList<>();
        List<Type> all = new ArrayList<>();
        List<Type> flatTypes = new ArrayList<>();
        List<Type> nestedTypes = new ArrayList<>();
        Map<String, Type> byKey = new HashMap<>();
        for (Type t : fileSchema.getFields()) {
            byKey.put(TableSchema.key(t.getName()), t);
        }
        for (Field want : fields) {
            Type t = byKey.get(TableSchema.key(want.getName()));
            if (t == null) {
                continue;
            }
            Field has = TableSchema.field(table, t, file);
            if (!TableSchema.covers(want, has)) {
                // the schema was made from this file's footer: it changed since
                throw new ReadException(table, "Cannot read " + table + ": the column '" + want.getName() + "' is "
                        + TableSchema.describe(has) + " in " + ReadErrors.uri(file) + ", not " + TableSchema.describe(want)
                        + " as when the read began. Read again.", null);
            }
            names.add(want.getName());
            all.add(t);
            (flat(t) ? flatTypes : nestedTypes).add(t);
        }
        boolean[] flat = new boolean[all.size()];
        for (int i = 0; i < flat.length; i++) {
            flat[i] = flat(all.get(i));
        }
        MessageType requested = new MessageType(fileSchema.getName(), all);
        MessageType flatSchema = new MessageType(fileSchema.getName(), flatTypes);
        List<ColumnDescriptor> flatColumns = flatSchema.getColumns();
        int[] maxDefinition = new int[flatTypes.size()];
        for (int i = 0; i < maxDefinition.length; i++) {
            maxDefinition[i] = flatColumns.get(i).getMaxDefinitionLevel();
        }
        return new Layout(List.copyOf(names), List.copyOf(all), flat, requested, requested.getColumns(), flatSchema, flatColumns,
                maxDefinition, new MessageType(fileSchema.getName(), nestedTypes));
    }

    /** Whether {@code t} is decoded column by column: one leaf, not repeated. */
    private static boolean flat(Type t) {
        return t.isPrimitive() && !t.isRepetition(Type.Repetition.REPEATED);
    }

    /** Fills {@code out} with the file's next batch (rows that pass the filter: never none); false at the end of the file. */
    boolean next() throws IOException {
        while (true) {
            while (rowsLeftInGroup == 0) {
                if (!nextGroup()) {
                    return false;
                }
            }
            int n = (int) Math.min(batchRows, rowsLeftInGroup);
            allocate(out, n);
            if (filterGroup && extras != null) {
                allocate(extras, n);
            }
            decode(n);
            rowsLeftInGroup -= n;
            setup.partitions().fill(out, n, file);
            out.setRowCount(n);
            if (!filterGroup) {
                return true;
            }
            if (extras != null) {
                setup.partitions().fill(extras, n, file);
                extras.setRowCount(n);
            }
            view.setRowCount(n);
            int[] keep = setup.filter().select(view);
            if (keep.length > 0) {
                Rows.keep(out, keep);
                return true;
            }
        }
    }

    /**
     * Allocates {@code root}'s vectors for a batch of {@code n} rows at once: fixed-width ones at {@code n} values, byte
     * arrays at {@code n} values and the data bytes of their column chunk's share of the row group (its uncompressed
     * size; Arrow's estimate for a column the file lacks and a partition column), the others as Arrow allocates them.
     * Vectors allocated at Arrow's default size were grown (reallocated, copied, zeroed) twice or more per file of
     * 10,000 rows as the values were decoded.
     */
    private void allocate(VectorSchemaRoot root, int n) {
        for (FieldVector v : root.getFieldVectors()) {
            if (v instanceof BaseFixedWidthVector f) {
                f.allocateNew(n);
            } else if (v instanceof BaseVariableWidthVector b) {
                long bytes = dataBytes(v.getName(), n);
                if (bytes > 0) {
                    b.allocateNew(bytes, n);
                } else {
                    b.allocateNew(n); // a partition column, or one the file lacks: Arrow's estimate
                }
            } else {
                v.allocateNew();
            }
        }
    }

    /**
     * The bytes of the column {@code name}'s values in {@code n} rows of the current row group (its chunk's share of
     * the row group's rows, at most 64 MiB), or 0 when unknown.
     */
    private long dataBytes(String name, int n) {
        Plan p = plan;
        if (p == null || rowsLeftInGroup <= 0) {
            return 0;
        }
        for (int c = 0; c < p.flatVectors.length; c++) {
            if (p.flatVectors[c].getName().equals(name)) {
                ColumnChunkMetaData chunk = RowGroupPages.chunk(groups.get(groupIndex - 1), p.flatColumns.get(c));
                long rows = Math.max(1, groups.get(groupIndex - 1).getRowCount());
                return chunk == null ? 0 : Math.min(64L << 20, chunk.getTotalUncompressedSize() * n / rows);
            }
        }
        return 0;
    }

    /** Decodes the next {@code n} rows of the row group into the plan's vectors. */
    private void decode(int n) throws IOException {
        Plan p = plan;
        row[0] = 0;
        try {
            for (int c = 0; c < p.flat.length; c++) {
                if (p.direct[c] != null) {
                    p.direct[c].read(n);
                    setup.directSeen().merge(p.flatVectors[c].getName(), p.direct[c].seen(), (a, b) -> a | b);
                    continue;
                }
                ColumnReader r = p.flat[c];
                int defined = p.flatMaxDefinition[c];
                for (int i = 0; i < n; i++) {
                    if (r.getCurrentDefinitionLevel() == defined) {
                        flatRow[0] = i;
                        r.writeCurrentValueToConverter();
                    }
                    r.consume();
                }
            }
            if (p.records != null) {
                for (int i = 0; i < n; i++) {
                    p.records.read();
                }
            }
        } catch (RuntimeException e) {
            throw ReadErrors.failed(table, file, e);
        }
    }

    private boolean nextGroup() throws IOException {
        input.forgetKept();
        while (groupIndex < groups.size()) {
            int g = groupIndex++;
            BlockMetaData block = groups.get(g);
            if (block.getRowCount() == 0) {
                continue;
            }
            Verdict v = setup.filter() == null ? Verdict.ALL : judged != null && g < judged.length ? judged[g] : verdict(block);
            if (v == Verdict.NONE) {
                continue;
            }
            filterGroup = v == Verdict.SOME;
            plan = filterGroup ? full : plain;
            try {
                ranges = filterGroup ? pageRanges(block) : null;
                if (ranges != null && ranges.isEmpty()) {
                    continue; // no page of the row group may pass
                }
                startGroup(block);
            } catch (IOException | RuntimeException e) {
                throw ReadErrors.failed(table, file, e);
            }
            rowsLeftInGroup = ranges != null ? ranges.rows() : block.getRowCount();
            return true;
        }
        return false;
    }

    /**
     * The rows of {@code block} its page indexes leave to the filter, or null to read it whole: no page index, every page
     * may pass, or the pages to fetch exceed the budget (the row group is then streamed within it).
     */
    private PageRanges pageRanges(BlockMetaData block) throws IOException {
        List<ColumnDescriptor> decoded = plan.requestedColumns;
        PageRanges r = PageRanges.of(new PageRanges.Group(reader(), input, block, fileSchema, setup.filter(), partitionValues), decoded);
        if (r == null || r.isEmpty()) {
            return r;
        }
        long pages = RowGroupPages.pagesBytes(block, decoded, r);
        // fewer pages than the whole row group's chunks, and within the budget: else the row group is read as before
        return pages <= budget && pages < RowGroupPages.chunksBytes(block, decoded) ? r : null;
    }

    /** What the row group's statistics, bloom filters and the file's partition values say of the filter. */
    private Verdict verdict(BlockMetaData block) {
        return FilePruning.verdict(setup.filter(), block, fileSchema, partitionValues, chunk -> FilePruning.bloom(input, chunk));
    }

    /** Readers over the row group's pages, streamed in bounded memory ({@link RowGroupPages}). */
    private void startGroup(BlockMetaData block) throws IOException {
        Plan p = plan;
        ColumnReader[] flat = p.flat;
        DirectColumn[] direct = p.direct;
        FieldVector[] flatVectors = p.flatVectors;
        RowGroupPages pages = ranges != null ? new RowGroupPages(input, block, p.requestedColumns, ranges)
                : new RowGroupPages(input, block, p.requestedColumns, budget, setup.minWindow());
        p.records = p.nestedSchema.getFieldCount() == 0 ? null
                : new ColumnIOFactory().getColumnIO(p.nestedSchema, fileSchema).getRecordReader(pages, materializer(p.root), FilterCompat.NOOP);
        if (p.flatSchema.getFieldCount() > 0) {
            // made for the first chunk that takes the converters: its constructor parses the writer's version, a cost
            // per row group that a file of direct chunks only need not pay
            ColumnReadStoreImpl store = null;
            List<ColumnDescriptor> columns = p.flatColumns;
            for (int i = 0; i < flat.length; i++) {
                // Decided per column chunk: the next row group's chunk of the column may take the other path.
                ColumnDescriptor column = columns.get(i);
                ColumnChunkMetaData chunk = RowGroupPages.chunk(block, column);
                // only some rows of the row group: parquet-java's column readers skip the others
                DirectKind kind = setup.directPages() && chunk != null && ranges == null ? DirectKind.of(column, flatVectors[i], chunk) : null;
                if (kind != null) {
                    flat[i] = null;
                    direct[i] = new DirectColumn(kind, column, pages.recyclingPageReader(column), flatVectors[i]);
                } else {
                    direct[i] = null;
                    if (store == null) {
                        if (p.flatRoot == null) {
                            p.flatRoot = flatRoot(p);
                        }
                        store = new ColumnReadStoreImpl(pages, p.flatRoot, p.flatSchema, footer.getFileMetaData().getCreatedBy());
                    }
                    flat[i] = store.getColumnReader(column);
                    setup.converterChunks().merge(flatVectors[i].getName(), 1, Integer::sum);
                }
            }
        }
    }

    /** The bytes fetched of this file so far. */
    long bytesRead() {
        return input.bytesRead();
    }

    void close() {
        if (extras != null) {
            extras.close();
        }
        partitionValues.values().forEach(VectorSchemaRoot::close);
        try {
            if (reader != null) {
                reader.close();
            }
        } catch (IOException e) {
            // an S3InputFile holds no connection between reads: nothing to release
        }
    }

    /** The converters of the plan's flat columns into their vectors, for the chunks that take parquet-java's column readers. */
    private GroupConverter flatRoot(Plan p) {
        Converter[] children = new Converter[p.flatVectors.length];
        List<Type> types = p.flatSchema.getFields();
        for (int i = 0; i < children.length; i++) {
            children[i] = ParquetArrow.converter(types.get(i), p.flatVectors[i], () -> flatRow[0]);
        }
        return group(children, () -> { });
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
}
