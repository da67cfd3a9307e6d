package io.wrangler.bench;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The standard benchmark table of {@code shared/reference/peers.md}: row i is defined by formulas, so that Java and
 * DuckDB SQL build the very same rows.
 */
final class StandardTable {
    static final String[] COUNTRIES = {"US", "DE", "FR", "GB", "BR", "IN", "JP", "CN", "RU", "ES", "IT", "NL", "SE", "PL", "MX", "CA", "AU", "KR", "TR", "AR"};
    static final long TS0 = 1_735_689_600_000_000L; // 2025-01-01T00:00:00Z in microseconds
    static final int DAY0 = 20_089;                   // 2025-01-01 as days since the epoch

    private StandardTable() {
    }

    static Schema schema() {
        return new Schema(List.of(
                new Field("user_id", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("country", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("amount_cents", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("price", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
                new Field("ts", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")), null),
                new Field("dt", FieldType.nullable(new ArrowType.Date(DateUnit.DAY)), null)));
    }

    /** Rows {@code [from, from + count)} as a new root; the caller closes it. */
    static VectorSchemaRoot rows(BufferAllocator allocator, long from, int count) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
        fill(root, from, count, 10);
        return root;
    }

    /** Fills {@code root} with rows {@code [from, from + count)}, {@code dt} cycling through {@code days} days. */
    static void fill(VectorSchemaRoot root, long from, int count, int days) {
        root.getFieldVectors().forEach(v -> v.setInitialCapacity(count));
        root.allocateNew();
        VarCharVector user = (VarCharVector) root.getVector(0);
        VarCharVector country = (VarCharVector) root.getVector(1);
        BigIntVector amount = (BigIntVector) root.getVector(2);
        Float8Vector price = (Float8Vector) root.getVector(3);
        TimeStampMicroTZVector ts = (TimeStampMicroTZVector) root.getVector(4);
        DateDayVector dt = (DateDayVector) root.getVector(5);
        byte[][] countries = new byte[COUNTRIES.length][];
        for (int c = 0; c < COUNTRIES.length; c++) {
            countries[c] = COUNTRIES[c].getBytes(StandardCharsets.US_ASCII);
        }
        byte[] id = new byte[8];
        id[0] = 'u';
        for (int r = 0; r < count; r++) {
            long i = from + r;
            long u = (i * 2_654_435_761L) % 10_000_000L;
            for (int d = 7; d >= 1; d--) {
                id[d] = (byte) ('0' + u % 10);
                u /= 10;
            }
            user.setSafe(r, id);
            country.setSafe(r, countries[(int) (((i * 7919) % 10_007) % 20)]);
            amount.set(r, (i * 48_271L) % 1_000_000_007L);
            price.set(r, ((i * 7919) % 100_000) / 100.0);
            ts.set(r, TS0 + (i * 104_729L) % 86_400_000_000L);
            dt.set(r, DAY0 + (int) (i % days));
        }
        root.setRowCount(count);
    }

    /** The same rows in DuckDB SQL. */
    static String duckdbSql(long rows) {
        StringBuilder countries = new StringBuilder("[");
        for (int c = 0; c < COUNTRIES.length; c++) {
            countries.append(c == 0 ? "" : ",").append('\'').append(COUNTRIES[c]).append('\'');
        }
        countries.append(']');
        return "SELECT 'u' || lpad(CAST((i * 2654435761) % 10000000 AS VARCHAR), 7, '0') AS user_id, "
                + countries + "[((i * 7919) % 10007) % 20 + 1] AS country, "
                + "(i * 48271) % 1000000007 AS amount_cents, "
                + "((i * 7919) % 100000) / 100.0 AS price, "
                + "make_timestamp(" + TS0 + " + (i * 104729) % 86400000000)::TIMESTAMPTZ AS ts, "
                + "DATE '2025-01-01' + CAST(i % 10 AS INTEGER) AS dt "
                + "FROM range(" + rows + ") r(i)";
    }
}
