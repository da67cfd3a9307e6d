package io.wrangler.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.S3Parquet;
import io.wrangler.storage.RequestOptions;
import io.wrangler.testkit.MemoryS3;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A reader given the files' footers parsed before ({@link TableReader#knownFooters}, as a merge's scan is) decodes each
 * file by its own footer: the same rows, file by file, as a reader that fetches and parses them itself.
 */
class KnownFootersTest {
    @Test
    void aReaderGivenTheFootersReadsTheSameRowsAsOneThatReadsThem() throws Exception {
        try (MemoryS3 s3 = MemoryS3.start(); BufferAllocator allocator = new RootAllocator()) {
            s3.createBucket("known");
            for (int t = 0; t < 3; t++) { // three files of other lengths and values
                try (VectorSchemaRoot root = rows(allocator, t * 1000, 3 + t * 5)) {
                    S3Parquet.write(root).s3(s3.client()).to("s3://known/t" + t + "/");
                }
            }
            List<TableFiles.DataFile> files = new ArrayList<>();
            List<ParquetMetadata> footers = new ArrayList<>();
            for (S3Object o : s3.client().listObjectsV2(b -> b.bucket("known")).contents()) {
                if (o.key().endsWith(".parquet") && !o.key().contains("/_")) {
                    files.add(new TableFiles.DataFile("known", o.key(), o.size(), "", List.of()));
                    footers.add(Footers.footer(s3.client(), RequestOptions.defaults(), "known", o.key(), o.size(), o.eTag()));
                }
            }
            assertThat(files).hasSize(3);
            List<String> own = read(allocator, s3, files, null);
            assertThat(own).hasSize(3 + 8 + 13).contains("f0 0=0", "f1 1007=7", "f2 2012=4");
            assertThat(read(allocator, s3, files, footers)).isEqualTo(own);
        }
    }

    private static VectorSchemaRoot rows(BufferAllocator allocator, long first, int n) {
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(
                new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))), allocator);
        root.allocateNew();
        for (int i = 0; i < n; i++) {
            ((BigIntVector) root.getVector(0)).setSafe(i, first + i);
            ((VarCharVector) root.getVector(1)).setSafe(i, String.valueOf(i % 8).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        root.setRowCount(n);
        return root;
    }

    /** Every row as "f&lt;file&gt; id=name", in read order. */
    private static List<String> read(BufferAllocator allocator, MemoryS3 s3, List<TableFiles.DataFile> files, List<ParquetMetadata> footers)
            throws Exception {
        List<String> out = new ArrayList<>();
        TableReader r = new TableReader(allocator, null, new TableReader.Source(s3.client(), RequestOptions.defaults(), "s3://known/",
                new TableFiles.Listing(List.of(), files), Map.of()), null, 4).threads(2);
        if (footers != null) {
            r.knownFooters(footers);
        }
        try (r) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot b = r.getVectorSchemaRoot();
                int file = files.indexOf(r.currentFile());
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add("f" + file + " " + ((BigIntVector) b.getVector("id")).get(i) + "=" + b.getVector("name").getObject(i));
                }
            }
        }
        return out;
    }
}
