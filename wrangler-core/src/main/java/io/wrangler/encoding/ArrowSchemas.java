package io.wrangler.encoding;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
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
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.ColumnOrder;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * ArrowSchemas maps Arrow fields to Parquet types, and builds the writer of each field's values.
 *
 * <p>The mapping is the one DuckDB, Spark, Trino and Athena read back as the same values: integers with
 * their width and signedness, decimals as INT32/INT64/FIXED_LEN_BYTE_ARRAY by precision, dates as DATE,
 * timestamps as the {@link TimestampPolicy} says, with {@code isAdjustedToUTC} when the Arrow type has a zone,
 * lists and maps in the standard three-level form, structs as groups, to any depth. Every field is
 * optional (nullable), as Spark writes them; map keys are required. Types with no faithful mapping are
 * refused with an {@link UnsupportedTypeException} that names the column and what to do.
 */
public final class ArrowSchemas {
    private final TimestampPolicy timestamps;

    public ArrowSchemas(TimestampPolicy timestamps) {
        this.timestamps = timestamps;
    }

    /** The Parquet schema of these top-level fields, or an {@link UnsupportedTypeException}. */
    public MessageType messageType(List<Field> fields) {
        return new MessageType("schema", map(fields).types());
    }

    Mapped map(List<Field> fields) {
        List<Type> types = new ArrayList<>();
        List<ValueWriter> writers = new ArrayList<>();
        for (int i = 0; i < fields.size(); i++) {
            Node n = node(fields.get(i), fields.get(i).getName(), i, fields.get(i).getName(), false);
            types.add(n.type);
            writers.add(n.writer);
        }
        return new Mapped(types, writers);
    }

    record Mapped(List<Type> types, List<ValueWriter> writers) {
    }

    private record Node(Type type, ValueWriter writer) {
    }

