package io.wrangler.read;

import io.wrangler.ReadException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
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
     */
    record Setup(String table, List<Field> dataFields, int batchRows, int minWindow, boolean directPages, PartitionColumns partitions,
                 Map<String, Integer> directSeen, Map<String, Integer> converterChunks) {
    }

    private final Setup setup;
    private final String table;
    private final int batchRows;
    final TableFiles.DataFile file;
    private final VectorSchemaRoot out;
    private final long budget;
    final S3InputFile input;
    private final ParquetFileReader reader;
    private final MessageType fileSchema;
    private final List<BlockMetaData> groups;
    private int groupIndex;
    private MessageType requested;
    /** The selected columns that are flat (one leaf, not repeated): decoded column by column. */
    private MessageType flatSchema;
    private GroupConverter flatRoot;
    private ColumnReader[] flat;
    /** Per flat column, its decoder in this row group when it reads pages straight into the vector, else null. */
    private DirectColumn[] direct;
    private FieldVector[] flatVectors;
    private int[] flatMaxDefinition;
    private final int[] flatRow = new int[1];
    /** The selected columns that are lists, maps or structs: assembled record by record. */
    private MessageType nestedSchema;
    private RecordReader<Object> records;
    private long rowsLeftInGroup;
    private final int[] row = new int[1];
    private GroupConverter root;

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
        this.reader = open(footer);
        try {
            fileSchema = reader.getFooter().getFileMetaData().getSchema();
            groups = reader.getRowGroups();
            columns();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private ParquetFileReader open(ParquetMetadata footer) throws IOException {
        try {
            return footer == null ? ParquetOptions.open(input) : ParquetOptions.open(input, footer);
        } catch (IOException | RuntimeException e) {
            throw ReadErrors.failed(table, file, e);
        }
    }

    /** Matches the read's columns to the file's, and makes the converters of flat and of nested columns. */
    private void columns() {
        List<Type> all = new ArrayList<>();
        List<Type> flatTypes = new ArrayList<>();
        List<Converter> flatConverters = new ArrayList<>();
        List<FieldVector> flatOut = new ArrayList<>();
        List<Type> nestedTypes = new ArrayList<>();
        List<Converter> nestedConverters = new ArrayList<>();
        Map<String, Type> byKey = new HashMap<>();
        for (Type t : fileSchema.getFields()) {
            byKey.put(TableSchema.key(t.getName()), t);
        }
        for (Field want : setup.dataFields()) {
            Type t = byKey.get(TableSchema.key(want.getName()));
            if (t == null) {
                continue; // nulls
            }
            Field has = TableSchema.field(table, t, file);
            if (!TableSchema.covers(want, has)) {
                // the schema was made from this file's footer: it changed since
                throw new ReadException(table, "Cannot read " + table + ": the column '" + want.getName() + "' is "
                        + TableSchema.describe(has) + " in " + ReadErrors.uri(file) + ", not " + TableSchema.describe(want)
                        + " as when the read began. Read again.", null);
            }
            all.add(t);
            FieldVector v = out.getVector(want.getName());
            if (t.isPrimitive() && !t.isRepetition(Type.Repetition.REPEATED)) {
                flatTypes.add(t);
                flatOut.add(v);
                flatConverters.add(ParquetArrow.converter(t, v, () -> flatRow[0]));
            } else {
                nestedTypes.add(t);
                nestedConverters.add(ParquetArrow.converter(t, v, () -> row[0]));
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
                    setup.directSeen().merge(flatVectors[c].getName(), direct[c].seen(), (a, b) -> a | b);
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
            throw ReadErrors.failed(table, file, e);
        }
        rowsLeftInGroup -= n;
        setup.partitions().fill(out, n, file);
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
                throw ReadErrors.failed(table, file, e);
            }
            rowsLeftInGroup = block.getRowCount();
            return true;
        }
        return false;
    }

    /** Readers over the row group's pages, streamed in bounded memory ({@link RowGroupPages}). */
    private void startGroup(BlockMetaData block) throws IOException {
        RowGroupPages pages = new RowGroupPages(input, block, requested.getColumns(), budget, setup.minWindow());
        records = nestedSchema.getFieldCount() == 0 ? null
                : new ColumnIOFactory().getColumnIO(nestedSchema, fileSchema).getRecordReader(pages, materializer(root), FilterCompat.NOOP);
        if (flatSchema.getFieldCount() > 0) {
            ColumnReadStoreImpl store = new ColumnReadStoreImpl(pages, flatRoot, flatSchema, reader.getFooter().getFileMetaData().getCreatedBy());
            List<ColumnDescriptor> columns = flatSchema.getColumns();
            for (int i = 0; i < flat.length; i++) {
                // Decided per column chunk: the next row group's chunk of the column may take the other path.
                ColumnDescriptor column = columns.get(i);
                ColumnChunkMetaData chunk = RowGroupPages.chunk(block, column);
                DirectKind kind = setup.directPages() && chunk != null ? DirectKind.of(column, flatVectors[i], chunk) : null;
                if (kind != null) {
                    flat[i] = null;
                    direct[i] = new DirectColumn(kind, column, pages.recyclingPageReader(column), flatVectors[i]);
                } else {
                    direct[i] = null;
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
        try {
            reader.close();
        } catch (IOException e) {
            // an S3InputFile holds no connection between reads: nothing to release
        }
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
