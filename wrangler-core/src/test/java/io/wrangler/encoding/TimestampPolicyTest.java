package io.wrangler.encoding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.junit.jupiter.api.Test;

/** The timestamp rule that both encoders and the validation pass share. */
class TimestampPolicyTest {
    private static final TimestampPolicy MICROS = new TimestampPolicy(false, false);
    private static final TimestampPolicy KEEP = new TimestampPolicy(true, false);

    @Test
    void nanosecondsAreNarrowedToMicrosecondsUnlessKept() {
        assertThat(MICROS.narrows(TimeUnit.NANOSECOND)).isTrue();
        assertThat(MICROS.parquetUnit(TimeUnit.NANOSECOND)).isEqualTo(LogicalTypeAnnotation.TimeUnit.MICROS);
        assertThat(KEEP.narrows(TimeUnit.NANOSECOND)).isFalse();
        assertThat(KEEP.parquetUnit(TimeUnit.NANOSECOND)).isEqualTo(LogicalTypeAnnotation.TimeUnit.NANOS);
        for (TimeUnit unit : List.of(TimeUnit.SECOND, TimeUnit.MILLISECOND, TimeUnit.MICROSECOND)) {
            assertThat(MICROS.narrows(unit)).as("%s", unit).isFalse();
        }
        assertThat(MICROS.parquetUnit(TimeUnit.SECOND)).isEqualTo(LogicalTypeAnnotation.TimeUnit.MILLIS);
        assertThat(MICROS.narrows(new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC"))).isTrue();
        assertThat(MICROS.narrows(new ArrowType.Int(64, true))).isFalse();
    }

    @Test
    void aNanosecondValueThatMicrosecondsCannotHoldIsRefusedNamingColumnAndRow() {
        assertThat(TimestampPolicy.nanosAsMicros(-2_000L, "ts", 0)).isEqualTo(-2L);
        assertThatThrownBy(() -> TimestampPolicy.nanosAsMicros(1_001L, "s.ts", 7)).isInstanceOf(UnsupportedTypeException.class)
                .hasMessage("column 's.ts' holds the nanosecond timestamp 1001 at row 7, which a microsecond timestamp cannot hold "
                        + "without losing digits: truncate the column to microseconds, or call preserveNanoseconds(true) (Spark and "
                        + "Athena cannot read nanosecond Parquet timestamps)");
    }

    @Test
    void secondsBeyondWhatMillisecondsHoldFailInsteadOfWrapping() {
        assertThat(TimestampPolicy.secondsAsMillis(-3L)).isEqualTo(-3_000L);
        assertThatThrownBy(() -> TimestampPolicy.secondsAsMillis(Long.MAX_VALUE / 1000 + 1)).isInstanceOf(ArithmeticException.class);
    }

    @Test
    void theSchemaMappingTakesItsTimestampTypesFromThePolicy() {
        Field ns = new Field("ns", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)), null);
        assertThat(new ArrowSchemas(MICROS).messageType(List.of(ns)).getType("ns").getLogicalTypeAnnotation())
                .isEqualTo(LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.MICROS));
        assertThat(new ArrowSchemas(KEEP).messageType(List.of(ns)).getType("ns").getLogicalTypeAnnotation())
                .isEqualTo(LogicalTypeAnnotation.timestampType(false, LogicalTypeAnnotation.TimeUnit.NANOS));
        assertThat(new ArrowSchemas(new TimestampPolicy(false, true)).messageType(List.of(ns)).getType("ns").asPrimitiveType()
                .getPrimitiveTypeName()).isEqualTo(PrimitiveType.PrimitiveTypeName.INT96);
    }
}
