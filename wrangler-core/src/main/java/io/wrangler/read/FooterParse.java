package io.wrangler.read;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.parquet.column.statistics.SizeStatistics;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.statistics.geospatial.GeospatialStatistics;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.ColumnOrder;
import org.apache.parquet.format.KeyValue;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkProperties;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;

/**
 * FooterParse reads a plain Parquet footer (magic {@code PAR1}, no encryption, every column chunk's metadata in the
 * footer, in the file itself) into parquet-java's {@link ParquetMetadata} with less work than parquet-java's own
 * reading: the same Thrift decoding, then the same values, but a column chunk's statistics (its min/max, null count,
 * size and geospatial statistics) converted only when asked for, by parquet-java's own conversion of that chunk, and
 * the schema converted once for all the footers that carry the same one. A read of every row never asks for them; a
 * read under a row filter asks for the filter's columns'. Anything else (an encrypted footer, a chunk in another
 * file, a footer that does not decode) is left to parquet-java, which reads or refuses it as before.
 */
final class FooterParse {
    private static final ParquetMetadataConverter CONVERTER = new ParquetMetadataConverter();
    /** Schemas converted, by their Thrift elements and column orders: a table's files mostly share a few. */
    private static final Map<List<Object>, MessageType> SCHEMAS = new ConcurrentHashMap<>();
    private static final int MOST_SCHEMAS = 256;
    private static final Map<List<org.apache.parquet.format.Encoding>, Set<org.apache.parquet.column.Encoding>> ENCODINGS =
            new ConcurrentHashMap<>();

    private FooterParse() {
    }

