package io.wrangler.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.S3Parquet;
import io.wrangler.storage.RequestOptions;
import io.wrangler.testkit.MemoryS3;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FooterParse} gives what parquet-java's own footer reading gives, value for value (schema, key-values, row
 * groups, every column chunk's place, sizes, encodings, statistics, size statistics, bloom filter and page index
 * references), for files written by wrangler (several row groups, bloom filters, sorted, a list column) and by DuckDB
 * (V1 and V2, nested and decimal columns, an INTERVAL, whose column order parquet-java leaves undefined); it converts
 * a chunk's statistics only when they are asked for; anything but a Parquet footer is left to parquet-java.
 */
class FooterParseTest {
    @TempDir
    Path temp;

    @Test
    void footersOfWranglerAndDuckdbFilesParseAsParquetJavaParsesThem() throws Exception {
        try (MemoryS3 s3 = MemoryS3.start()) {
            s3.createBucket("footers");
            writeWrangler(s3);
            for (String version : List.of("V1", "V2")) {
                Path file = temp.resolve(version + ".parquet");
                try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement st = c.createStatement()) {
                    st.execute("COPY (SELECT i AS id, CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || (i % 37) || 'é' END AS s, "
                            + "CAST(i AS DECIMAL(18, 3)) AS d, [i, i + 1] AS l, {'a': i, 'b': 'x' || i} AS st, "
                            + "INTERVAL (i) DAY AS iv, DATE '2020-01-01' + (i % 100)::INTEGER AS day, i / 7.0 AS f "
                            + "FROM range(3000) r(i)) TO '" + file + "' (FORMAT PARQUET, PARQUET_VERSION " + version
                            + ", ROW_GROUP_SIZE 1000)");
                }
                s3.put("footers", "duck/" + version + ".parquet", Files.readAllBytes(file));
            }
            Map<String, Long> objects = s3.list("footers", "");
            List<String> parsed = new ArrayList<>();
            ParquetMetadata first = null;
            int groups = 0;
            for (Map.Entry<String, Long> o : objects.entrySet()) {
                if (!o.getKey().endsWith(".parquet")) {
                    continue;
                }
                S3InputFile in = new S3InputFile(s3.client(), "footers", o.getKey(), o.getValue(), RequestOptions.defaults());
                ParquetMetadata own = FooterParse.plain(in);
                assertThat(own).as(o.getKey()).isNotNull();
                for (BlockMetaData b : own.getBlocks()) {
                    for (ColumnChunkMetaData c : b.getColumns()) {
                        assertThat(((FooterParse.Chunk) c).converted()).as("statistics converted before they are asked for").isFalse();
                    }
                }
                ParquetMetadata theirs;
                try (ParquetFileReader r = ParquetFileReader.open(new S3InputFile(s3.client(), "footers", o.getKey(), o.getValue(),
                        RequestOptions.defaults()), ParquetOptions.readOptions())) {
                    theirs = r.getFooter();
                }
                assertThat(describe(own)).as(o.getKey()).isEqualTo(describe(theirs));
                parsed.add(o.getKey());
                groups = Math.max(groups, own.getBlocks().size());
                if (o.getKey().startsWith("t/") && first == null) {
                    first = own;
                } else if (o.getKey().startsWith("t/")) {
                    // the schema is converted once for the files that carry the same one
                    assertThat(own.getFileMetaData().getSchema()).isSameAs(first.getFileMetaData().getSchema());
                }
            }
            assertThat(parsed).contains("duck/V1.parquet", "duck/V2.parquet");
            assertThat(parsed.stream().filter(k -> k.startsWith("t/"))).hasSizeGreaterThan(1);
            assertThat(groups).as("row groups of a file").isGreaterThan(1);
        }
    }

    @Test
    void onlyTheChunksWhoseStatisticsAreAskedForAreConvertedAndAnythingButParquetIsParquetJavasToRefuse() throws Exception {
        try (MemoryS3 s3 = MemoryS3.start()) {
            s3.createBucket("footers");
            writeWrangler(s3);
            Map.Entry<String, Long> o = s3.list("footers", "t/").entrySet().stream().filter(e -> e.getKey().endsWith(".parquet")).findFirst()
                    .orElseThrow();
            ParquetMetadata own = FooterParse.plain(new S3InputFile(s3.client(), "footers", o.getKey(), o.getValue(), RequestOptions.defaults()));
            List<ColumnChunkMetaData> chunks = own.getBlocks().get(0).getColumns();
            assertThat(chunks.get(0).getStatistics().hasNonNullValue()).isTrue();
            assertThat(chunks.stream().map(c -> ((FooterParse.Chunk) c).converted()))
                    .containsExactly(true, false, false, false);

            byte[] text = "not a parquet file, but long enough".getBytes(StandardCharsets.UTF_8);
            s3.put("footers", "x/text.parquet", text);
            S3InputFile in = new S3InputFile(s3.client(), "footers", "x/text.parquet", text.length, RequestOptions.defaults());
            assertThat(FooterParse.plain(in)).isNull();
            assertThatThrownBy(() -> ParquetOptions.open(new S3InputFile(s3.client(), "footers", "x/text.parquet", text.length,
                    RequestOptions.defaults()))).hasMessageContaining("is not a Parquet file");
        }
    }

    /** A table of several files of several row groups: bloom filters, sorted, a list column, multibyte strings, NaN. */
    private static void writeWrangler(MemoryS3 s3) {
        Schema schema = new Schema(List.of(new Field("k", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("f", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
                new Field("l", FieldType.nullable(ArrowType.List.INSTANCE),
                        List.of(new Field("item", FieldType.nullable(new ArrowType.Int(64, true)), null))),
                new Field("p", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
        int rows = 8_000;
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
            root.allocateNew();
            UnionListWriter w = ((ListVector) root.getVector("l")).getWriter();
            for (int i = 0; i < rows; i++) {
                ((BigIntVector) root.getVector("k")).setSafe(i, (i * 7919L) % rows);
                if (i % 11 != 0) {
                    ((VarCharVector) root.getVector("s")).setSafe(i, ("s" + (i % 500) + "ü").getBytes(StandardCharsets.UTF_8));
                }
                ((Float8Vector) root.getVector("f")).setSafe(i, i % 13 == 0 ? Double.NaN : i / 3.0);
                w.setPosition(i);
                w.startList();
                for (int j = 0; j < i % 3; j++) {
                    w.bigInt().writeBigInt(i + j);
                }
                w.endList();
                ((VarCharVector) root.getVector("p")).setSafe(i, ("p" + (i % 2)).getBytes(StandardCharsets.UTF_8));
            }
            root.setRowCount(rows);
            S3Parquet.write(root).s3(s3.client()).partitionBy("p").rowGroupSize(64 * 1024).pageSize(4 * 1024).bloomFilters("k", "s")
                    .sortBy("k").to("s3://footers/t/");
        }
    }

    /** Everything parquet-java's metadata says of a file, as text. */
    private static String describe(ParquetMetadata m) {
        StringBuilder out = new StringBuilder();
        out.append(m.getFileMetaData().getSchema()).append('\n');
        out.append(new TreeMap<>(m.getFileMetaData().getKeyValueMetaData())).append('\n');
        out.append(m.getFileMetaData().getCreatedBy()).append(' ').append(m.getFileMetaData().getEncryptionType()).append('\n');
        for (BlockMetaData b : m.getBlocks()) {
            out.append("block rows=").append(b.getRowCount()).append(" bytes=").append(b.getTotalByteSize()).append(" rowIndex=")
                    .append(b.getRowIndexOffset()).append(" ordinal=").append(b.getOrdinal()).append(" path=").append(b.getPath())
                    .append(" start=").append(b.getStartingPos()).append(" compressed=").append(b.getCompressedSize()).append('\n');
            for (ColumnChunkMetaData c : b.getColumns()) {
                EncodingStats es = c.getEncodingStats();
                out.append("  ").append(c).append(" type=").append(c.getPrimitiveType()).append(" codec=").append(c.getCodec())
                        .append(" encodings=").append(new TreeSet<>(c.getEncodings()))
                        .append(" stats=").append(es == null ? null : es.getDictionaryEncodings() + "/" + es.getDataEncodings() + "/"
                                + es.usesV2Pages() + "/" + es.hasDictionaryPages() + "/" + es.hasNonDictionaryEncodedPages())
                        .append(" first=").append(c.getFirstDataPageOffset()).append(" dict=").append(c.getDictionaryPageOffset())
                        .append(" values=").append(c.getValueCount()).append(" size=").append(c.getTotalSize()).append('/')
                        .append(c.getTotalUncompressedSize()).append(" start=").append(c.getStartingPos())
                        .append(" hasDict=").append(c.hasDictionaryPage()).append(" ordinal=").append(c.getRowGroupOrdinal())
                        .append(" bloom=").append(c.getBloomFilterOffset()).append('/').append(c.getBloomFilterLength())
                        .append(" columnIndex=").append(ref(c.getColumnIndexReference()))
                        .append(" offsetIndex=").append(ref(c.getOffsetIndexReference()))
                        .append(" statistics=").append(c.getStatistics()).append(' ').append(c.getStatistics().type())
                        .append(" nulls=").append(c.getStatistics().isNumNullsSet() ? c.getStatistics().getNumNulls() : "unset")
                        .append(" min=").append(c.getStatistics().hasNonNullValue() ? c.getStatistics().minAsString() : "-")
                        .append(" max=").append(c.getStatistics().hasNonNullValue() ? c.getStatistics().maxAsString() : "-")
                        .append(" sizeStatistics=").append(sizes(c)).append(" geo=").append(c.getGeospatialStatistics())
                        .append(" encrypted=").append(c.isEncrypted()).append('\n');
            }
        }
        return out.toString();
    }

    private static String ref(IndexReference r) {
        return r == null ? "none" : r.getOffset() + "+" + r.getLength();
    }

    private static String sizes(ColumnChunkMetaData c) {
        var s = c.getSizeStatistics();
        return s == null ? "none" : s.getUnencodedByteArrayDataBytes() + " " + s.getRepetitionLevelHistogram() + " "
                + s.getDefinitionLevelHistogram() + " " + s.isValid();
    }
}
