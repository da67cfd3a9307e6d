package io.wrangler;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import java.util.List;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Run by {@link MergeMemoryTest} in a JVM with a small heap: merges {@code updates} rows (ids {@code 0, step, 2 * step,
 * ...}, v = -1, s = "merged") and {@code inserts} new ids (from {@code rows}) into the table's partition "a" by id, and prints
 * {@code MERGED <updated> <inserted> <files rewritten> <max heap MiB>}. Args: endpoint, table URI, rows, updates, inserts.
 */
public final class MergeMain {
    private MergeMain() {
    }

    /** The table's columns: p (the partition), id (the key), v, x, s. */
    static Schema schema() {
        return new Schema(List.of(new Field("p", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("x", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
                new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    }

    public static void main(String[] args) {
        long rows = Long.parseLong(args[2]);
        int updates = Integer.parseInt(args[3]);
        int inserts = Integer.parseInt(args[4]);
        Schema schema = schema();
        try (S3Client s3 = S3Client.builder().endpointOverride(URI.create(args[0])).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build();
             RootAllocator allocator = new RootAllocator();
             VectorSchemaRoot input = VectorSchemaRoot.create(schema, allocator)) {
            input.allocateNew();
            long step = rows / updates;
            for (int k = 0; k < updates + inserts; k++) {
                long id = k < updates ? k * step : rows + (k - updates);
                ((VarCharVector) input.getVector("p")).setSafe(k, "a".getBytes(StandardCharsets.UTF_8));
                ((BigIntVector) input.getVector("id")).setSafe(k, id);
                ((BigIntVector) input.getVector("v")).setSafe(k, -1);
                ((Float8Vector) input.getVector("x")).setNull(k);
                ((VarCharVector) input.getVector("s")).setSafe(k, "merged".getBytes(StandardCharsets.UTF_8));
            }
            input.setRowCount(updates + inserts);
            MergeResult r = S3Parquet.merge(input).on("id").s3(s3).to(args[1]);
            System.out.println("MERGED " + r.rowsUpdated() + " " + r.rowsInserted() + " " + r.filesRewritten().size() + " "
                    + (Runtime.getRuntime().maxMemory() >> 20));
        }
    }
}