    /** The plain footer of {@code in} (its bytes read as parquet-java reads them: from memory when held), or null. */
    static ParquetMetadata plain(S3InputFile in) throws IOException {
        long length = in.getLength();
        if (length < 12) {
            return null;
        }
        byte[] last = new byte[8];
        in.read(length - 8, last, 0, 8);
        if (last[4] != 'P' || last[5] != 'A' || last[6] != 'R' || last[7] != '1') {
            return null;
        }
        long size = ByteBuffer.wrap(last, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xFFFFFFFFL;
        long start = length - 8 - size;
        if (start < 4 || size > Integer.MAX_VALUE) {
            return null;
        }
        S3InputFile.Held held = in.held(start, size);
        org.apache.parquet.format.FileMetaData meta;
        try {
            if (held != null) {
                meta = Util.readFileMetaData(new ByteArrayInputStream(held.bytes(), held.offset(), (int) size));
            } else {
                byte[] b = new byte[(int) size];
                in.read(start, b, 0, (int) size);
                meta = Util.readFileMetaData(new ByteArrayInputStream(b));
            }
        } catch (IOException | RuntimeException e) {
            return null; // parquet-java reads it again and says why it cannot
        }
        return convert(meta);
    }

    /** {@code meta} as parquet-java converts it, or null when it is not plain (see the class comment). */
    static ParquetMetadata convert(org.apache.parquet.format.FileMetaData meta) {
        try {
            return plainOnly(meta);
        } catch (RuntimeException e) {
            return null; // parquet-java converts it again and says why it cannot
        }
    }

    private static ParquetMetadata plainOnly(org.apache.parquet.format.FileMetaData meta) {
        if (meta.isSetEncryption_algorithm() || meta.getSchema() == null || meta.getSchema().isEmpty()) {
            return null;
        }
        List<RowGroup> groups = meta.getRow_groups() == null ? List.of() : meta.getRow_groups();
        for (RowGroup g : groups) {
            if (g.getColumns() == null || g.getColumns().isEmpty()) {
                return null;
            }
            for (ColumnChunk c : g.getColumns()) {
                ColumnMetaData m = c.getMeta_data();
                if (m == null || c.isSetCrypto_metadata() || c.isSetFile_path() || m.getPath_in_schema() == null || m.getEncodings() == null
                        || m.getCodec() == null) {
                    return null;
                }
            }
        }
        MessageType schema;
        try {
            schema = schema(meta);
        } catch (IOException e) {
            return null;
        }
        String createdBy = meta.getCreated_by();
        List<BlockMetaData> blocks = new ArrayList<>(groups.size());
        long rowIndex = 0;
        for (RowGroup g : groups) {
            blocks.add(block(g, schema, createdBy, rowIndex));
            rowIndex += g.getNum_rows();
        }
        Map<String, String> keyValues = new HashMap<>();
        if (meta.getKey_value_metadata() != null) {
            for (KeyValue kv : meta.getKey_value_metadata()) {
                keyValues.put(kv.getKey(), kv.getValue());
            }
        }
        return new ParquetMetadata(new FileMetaData(schema, keyValues, createdBy, FileMetaData.EncryptionType.UNENCRYPTED, null), blocks);
    }

    /** The row group {@code g}, whose first row is the file's row {@code rowIndex}, as parquet-java converts it. */
    private static BlockMetaData block(RowGroup g, MessageType schema, String createdBy, long rowIndex) {
        BlockMetaData block = new BlockMetaData();
        block.setRowCount(g.getNum_rows());
        block.setTotalByteSize(g.getTotal_byte_size());
        block.setRowIndexOffset(rowIndex);
        if (g.isSetOrdinal()) {
            block.setOrdinal(g.getOrdinal());
        }
        for (ColumnChunk c : g.getColumns()) {
            ColumnMetaData m = c.getMeta_data();
            ColumnPath path = ColumnPath.get(m.getPath_in_schema().toArray(new String[0]));
            PrimitiveType type = schema.getType(path.toArray()).asPrimitiveType();
            Chunk chunk = new Chunk(m, path, type, createdBy);
            chunk.setRowGroupOrdinal(g.getOrdinal());
            if (m.isSetBloom_filter_offset()) {
                chunk.setBloomFilterOffset(m.getBloom_filter_offset());
            }
            if (m.isSetBloom_filter_length()) {
                chunk.setBloomFilterLength(m.getBloom_filter_length());
            }
            if (c.isSetColumn_index_offset() && c.isSetColumn_index_length()) {
                chunk.setColumnIndexReference(new IndexReference(c.getColumn_index_offset(), c.getColumn_index_length()));
            }
            if (c.isSetOffset_index_offset() && c.isSetOffset_index_length()) {
                chunk.setOffsetIndexReference(new IndexReference(c.getOffset_index_offset(), c.getOffset_index_length()));
            }
            block.addColumn(chunk);
        }
        return block;
    }

    /** The schema of {@code meta}, converted by parquet-java once per distinct schema (its row groups left out). */
    private static MessageType schema(org.apache.parquet.format.FileMetaData meta) throws IOException {
        List<SchemaElement> elements = meta.getSchema();
        List<ColumnOrder> orders = meta.getColumn_orders();
        List<Object> key = java.util.Arrays.asList(elements, orders);
        MessageType known = SCHEMAS.get(key);
        if (known != null) {
            return known;
        }
        org.apache.parquet.format.FileMetaData only = new org.apache.parquet.format.FileMetaData();
        only.setVersion(meta.getVersion());
        only.setSchema(elements);
        only.setNum_rows(meta.getNum_rows());
        only.setRow_groups(new ArrayList<>());
        if (orders != null) {
            only.setColumn_orders(orders);
        }
        MessageType schema = CONVERTER.fromParquetMetadata(only).getFileMetaData().getSchema();
        if (SCHEMAS.size() >= MOST_SCHEMAS) {
            SCHEMAS.clear();
        }
        // the Thrift lists are the footer's own: copied, so that a caller's later change of them cannot change the key
        SCHEMAS.putIfAbsent(java.util.Arrays.asList(new ArrayList<>(elements), orders == null ? null : new ArrayList<>(orders)), schema);
        return schema;
    }

    /** The encodings of a chunk as parquet-java gives them: an unmodifiable set, one instance per distinct list. */
    private static Set<org.apache.parquet.column.Encoding> encodings(List<org.apache.parquet.format.Encoding> formats) {
        Set<org.apache.parquet.column.Encoding> known = ENCODINGS.get(formats);
        if (known != null) {
            return known;
        }
        Set<org.apache.parquet.column.Encoding> out = new HashSet<>();
        for (org.apache.parquet.format.Encoding e : formats) {
            out.add(CONVERTER.getEncoding(e));
        }
        Set<org.apache.parquet.column.Encoding> set = Collections.unmodifiableSet(out);
        if (ENCODINGS.size() < MOST_SCHEMAS) {
            ENCODINGS.putIfAbsent(List.copyOf(formats), set);
        }
        return set;
    }

    /**
     * A column chunk's metadata: its place, sizes, codec and encodings as parquet-java gives them; its statistics
     * converted by parquet-java ({@link ParquetMetadataConverter#buildColumnChunkMetaData}) the first time they are
     * asked for.
     */
    static final class Chunk extends ColumnChunkMetaData {
        private final ColumnMetaData meta;
        private final PrimitiveType type;
        private final String createdBy;
        private volatile ColumnChunkMetaData full;

        Chunk(ColumnMetaData meta, ColumnPath path, PrimitiveType type, String createdBy) {
            super(meta.isSetEncoding_stats() ? CONVERTER.convertEncodingStats(meta.getEncoding_stats()) : null,
                    ColumnChunkProperties.get(path, type, CompressionCodecName.fromParquet(meta.getCodec()), encodings(meta.getEncodings())));
            this.meta = meta;
            this.type = type;
            this.createdBy = createdBy;
        }

        /** Whether the statistics were converted (for tests: a read of every row converts none). */
        boolean converted() {
            return full != null;
        }

        private ColumnChunkMetaData full() {
            ColumnChunkMetaData f = full;
            if (f == null) {
                f = CONVERTER.buildColumnChunkMetaData(meta, getPath(), type, createdBy);
                full = f;
            }
            return f;
        }

        @Override
        public long getFirstDataPageOffset() {
            return meta.getData_page_offset();
        }

        @Override
        public long getDictionaryPageOffset() {
            return meta.getDictionary_page_offset();
        }

        @Override
        public long getValueCount() {
            return meta.getNum_values();
        }

        @Override
        public long getTotalUncompressedSize() {
            return meta.getTotal_uncompressed_size();
        }

        @Override
        public long getTotalSize() {
            return meta.getTotal_compressed_size();
        }

        @Override
        public Statistics getStatistics() {
            return full().getStatistics();
        }

        @Override
        public SizeStatistics getSizeStatistics() {
            return full().getSizeStatistics();
        }

        @Override
        public GeospatialStatistics getGeospatialStatistics() {
            return full().getGeospatialStatistics();
        }
    }
}
