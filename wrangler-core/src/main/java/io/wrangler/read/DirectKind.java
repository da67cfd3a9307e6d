package io.wrangler.read;

import java.util.EnumSet;
import java.util.Set;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * How the values of a flat column chunk land in its Arrow vector when a {@link DirectColumn} decodes it: which chunks
 * it takes ({@link #of}) and what layout their values have.
 */
enum DirectKind {
    /** A 4-byte value copied as is: int32, uint32, date32, float. */
    FIXED4,
    /** An 8-byte value copied as is: int64, uint64, timestamps, double. */
    FIXED8,
    /** An INT32 kept in its low byte: int8, uint8. */
    BYTE,
    /** An INT32 kept in its low two bytes: int16, uint16. */
    SHORT,
    BOOLEAN,
    /** A BYTE_ARRAY into a variable-width vector: utf8, binary. */
    BINARY;

    private static final Set<Encoding> KNOWN = EnumSet.of(Encoding.PLAIN, Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY,
            Encoding.RLE, Encoding.BIT_PACKED);

    /**
     * How the values of the chunk of {@code column} are handed over where they lie ({@link DirectColumn#scan}) as values
     * of the Arrow type {@code type}, whose vector would hold the very bytes of the page's values: {@link #BINARY} for
     * a utf8 or binary column, {@link #FIXED4} for an int32 one, {@link #FIXED8} for an int64 one; null for any other
     * type, a column that is not flat, or an encoding not listed above.
     */
    static DirectKind ofValues(ColumnDescriptor column, ArrowType type, ColumnChunkMetaData chunk) {
        if (column.getMaxRepetitionLevel() != 0 || column.getMaxDefinitionLevel() > 1 || !known(chunk.getEncodings())) {
            return null;
        }
        PrimitiveTypeName p = column.getPrimitiveType().getPrimitiveTypeName();
        if (p == PrimitiveTypeName.BINARY && (type instanceof ArrowType.Utf8 || type instanceof ArrowType.Binary)) {
            return BINARY;
        }
        if (type instanceof ArrowType.Int i && i.getIsSigned()) {
            if (p == PrimitiveTypeName.INT32 && i.getBitWidth() == 32) {
                return FIXED4;
            }
            if (p == PrimitiveTypeName.INT64 && i.getBitWidth() == 64) {
                return FIXED8;
            }
        }
        return null;
    }

    /**
     * Whether every encoding of a chunk is one listed above: a loop of its own, not {@code containsAll}, whose loop (shared
     * with every other caller in the JVM) a merge's reads compiled again after its profile failed.
     */
    private static boolean known(Iterable<Encoding> encodings) {
        for (Encoding e : encodings) {
            if (!KNOWN.contains(e)) {
                return false;
            }
        }
        return true;
    }

    /**
     * How the chunk of {@code column} goes into {@code v} directly, or null when it must go through the converters:
     * an encoding not listed above, a type not listed above (decimals, INT96, fixed-length byte arrays), or a column
     * that is not flat.
     */
    static DirectKind of(ColumnDescriptor column, FieldVector v, ColumnChunkMetaData chunk) {
        if (column.getMaxRepetitionLevel() != 0 || column.getMaxDefinitionLevel() > 1 || !known(chunk.getEncodings())) {
            return null;
        }
        LogicalTypeAnnotation ann = column.getPrimitiveType().getLogicalTypeAnnotation();
        if (ann instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation) {
            return null;
        }
        PrimitiveTypeName p = column.getPrimitiveType().getPrimitiveTypeName();
        switch (p) {
            case INT32:
                if (v instanceof IntVector || v instanceof DateDayVector || v instanceof UInt4Vector) {
                    return FIXED4;
                }
                if (v instanceof TinyIntVector || v instanceof UInt1Vector) {
                    return BYTE;
                }
                if (v instanceof SmallIntVector || v instanceof UInt2Vector) {
                    return SHORT;
                }
                return null;
            case INT64:
                return v instanceof BigIntVector || v instanceof TimeStampVector || v instanceof UInt8Vector ? FIXED8 : null;
            case FLOAT:
                return v instanceof Float4Vector ? FIXED4 : null;
            case DOUBLE:
                return v instanceof Float8Vector ? FIXED8 : null;
            case BOOLEAN:
                return v instanceof BitVector ? BOOLEAN : null;
            case BINARY:
                return v instanceof VarCharVector || v instanceof VarBinaryVector ? BINARY : null;
            default:
                return null;
        }
    }
}
