package io.wrangler;

import io.wrangler.commit.WriteSpec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What the row-filter and pruning tests share (the random columns and predicates are {@link RowFilterDuckDbTest}'s):
 * writing with small row groups and pages, a file's footer rewritten as other writers leave it, the same files copied
 * to a local folder and put back under another prefix, and the {@code k} column of a read.
 */
final class FilterFixtures {
    private FilterFixtures() {
    }

    /** Writes {@code root} to {@code table} with row groups of {@code rowGroupBytes} and pages of {@code pageBytes}. */
    static void write(VectorSchemaRoot root, long rowGroupBytes, int pageBytes, S3Client s3, String table, String... partitionBy) {
        WriteSpec.Tuning d = WriteSpec.Tuning.defaults();
        WriteSpec.Tuning t = new WriteSpec.Tuning(d.threads(), d.partSize(), d.maxPendingParts(), rowGroupBytes, pageBytes,
                d.maxOpenFiles(), d.deleteBatch(), d.singleCopyLimit(), d.copyPartSize(), d.leaseTtl(), d.openBytes(), Duration.ZERO);
        S3Parquet.write(root).tuning(new S3Parquet.Tuning(t)).preserveNanoseconds(true).partitionBy(partitionBy).s3(s3).to(table);
    }

    /**
     * One unpartitioned file of {@code rows} rows: {@code k} ascending from 0 (bigint), {@code h} a hash of it (bigint),
     * {@code s} text derived from it; row groups and pages as given.
     */
    static void sortedTable(S3Client s3, String table, int rows, long rowGroupBytes, int pageBytes) {
        Schema schema = new Schema(List.of(new Field("k", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("h", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
        try (RootAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
            root.allocateNew();
            for (int i = 0; i < rows; i++) {
                ((BigIntVector) root.getVector("k")).setSafe(i, i);
                ((BigIntVector) root.getVector("h")).setSafe(i, sortedH(i));
                ((VarCharVector) root.getVector("s")).setSafe(i, sortedS(i).getBytes());
            }
            root.setRowCount(rows);
            write(root, rowGroupBytes, pageBytes, s3, table);
        }
    }

    /** {@link #sortedTable}'s {@code h} of row {@code k}. */
    static long sortedH(long k) {
        return k * 0x9E3779B97F4A7C15L;
    }

    /** {@link #sortedTable}'s {@code s} of row {@code k}. */
    static String sortedS(long k) {
        return "row-" + Long.toHexString(k * 0xC2B2AE3D27D4EB4FL);
    }

    /** The {@code k} (int) of every row of the read, sorted. */
    static List<Integer> readK(ReadBuilder read) throws Exception {
        return readK(read, new long[1]);
    }

    /** The {@code k} (int) of every row of the read, sorted; {@code bytes[0]} gets the bytes the read fetched. */
    static List<Integer> readK(ReadBuilder read, long[] bytes) throws Exception {
        List<Integer> out = new ArrayList<>();
        try (ArrowReader reader = read.open()) {
            while (reader.loadNextBatch()) {
                VectorSchemaRoot b = reader.getVectorSchemaRoot();
                IntVector k = (IntVector) b.getVector("k");
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(k.get(i));
                }
            }
            bytes[0] = reader.bytesRead();
        }
        out.sort(null);
        return out;
    }

    /** Copies the table's data files under {@code prefix} to {@code dir}, keeping their paths. */
    static Path copy(S3Client s3, String bucket, String prefix, Path dir) throws IOException {
        for (var o : s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
            String rel = o.key().substring(prefix.length());
            if (rel.startsWith("_") || rel.contains("/_") || !rel.endsWith(".parquet")) {
                continue;
            }
            Path file = dir.resolve(rel);
            Files.createDirectories(file.getParent());
            Files.write(file, s3.getObjectAsBytes(b -> b.bucket(bucket).key(o.key())).asByteArray());
        }
        return dir;
    }

    /** Puts every file under {@code dir} to {@code prefix}, keeping their paths. */
    static void upload(S3Client s3, String bucket, String prefix, Path dir) throws IOException {
        upload(s3, bucket, prefix, dir, meta -> { });
    }

    /** Puts every file under {@code dir} to {@code prefix}, keeping their paths, each with its footer edited by {@code edit}. */
    static void upload(S3Client s3, String bucket, String prefix, Path dir, Consumer<FileMetaData> edit) throws IOException {
        try (var files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String key = prefix + dir.relativize(f).toString().replace('\\', '/');
                s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(editFooter(Files.readAllBytes(f), edit)));
            }
        }
    }

    /** The file with its footer edited by {@code edit}: its data pages are left as they are. */
    static byte[] editFooter(byte[] file, Consumer<FileMetaData> edit) throws IOException {
        int len = ByteBuffer.wrap(file, file.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        int start = file.length - 8 - len;
        FileMetaData meta = Util.readFileMetaData(new ByteArrayInputStream(file, start, len));
        edit.accept(meta);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(file, 0, start);
        ByteArrayOutputStream footer = new ByteArrayOutputStream();
        Util.writeFileMetaData(meta, footer);
        out.write(footer.toByteArray());
        out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(footer.size()).array());
        out.write(new byte[] {'P', 'A', 'R', '1'});
        return out.toByteArray();
    }

    /** An edit: no column or offset index (statistics and bloom filters kept), as writers without page indexes leave it. */
    static void withoutPageIndexes(FileMetaData meta) {
        for (RowGroup g : meta.getRow_groups()) {
            for (ColumnChunk c : g.getColumns()) {
                c.unsetColumn_index_offset();
                c.unsetColumn_index_length();
                c.unsetOffset_index_offset();
                c.unsetOffset_index_length();
            }
        }
    }

    /** An edit: no statistics, page index, bloom filter or column order, as old or minimal writers leave them. */
    static void withoutStatistics(FileMetaData meta) {
        meta.unsetColumn_orders(); // as writers before column orders: binary and unsigned bounds would not be trusted anyway
        withoutPageIndexes(meta);
        for (RowGroup g : meta.getRow_groups()) {
            for (ColumnChunk c : g.getColumns()) {
                c.getMeta_data().unsetStatistics();
                c.getMeta_data().unsetBloom_filter_offset();
                c.getMeta_data().unsetBloom_filter_length();
                c.getMeta_data().unsetSize_statistics();
            }
        }
    }

    /** The parsed footer of a whole file's bytes. */
    static ParquetMetadata footer(byte[] file) {
        int len = ByteBuffer.wrap(file, file.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        try {
            return new ParquetMetadataConverter().readParquetMetadata(new ByteArrayInputStream(file, file.length - 8 - len, len),
                    ParquetMetadataConverter.NO_FILTER);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
