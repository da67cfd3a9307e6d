package io.wrangler.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructType;

/**
 * RowsToArrow copies Spark's internal rows into the vectors of a root whose schema {@link SparkSchemas#arrow} made from
 * the rows' schema: Spark's own representations carry over unchanged (dates as days, timestamps as microseconds,
 * decimals as unscaled values at their scale, strings as UTF-8 bytes). One per task; not thread-safe.
 */
final class RowsToArrow {
    private final VectorSchemaRoot root;
    private final Writer[] writers;
    private int rows;

    RowsToArrow(VectorSchemaRoot root, StructType schema) {
        this.root = root;
        this.writers = new Writer[schema.fields().length];
        for (int i = 0; i < writers.length; i++) {
            writers[i] = writer(root.getVector(i), schema.fields()[i].dataType());
        }
    }

    /** Starts a new batch in the root (its buffers reused). */
    void reset() {
        root.allocateNew();
        rows = 0;
    }

    void add(InternalRow row) {
        for (int i = 0; i < writers.length; i++) {
            writers[i].write(row, i, rows);
        }
        rows++;
    }

    int rows() {
        return rows;
    }

    /** Ends the batch: the root then holds the rows added since {@link #reset}. */
    VectorSchemaRoot finish() {
        root.setRowCount(rows);
        return root;
    }

    /** Writes the value at {@code ordinal} of a row, array or struct into a vector at {@code index}. */
    private abstract static class Writer {
        final FieldVector vector;

        Writer(FieldVector vector) {
            this.vector = vector;
        }

        final void write(SpecializedGetters from, int ordinal, int index) {
            if (from.isNullAt(ordinal)) {
                writeNull(index);
            } else {
                writeValue(from, ordinal, index);
            }
        }

        abstract void writeValue(SpecializedGetters from, int ordinal, int index);

        void writeNull(int index) {
            if (vector instanceof BaseFixedWidthVector v) {
                v.setNull(index);
            } else if (vector instanceof BaseVariableWidthVector v) {
                v.setNull(index);
            } else if (vector instanceof ListVector v) {
                v.setNull(index);
            } else if (vector instanceof StructVector v) {
                v.setNull(index);
            }
        }
    }

    private static Writer writer(FieldVector vector, DataType type) {
        if (vector instanceof BitVector v) {
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    v.setSafe(i, from.getBoolean(o) ? 1 : 0);
                }
            };
        }
        if (vector instanceof TinyIntVector v) {
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    v.setSafe(i, from.getByte(o));
                }
            };
        }
        if (vector instanceof SmallIntVector v) {
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    v.setSafe(i, from.getShort(o));
                }
            };
        }
        if (vector instanceof IntVector v) {
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    v.setSafe(i, from.getInt(o));
                }
            };
        }
        if (vector instanceof BigIntVector v) {
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    v.setSafe(i, from.getLong(o));
                }
            };
        }
        if (vector instanceof Float4Vector v) {
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    v.setSafe(i, from.getFloat(o));
                }
            };
        }
        if (vector instanceof Float8Vector v) {
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    v.setSafe(i, from.getDouble(o));
                }
            };
        }
        if (vector instanceof DateDayVector v) {
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    v.setSafe(i, from.getInt(o));
                }
            };
        }
        if (vector instanceof TimeStampVector v) {
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    v.setSafe(i, from.getLong(o));
                }
            };
        }
        if (vector instanceof DecimalVector v) {
            DecimalType d = (DecimalType) type;
            int precision = d.precision();
            int scale = d.scale();
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    Decimal value = from.getDecimal(o, precision, scale);
                    if (precision <= 18) {
                        v.setSafe(i, value.toUnscaledLong());
                    } else {
                        v.setSafe(i, value.toJavaBigDecimal().setScale(scale));
                    }
                }
            };
        }
        if (vector instanceof VarCharVector v) {
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    v.setSafe(i, from.getUTF8String(o).getBytes());
                }
            };
        }
        if (vector instanceof VarBinaryVector v) {
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    v.setSafe(i, from.getBinary(o));
                }
            };
        }
        if (vector instanceof MapVector v) {
            MapType m = (MapType) type;
            StructVector entries = (StructVector) v.getDataVector();
            Writer keys = writer(entries.getChildrenFromFields().get(0), m.keyType());
            Writer values = writer(entries.getChildrenFromFields().get(1), m.valueType());
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    MapData map = from.getMap(o);
                    ArrayData k = map.keyArray();
                    ArrayData val = map.valueArray();
                    int start = v.startNewValue(i);
                    int n = map.numElements();
                    for (int j = 0; j < n; j++) {
                        entries.setIndexDefined(start + j);
                        keys.write(k, j, start + j);
                        values.write(val, j, start + j);
                    }
                    v.endValue(i, n);
                }
            };
        }
        if (vector instanceof ListVector v) {
            Writer element = writer(v.getDataVector(), ((ArrayType) type).elementType());
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    ArrayData a = from.getArray(o);
                    int start = v.startNewValue(i);
                    int n = a.numElements();
                    for (int j = 0; j < n; j++) {
                        element.write(a, j, start + j);
                    }
                    v.endValue(i, n);
                }
            };
        }
        if (vector instanceof StructVector v) {
            StructType s = (StructType) type;
            List<Writer> children = new ArrayList<>();
            for (int c = 0; c < s.fields().length; c++) {
                children.add(writer(v.getChildrenFromFields().get(c), s.fields()[c].dataType()));
            }
            int width = s.fields().length;
            return new Writer(v) {
                void writeValue(SpecializedGetters from, int o, int i) {
                    InternalRow struct = from.getStruct(o, width);
                    v.setIndexDefined(i);
                    for (int c = 0; c < width; c++) {
                        children.get(c).write(struct, c, i);
                    }
                }

                @Override
                void writeNull(int index) {
                    v.setNull(index);
                    for (Writer c : children) {
                        c.writeNull(index);
                    }
                }
            };
        }
        throw new IllegalStateException("no writer for the vector " + vector.getField());
    }
}
