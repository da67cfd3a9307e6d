package io.wrangler.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * SparkSchemas maps Spark SQL types to the Arrow types wrangler-core encodes, so that a Spark write gets exactly the
 * Parquet and Glue types a single-process write of the same Arrow schema gets: {@code timestamp} is a microsecond
 * timestamp in UTC ({@code isAdjustedToUTC}), {@code timestamp_ntz} one without zone, {@code date} a day, decimals keep
 * their precision and scale (INT32 / INT64 / FIXED_LEN_BYTE_ARRAY by precision, core's choice), arrays, structs and maps
 * nest to any depth. Every field is nullable, as in the files Spark writes (its writer makes the query's schema nullable).
 *
 * <p>And back, for reads ({@link #spark}): the Arrow types wrangler-core's reader gives to the Spark types whose values
 * hold them without loss: unsigned integers widen (8 and 16 bits to the next signed type, 32 bits to {@code bigint},
 * 64 bits to {@code decimal(20,0)}, as Spark's own Parquet reader does), timestamps of any unit become microseconds
 * ({@code timestamp} with a zone, {@code timestamp_ntz} without), fixed-size binary is {@code binary}.
 */
final class SparkSchemas {
    private SparkSchemas() {
    }

    /** Thrown for a Spark type wrangler does not write; the message names the column path and the type. */
    static final class Unsupported extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unsupported(String message) {
            super(message);
        }
    }

    static Schema arrow(StructType schema) {
        List<Field> fields = new ArrayList<>();
        for (StructField f : schema.fields()) {
            fields.add(field(f.name(), f.dataType(), f.name()));
        }
        return new Schema(fields);
    }

    private static Field field(String name, DataType type, String path) {
        if (type instanceof ArrayType a) {
            return new Field(name, FieldType.nullable(ArrowType.List.INSTANCE), List.of(field("element", a.elementType(), path + "[]")));
        }
        if (type instanceof StructType s) {
            if (s.fields().length == 0) {
                throw new Unsupported("the column '" + path + "' is an empty struct, which Parquet cannot hold");
            }
            List<Field> children = new ArrayList<>();
            for (StructField f : s.fields()) {
                children.add(field(f.name(), f.dataType(), path + "." + f.name()));
            }
            return new Field(name, FieldType.nullable(ArrowType.Struct.INSTANCE), children);
        }
        if (type instanceof MapType m) {
            Field key = field("key", m.keyType(), path + ".key");
            Field keyNotNull = new Field("key", FieldType.notNullable(key.getType()), key.getChildren());
            Field entries = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE),
                    List.of(keyNotNull, field("value", m.valueType(), path + ".value")));
            return new Field(name, FieldType.nullable(new ArrowType.Map(false)), List.of(entries));
        }
        return new Field(name, FieldType.nullable(atomic(type, path)), null);
    }

    private static ArrowType atomic(DataType type, String path) {
        if (type instanceof BooleanType) {
            return ArrowType.Bool.INSTANCE;
        }
        if (type instanceof ByteType) {
            return new ArrowType.Int(8, true);
        }
        if (type instanceof ShortType) {
            return new ArrowType.Int(16, true);
        }
        if (type instanceof IntegerType) {
            return new ArrowType.Int(32, true);
        }
        if (type instanceof LongType) {
            return new ArrowType.Int(64, true);
        }
        if (type instanceof FloatType) {
            return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
        }
        if (type instanceof DoubleType) {
            return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
        }
        if (type instanceof DecimalType d) {
            return new ArrowType.Decimal(d.precision(), d.scale(), 128);
        }
        if (type instanceof StringType) {
            return ArrowType.Utf8.INSTANCE;
        }
        if (type instanceof BinaryType) {
            return ArrowType.Binary.INSTANCE;
        }
        if (type instanceof DateType) {
            return new ArrowType.Date(DateUnit.DAY);
        }
        if (type instanceof TimestampType) {
            return new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
        }
        if (type instanceof TimestampNTZType) {
            return new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
        }
        throw new Unsupported("the column '" + path + "' has the Spark type " + type.simpleString()
                + ", which wrangler does not write (booleans, integers, float, double, decimal, string, binary, date, timestamp, "
                + "timestamp_ntz, and arrays, structs and maps of them are written)");
    }

    /** The Spark schema of a read whose Arrow schema is {@code schema}; a column Spark cannot hold is refused. */
    static StructType spark(Schema schema) {
        List<StructField> fields = new ArrayList<>();
        for (Field f : schema.getFields()) {
            fields.add(DataTypes.createStructField(f.getName(), spark(f, f.getName()), f.isNullable()));
        }
        return DataTypes.createStructType(fields);
    }

    private static DataType spark(Field f, String path) {
        ArrowType t = f.getType();
        if (t instanceof ArrowType.Map) {
            Field entries = f.getChildren().get(0);
            Field key = entries.getChildren().get(0);
            Field value = entries.getChildren().get(1);
            return DataTypes.createMapType(spark(key, path + ".key"), spark(value, path + ".value"), value.isNullable());
        }
        if (t instanceof ArrowType.List) {
            Field element = f.getChildren().get(0);
            return DataTypes.createArrayType(spark(element, path + "[]"), element.isNullable());
        }
        if (t instanceof ArrowType.Struct) {
            List<StructField> children = new ArrayList<>();
            for (Field c : f.getChildren()) {
                children.add(DataTypes.createStructField(c.getName(), spark(c, path + "." + c.getName()), c.isNullable()));
            }
            return DataTypes.createStructType(children);
        }
        return sparkAtomic(t, path);
    }

    private static DataType sparkAtomic(ArrowType t, String path) {
        if (t instanceof ArrowType.Bool) {
            return DataTypes.BooleanType;
        }
        if (t instanceof ArrowType.Int i) {
            return switch (i.getBitWidth() + (i.getIsSigned() ? 0 : 1)) {
                case 8 -> DataTypes.ByteType;
                case 16, 9 -> DataTypes.ShortType;
                case 32, 17 -> DataTypes.IntegerType;
                case 64, 33 -> DataTypes.LongType;
                case 65 -> DataTypes.createDecimalType(20, 0);
                default -> throw new Unsupported("the column '" + path + "' is " + t + ", which Spark cannot hold");
            };
        }
        if (t instanceof ArrowType.FloatingPoint fp) {
            return fp.getPrecision() == FloatingPointPrecision.SINGLE ? DataTypes.FloatType : DataTypes.DoubleType;
        }
        if (t instanceof ArrowType.Decimal d) {
            if (d.getPrecision() > 38) {
                throw new Unsupported("the column '" + path + "' is decimal(" + d.getPrecision() + "," + d.getScale() + "), and Spark's "
                        + "decimals hold at most 38 digits");
            }
            return DataTypes.createDecimalType(d.getPrecision(), d.getScale());
        }
        if (t instanceof ArrowType.Utf8) {
            return DataTypes.StringType;
        }
        if (t instanceof ArrowType.Binary || t instanceof ArrowType.FixedSizeBinary) {
            return DataTypes.BinaryType;
        }
        if (t instanceof ArrowType.Date) {
            return DataTypes.DateType;
        }
        if (t instanceof ArrowType.Timestamp ts) {
            return ts.getTimezone() == null ? DataTypes.TimestampNTZType : DataTypes.TimestampType;
        }
        throw new Unsupported("the column '" + path + "' is " + t + ", which the wrangler data source does not read into Spark");
    }
}