    private Node node(Field field, String name, int index, String path, boolean required) {
        ArrowType t = field.getType();
        Type.Repetition rep = required ? Type.Repetition.REQUIRED : Type.Repetition.OPTIONAL;
        switch (t.getTypeID()) {
            case Int: {
                ArrowType.Int it = (ArrowType.Int) t;
                int bits = it.getBitWidth();
                PrimitiveTypeName p = bits == 64 ? PrimitiveTypeName.INT64 : PrimitiveTypeName.INT32;
                Type type = Types.primitive(p, rep).as(LogicalTypeAnnotation.intType(bits, it.getIsSigned())).named(name);
                return new Node(type, intWriter(name, index, bits, it.getIsSigned()));
            }
            case FloatingPoint: {
                FloatingPointPrecision fp = ((ArrowType.FloatingPoint) t).getPrecision();
                if (fp == FloatingPointPrecision.HALF) {
                    throw unsupported(path, "float16", "cast it to float32 (FloatingPoint SINGLE)");
                }
                // parquet-java 1.18 declares IEEE754TotalOrder for floating point columns by default. Readers that predate
                // that order (pyarrow, Spark and Trino on older parquet-java) take an unknown column order as "no usable
                // min/max" and ignore the statistics; the type-defined order is the one every reader knows.
                if (fp == FloatingPointPrecision.SINGLE) {
                    return new Node(Types.primitive(PrimitiveTypeName.FLOAT, rep).columnOrder(ColumnOrder.typeDefined()).named(name), new ValueWriter(name, index) {
                        @Override
                        void writeValue(RecordConsumer rc, ValueVector v, int row) {
                            rc.addFloat(((Float4Vector) v).get(row));
                        }
                    });
                }
                return new Node(Types.primitive(PrimitiveTypeName.DOUBLE, rep).columnOrder(ColumnOrder.typeDefined()).named(name), new ValueWriter(name, index) {
                    @Override
                    void writeValue(RecordConsumer rc, ValueVector v, int row) {
                        rc.addDouble(((Float8Vector) v).get(row));
                    }
                });
            }
            case Bool:
                return new Node(Types.primitive(PrimitiveTypeName.BOOLEAN, rep).named(name), new ValueWriter(name, index) {
                    @Override
                    void writeValue(RecordConsumer rc, ValueVector v, int row) {
                        rc.addBoolean(((BitVector) v).get(row) == 1);
                    }
                });
            case Utf8:
            case LargeUtf8:
                return new Node(Types.primitive(PrimitiveTypeName.BINARY, rep).as(LogicalTypeAnnotation.stringType()).named(name),
                        bytesWriter(name, index));
            case Binary:
            case LargeBinary:
                return new Node(Types.primitive(PrimitiveTypeName.BINARY, rep).named(name), bytesWriter(name, index));
            case FixedSizeBinary: {
                int width = ((ArrowType.FixedSizeBinary) t).getByteWidth();
                return new Node(Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, rep).length(width).named(name),
                        new ValueWriter(name, index) {
                            @Override
                            void writeValue(RecordConsumer rc, ValueVector v, int row) {
                                rc.addBinary(Binary.fromConstantByteArray(((FixedSizeBinaryVector) v).get(row)));
                            }
                        });
            }
            case Decimal:
                return decimal(field, (ArrowType.Decimal) t, name, index, path, rep);
            case Date: {
                Type type = Types.primitive(PrimitiveTypeName.INT32, rep).as(LogicalTypeAnnotation.dateType()).named(name);
                return new Node(type, new ValueWriter(name, index) {
                    @Override
                    void writeValue(RecordConsumer rc, ValueVector v, int row) {
                        if (v instanceof DateDayVector d) {
                            rc.addInteger(d.get(row));
                        } else {
                            rc.addInteger(Math.toIntExact(Math.floorDiv(((DateMilliVector) v).get(row), 86_400_000L)));
                        }
                    }
                });
            }
            case Timestamp:
                return timestamp((ArrowType.Timestamp) t, name, index, path, rep);
            case List:
            case LargeList:
            case FixedSizeList:
                return list(field, name, index, path, rep);
            case Map:
                return map(field, name, index, path, rep);
            case Struct:
                return struct(field, name, index, path, rep);
            case Null:
                throw unsupported(path, "null (a column with no type)",
                        "give the column a type, for example a nullable Utf8 or Int, so that the catalog and readers know what it holds");
            default:
                throw unsupported(path, t.toString(), "cast it to a supported type (see docs/types.md)");
        }
    }

    private static ValueWriter intWriter(String name, int index, int bits, boolean signed) {
        return new ValueWriter(name, index) {
            @Override
            void writeValue(RecordConsumer rc, ValueVector v, int row) {
                if (v instanceof IntVector x) {
                    rc.addInteger(x.get(row));
                } else if (v instanceof BigIntVector x) {
                    rc.addLong(x.get(row));
                } else if (v instanceof SmallIntVector x) {
                    rc.addInteger(x.get(row));
                } else if (v instanceof TinyIntVector x) {
                    rc.addInteger(x.get(row));
                } else if (v instanceof UInt1Vector x) {
                    rc.addInteger(x.get(row) & 0xFF);
                } else if (v instanceof UInt2Vector x) {
                    rc.addInteger(x.get(row));
                } else if (v instanceof UInt4Vector x) {
                    rc.addInteger(x.get(row)); // the bits; the UINT_32 annotation says how to read them
                } else {
                    rc.addLong(((UInt8Vector) v).get(row));
                }
            }
        };
    }

    private static ValueWriter bytesWriter(String name, int index) {
        return new ValueWriter(name, index) {
            @Override
            void writeValue(RecordConsumer rc, ValueVector v, int row) {
                byte[] bytes = v instanceof BaseVariableWidthVector x ? x.get(row) : ((BaseLargeVariableWidthVector) v).get(row);
                rc.addBinary(Binary.fromConstantByteArray(bytes));
            }
        };
    }

    private Node decimal(Field field, ArrowType.Decimal d, String name, int index, String path, Type.Repetition rep) {
        int precision = d.getPrecision();
        int scale = d.getScale();
        if (precision > 38) {
            throw unsupported(path, "decimal(" + precision + "," + scale + ")",
                    "Athena, Spark and Glue hold at most 38 digits: reduce the precision to 38 or less");
        }
        LogicalTypeAnnotation ann = LogicalTypeAnnotation.decimalType(scale, precision);
        if (precision <= 9) {
            return new Node(Types.primitive(PrimitiveTypeName.INT32, rep).as(ann).named(name), new ValueWriter(name, index) {
                @Override
                void writeValue(RecordConsumer rc, ValueVector v, int row) {
                    rc.addInteger((int) lowLong(v, row));
                }
            });
        }
        if (precision <= 18) {
            return new Node(Types.primitive(PrimitiveTypeName.INT64, rep).as(ann).named(name), new ValueWriter(name, index) {
                @Override
                void writeValue(RecordConsumer rc, ValueVector v, int row) {
                    rc.addLong(lowLong(v, row));
                }
            });
        }
        int width = bytesFor(precision);
        return new Node(Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, rep).length(width).as(ann).named(name),
                new ValueWriter(name, index) {
                    @Override
                    void writeValue(RecordConsumer rc, ValueVector v, int row) {
                        BigDecimal value = v instanceof DecimalVector x ? x.getObject(row) : ((Decimal256Vector) v).getObject(row);
                        rc.addBinary(Binary.fromConstantByteArray(twosComplement(value.unscaledValue(), width)));
                    }
                });
    }

    /** The low 64 bits of the little-endian unscaled value: the whole value when the precision is 18 or less. */
    static long lowLong(ValueVector v, int row) {
        BaseFixedWidthVector x = (BaseFixedWidthVector) v;
        return x.getDataBuffer().getLong((long) row * x.getTypeWidth());
    }

    /** The fewest bytes whose two's complement holds every unscaled value of this precision. */
    static int bytesFor(int precision) {
        BigInteger max = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE);
        return (max.bitLength() + 1 + 7) / 8;
    }

    static byte[] twosComplement(BigInteger unscaled, int width) {
        byte[] minimal = unscaled.toByteArray();
        byte[] out = new byte[width];
        byte fill = (byte) (unscaled.signum() < 0 ? 0xFF : 0);
        int pad = width - minimal.length;
        for (int i = 0; i < pad; i++) {
            out[i] = fill;
        }
        System.arraycopy(minimal, 0, out, pad, minimal.length);
        return out;
    }

    private Node timestamp(ArrowType.Timestamp ts, String name, int index, String path, Type.Repetition rep) {
        boolean utc = ts.getTimezone() != null && !ts.getTimezone().isEmpty();
        TimeUnit unit = ts.getUnit();
        if (timestamps.int96()) {
            // INT96 has no logical type: readers take it as a timestamp by convention (Spark, Hive, Impala, Athena, DuckDB).
            return new Node(Types.primitive(PrimitiveTypeName.INT96, rep).named(name), new ValueWriter(name, index) {
                @Override
                void writeValue(RecordConsumer rc, ValueVector v, int row) {
                    rc.addBinary(TimestampPolicy.int96(((TimeStampVector) v).get(row), unit, path));
                }
            });
        }
        Type type = Types.primitive(PrimitiveTypeName.INT64, rep)
                .as(LogicalTypeAnnotation.timestampType(utc, timestamps.parquetUnit(unit))).named(name);
        ValueWriter w;
        if (unit == TimeUnit.SECOND) {
            w = new ValueWriter(name, index) {
                @Override
                void writeValue(RecordConsumer rc, ValueVector v, int row) {
                    rc.addLong(TimestampPolicy.secondsAsMillis(((TimeStampVector) v).get(row)));
                }
            };
        } else if (timestamps.narrows(unit)) {
            w = new ValueWriter(name, index) {
                @Override
                void writeValue(RecordConsumer rc, ValueVector v, int row) {
                    rc.addLong(TimestampPolicy.nanosAsMicros(((TimeStampVector) v).get(row), path, row));
                }
            };
        } else {
            w = new ValueWriter(name, index) {
                @Override
                void writeValue(RecordConsumer rc, ValueVector v, int row) {
                    rc.addLong(((TimeStampVector) v).get(row));
                }
            };
        }
        return new Node(type, w);
    }

    private Node list(Field field, String name, int index, String path, Type.Repetition rep) {
        Field child = field.getChildren().get(0);
        Node element = node(child, "element", 0, path + ".element", false);
        GroupType repeated = Types.repeatedGroup().addField(element.type).named("list");
        Type type = Types.buildGroup(rep).as(LogicalTypeAnnotation.listType()).addField(repeated).named(name);
        ValueWriter elementWriter = element.writer;
        return new Node(type, new ValueWriter(name, index) {
            @Override
            void writeValue(RecordConsumer rc, ValueVector v, int row) {
                long start;
                long end;
                ValueVector data;
                if (v instanceof ListVector l) {
                    start = l.getElementStartIndex(row);
                    end = l.getElementEndIndex(row);
                    data = l.getDataVector();
                } else if (v instanceof LargeListVector l) {
                    start = l.getElementStartIndex(row);
                    end = l.getElementEndIndex(row);
                    data = l.getDataVector();
                } else {
                    FixedSizeListVector l = (FixedSizeListVector) v;
                    start = (long) row * l.getListSize();
                    end = start + l.getListSize();
                    data = l.getDataVector();
                }
                rc.startGroup();
                if (end > start) {
                    rc.startField("list", 0);
                    for (long j = start; j < end; j++) {
                        rc.startGroup();
                        elementWriter.writeField(rc, data, Math.toIntExact(j));
                        rc.endGroup();
                    }
                    rc.endField("list", 0);
                }
                rc.endGroup();
            }
        });
    }

    private Node map(Field field, String name, int index, String path, Type.Repetition rep) {
        Field entries = field.getChildren().get(0);
        Field keyField = entries.getChildren().get(0);
        Field valueField = entries.getChildren().get(1);
        Node key = node(keyField, "key", 0, path + ".key", true);
        Node value = node(valueField, "value", 1, path + ".value", false);
        GroupType repeated = Types.repeatedGroup().addField(key.type).addField(value.type).named("key_value");
        Type type = Types.buildGroup(rep).as(LogicalTypeAnnotation.mapType()).addField(repeated).named(name);
        ValueWriter keyWriter = key.writer;
        ValueWriter valueWriter = value.writer;
        return new Node(type, new ValueWriter(name, index) {
            @Override
            void writeValue(RecordConsumer rc, ValueVector v, int row) {
                MapVector m = (MapVector) v;
                int start = m.getElementStartIndex(row);
                int end = m.getElementEndIndex(row);
                StructVector kv = (StructVector) m.getDataVector();
                ValueVector keys = kv.getChildByOrdinal(0);
                ValueVector values = kv.getChildByOrdinal(1);
                rc.startGroup();
                if (end > start) {
                    rc.startField("key_value", 0);
                    for (int j = start; j < end; j++) {
                        if (keys.isNull(j)) {
                            throw new UnsupportedTypeException("column '" + path + "' has a null map key at row " + row
                                    + ": Parquet, Spark and Athena maps cannot hold null keys; drop or replace those entries");
                        }
                        rc.startGroup();
                        keyWriter.writeField(rc, keys, j);
                        valueWriter.writeField(rc, values, j);
                        rc.endGroup();
                    }
                    rc.endField("key_value", 0);
                }
                rc.endGroup();
            }
        });
    }

    private Node struct(Field field, String name, int index, String path, Type.Repetition rep) {
        if (field.getChildren().isEmpty()) {
            throw unsupported(path, "struct with no fields", "drop the column or give the struct at least one field (Parquet has no empty groups)");
        }
        List<Type> types = new ArrayList<>();
        List<ValueWriter> writers = new ArrayList<>();
        for (int i = 0; i < field.getChildren().size(); i++) {
            Field c = field.getChildren().get(i);
            Node n = node(c, c.getName(), i, path + "." + c.getName(), false);
            types.add(n.type);
            writers.add(n.writer);
        }
        Type type = new GroupType(rep, name, types);
        ValueWriter[] children = writers.toArray(new ValueWriter[0]);
        return new Node(type, new ValueWriter(name, index) {
            @Override
            void writeValue(RecordConsumer rc, ValueVector v, int row) {
                StructVector s = (StructVector) v;
                rc.startGroup();
                for (int i = 0; i < children.length; i++) {
                    children[i].writeField(rc, s.getChildByOrdinal(i), row);
                }
                rc.endGroup();
            }
        });
    }

    private static UnsupportedTypeException unsupported(String path, String type, String todo) {
        return new UnsupportedTypeException("column '" + path + "' has the Arrow type " + type
                + ", which has no faithful Parquet mapping that Athena, Spark and DuckDB read back: " + todo);
    }
}
