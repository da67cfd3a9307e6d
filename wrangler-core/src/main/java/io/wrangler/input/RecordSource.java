package io.wrangler.input;

import io.wrangler.Decimal;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
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
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Java records as Arrow batches, converted chunk by chunk.
 *
 * <p>Record components map to columns: String, enums and UUID to utf8; int, long, short, byte (and boxes)
 * to signed integers; double and float; boolean; BigDecimal to decimal(38, s) with s the largest scale
 * found in that column, or as declared by {@link io.wrangler.Decimal}; LocalDate to date; Instant to a UTC timestamp and LocalDateTime to a timestamp
 * without zone, both in microseconds; byte[] to binary; List to list; Map to map; a nested record to a
 * struct. Reference-typed components may be null.
 */
public final class RecordSource implements BatchSource {
    private static final int CHUNK = 65_536;
    private static final Instant MIN_MICROS = Instant.EPOCH.plus(Long.MIN_VALUE, ChronoUnit.MICROS);
    private static final Instant MAX_MICROS = Instant.EPOCH.plus(Long.MAX_VALUE, ChronoUnit.MICROS);

    private final List<? extends Record> records;
    private final BufferAllocator allocator;
    private final Schema schema;
    private final Setter[] setters;
    private final RecordComponent[] components;
    private final Method[] accessors;
    private VectorSchemaRoot current;
    private int offset;

    public RecordSource(Collection<? extends Record> records, BufferAllocator allocator) {
        int index = 0;
        for (Record r : records) {
            if (r == null) {
                throw new IllegalArgumentException("the record at index " + index + " of the collection is null: drop null "
                        + "records before writing (a null record has no values, not even nulls)");
            }
            index++;
        }
        this.records = List.copyOf(records);
        this.allocator = allocator;
        if (this.records.isEmpty()) {
            throw new IllegalArgumentException("the collection of records is empty, so it has no schema: "
                    + "skip the write, or pass an empty VectorSchemaRoot that carries the schema");
        }
        Class<?> type = this.records.get(0).getClass();
        for (Record r : this.records) {
            if (r.getClass() != type) {
                throw new IllegalArgumentException("the records are of different classes (" + type.getName() + " and "
                        + r.getClass().getName() + "): pass records of one class");
            }
        }
        this.components = type.getRecordComponents();
        if (components.length == 0) {
            throw new IllegalArgumentException("the record class " + type.getName() + " has no components, so the files would have "
                    + "no columns: write records with at least one component");
        }
        this.accessors = new Method[components.length];
        List<Integer> decimalComponents = new ArrayList<>();
        for (int i = 0; i < components.length; i++) {
            accessors[i] = accessor(components[i], this.records.get(0));
            if (mayHoldDecimal(components[i].getGenericType(), new HashSet<>())) {
                decimalComponents.add(i);
            }
        }
        // Only components that can hold a BigDecimal are scanned (one pass over the records each): a million records of
        // longs and strings cost no pass at all before the first row is encoded.
        Map<String, Integer> scales = new HashMap<>();
        for (Record r : this.records) {
            for (int i : decimalComponents) {
                scanScales(components[i].getName(), components[i].getGenericType(), read(accessors[i], components[i], r), scales);
            }
        }
        List<Field> fields = new ArrayList<>();
        this.setters = new Setter[components.length];
        for (int i = 0; i < components.length; i++) {
            Mapped m = map(components[i].getName(), components[i].getName(), components[i].getGenericType(), scales,
                    components[i].getAnnotation(Decimal.class));
            fields.add(m.field);
            setters[i] = m.setter;
        }
        this.schema = new Schema(fields);
    }

    private static Object read(RecordComponent c, Record r) {
        return read(accessor(c, r), c, r);
    }

    /** The component's accessor, made accessible once: records are often package-private or nested in a job class. */
    private static Method accessor(RecordComponent c, Record sample) {
        Method accessor = c.getAccessor();
        try {
            if (!accessor.canAccess(sample)) {
                accessor.setAccessible(true);
            }
            return accessor;
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("cannot read component '" + c.getName() + "' of " + sample.getClass().getName()
                    + ": make the record class public (or its accessors accessible)", e);
        }
    }

    private static Object read(Method accessor, RecordComponent c, Record r) {
        try {
            return accessor.invoke(r);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalArgumentException("cannot read component '" + c.getName() + "' of " + r.getClass().getName()
                    + ": make the record class public (or its accessors accessible)", e);
        }
    }

    /**
     * True when a value of this type can hold a BigDecimal where {@link #scanScales} looks (the type itself, list elements,
     * map keys and values, record components), and when unsure (a type variable or wildcard: the scan then reports it).
     */
    private static boolean mayHoldDecimal(Type t, Set<Class<?>> seen) {
        if (t instanceof ParameterizedType p) {
            for (Type a : p.getActualTypeArguments()) {
                if (mayHoldDecimal(a, seen)) {
                    return true;
                }
            }
            return p.getRawType() instanceof Class<?> c && c.isRecord();
        }
        if (!(t instanceof Class<?> c)) {
            return true;
        }
        if (c == BigDecimal.class || List.class.isAssignableFrom(c) || Map.class.isAssignableFrom(c)) {
            return true;   // a raw List or Map: the scan names the missing type arguments
        }
        if (c.isRecord() && seen.add(c)) {
            for (RecordComponent rc : c.getRecordComponents()) {
                if (mayHoldDecimal(rc.getGenericType(), seen)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The index of the first char of {@code s} that is half of a surrogate pair without its other half, or -1. */
    private static int unpairedSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public Schema schema() {
        return schema;
    }

    @Override
    public boolean next() {
        release();
        if (offset >= records.size()) {
            return false;
        }
        int end = Math.min(records.size(), offset + CHUNK);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        try {
            root.allocateNew();
            for (int i = offset; i < end; i++) {
                Record r = records.get(i);
                for (int c = 0; c < components.length; c++) {
                    setters[c].set(root.getVector(c), i - offset, read(accessors[c], components[c], r));
                }
            }
            root.setRowCount(end - offset);
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
        current = root;
        offset = end;
        return true;
    }

    @Override
    public VectorSchemaRoot current() {
        return current;
    }

    @Override
    public boolean replayable() {
        return true;
    }

    @Override
    public void rewind() {
        release();
        offset = 0;
    }

    private void release() {
        if (current != null) {
            current.close();
            current = null;
        }
    }

    @Override
    public void close() {
        release();
    }

    // ---- type mapping ----

    private interface Setter {
        void set(ValueVector v, int index, Object value);
    }

    private record Mapped(Field field, Setter setter) {
    }

    private static Class<?> raw(Type t, String path) {
        if (t instanceof Class<?> c) {
            return c;
        }
        if (t instanceof ParameterizedType p) {
            return (Class<?>) p.getRawType();
        }
        if (t instanceof TypeVariable<?> v) {
            throw new IllegalArgumentException("component '" + path + "' has the type variable " + v.getName() + " of "
                    + v.getGenericDeclaration() + ", whose class Java erases at run time, so the column type cannot be known: "
                    + "declare the component with a concrete type (String, Long, a record, ...)");
        }
        throw new IllegalArgumentException("component '" + path + "' has the type " + t.getTypeName() + ", whose class is not "
                + "known at run time, so the column type cannot be known: declare the component with a concrete type, such as "
                + "List<String> instead of List<? extends CharSequence>");
    }

    private static Type arg(Type t, int i, String path) {
        if (t instanceof ParameterizedType p) {
            return p.getActualTypeArguments()[i];
        }
        throw new IllegalArgumentException("component '" + path + "' is a raw " + raw(t, path).getSimpleName()
                + ": give it type arguments (List<String>, Map<String, Long>) so the column type is known");
    }

    private static void scanScales(String path, Type type, Object value, Map<String, Integer> scales) {
        if (value == null) {
            return;
        }
        Class<?> c = raw(type, path);
        if (c == BigDecimal.class) {
            scales.merge(path, Math.max(0, ((BigDecimal) value).scale()), Math::max);
        } else if (List.class.isAssignableFrom(c)) {
            for (Object e : (List<?>) value) {
                scanScales(path + ".element", arg(type, 0, path), e, scales);
            }
        } else if (Map.class.isAssignableFrom(c)) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                scanScales(path + ".key", arg(type, 0, path), e.getKey(), scales);
                scanScales(path + ".value", arg(type, 1, path), e.getValue(), scales);
            }
        } else if (c.isRecord()) {
            for (RecordComponent rc : c.getRecordComponents()) {
                scanScales(path + "." + rc.getName(), rc.getGenericType(), read(rc, (Record) value), scales);
            }
        }
    }

    private static Field leaf(String name, ArrowType type) {
        return new Field(name, FieldType.nullable(type), null);
    }

    private static Mapped map(String name, String path, Type type, Map<String, Integer> scales) {
        return map(name, path, type, scales, null);
    }

    private static Mapped map(String name, String path, Type type, Map<String, Integer> scales, Decimal declared) {
        Class<?> c = raw(type, path);
        if (c == String.class || c.isEnum() || c == UUID.class) {
            return new Mapped(leaf(name, ArrowType.Utf8.INSTANCE), (v, i, o) -> {
                if (o == null) {
                    ((VarCharVector) v).setNull(i);
                } else {
                    String s = o instanceof Enum<?> e ? e.name() : o.toString();
                    int bad = unpairedSurrogate(s);
                    if (bad >= 0) {
                        throw new IllegalArgumentException("component '" + path + "' holds a string with the unpaired surrogate U+"
                                + String.format("%04X", (int) s.charAt(bad)) + " at index " + bad + ", which UTF-8 cannot encode (it "
                                + "would be written as '?'): fix the string where it was cut or decoded");
                    }
                    ((VarCharVector) v).setSafe(i, s.getBytes(StandardCharsets.UTF_8));
                }
            });
        }
        if (c == int.class || c == Integer.class) {
            return new Mapped(leaf(name, new ArrowType.Int(32, true)), (v, i, o) -> {
                if (o == null) ((IntVector) v).setNull(i); else ((IntVector) v).setSafe(i, (Integer) o);
            });
        }
        if (c == long.class || c == Long.class) {
            return new Mapped(leaf(name, new ArrowType.Int(64, true)), (v, i, o) -> {
                if (o == null) ((BigIntVector) v).setNull(i); else ((BigIntVector) v).setSafe(i, (Long) o);
            });
        }
        if (c == short.class || c == Short.class) {
            return new Mapped(leaf(name, new ArrowType.Int(16, true)), (v, i, o) -> {
                if (o == null) ((SmallIntVector) v).setNull(i); else ((SmallIntVector) v).setSafe(i, (Short) o);
            });
        }
        if (c == byte.class || c == Byte.class) {
            return new Mapped(leaf(name, new ArrowType.Int(8, true)), (v, i, o) -> {
                if (o == null) ((TinyIntVector) v).setNull(i); else ((TinyIntVector) v).setSafe(i, (Byte) o);
            });
        }
        if (c == double.class || c == Double.class) {
            return new Mapped(leaf(name, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), (v, i, o) -> {
                if (o == null) ((Float8Vector) v).setNull(i); else ((Float8Vector) v).setSafe(i, (Double) o);
            });
        }
        if (c == float.class || c == Float.class) {
            return new Mapped(leaf(name, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), (v, i, o) -> {
                if (o == null) ((Float4Vector) v).setNull(i); else ((Float4Vector) v).setSafe(i, (Float) o);
            });
        }
        if (c == boolean.class || c == Boolean.class) {
            return new Mapped(leaf(name, ArrowType.Bool.INSTANCE), (v, i, o) -> {
                if (o == null) ((BitVector) v).setNull(i); else ((BitVector) v).setSafe(i, (Boolean) o ? 1 : 0);
            });
        }
        if (c == BigDecimal.class) {
            int precision = declared == null ? 38 : declared.precision();
            int scale = declared == null ? scales.getOrDefault(path, 0) : declared.scale();
            if (declared == null && scale > 38) {
                throw new IllegalArgumentException("component '" + path + "' holds a BigDecimal of scale " + scale
                        + ", more than the 38 digits a decimal column holds: round the values");
            }
            if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
                throw new IllegalArgumentException("component '" + path + "' is declared decimal(" + precision + "," + scale
                        + "): the precision must be 1 to 38 and the scale 0 to the precision");
            }
            return new Mapped(leaf(name, new ArrowType.Decimal(precision, scale, 128)), (v, i, o) -> {
                if (o == null) {
                    ((DecimalVector) v).setNull(i);
                    return;
                }
                BigDecimal d;
                try {
                    d = ((BigDecimal) o).setScale(scale, RoundingMode.UNNECESSARY);
                } catch (ArithmeticException e) {
                    throw new IllegalArgumentException("component '" + path + "' holds " + o + ", which has more than the "
                            + scale + " decimals of its column: round the values");
                }
                if (d.precision() > precision) {
                    throw new IllegalArgumentException("component '" + path + "' holds " + o
                            + ", which needs more than " + precision + " digits at scale " + scale + ": round the values or widen the column");
                }
                ((DecimalVector) v).setSafe(i, d);
            });
        }
        if (c == LocalDate.class) {
            return new Mapped(leaf(name, new ArrowType.Date(DateUnit.DAY)), (v, i, o) -> {
                if (o == null) {
                    ((DateDayVector) v).setNull(i);
                    return;
                }
                long day = ((LocalDate) o).toEpochDay();
                if (day != (int) day) {
                    throw new IllegalArgumentException("component '" + path + "' holds " + o + ", outside the dates a Parquet DATE "
                            + "holds (32-bit days from 1970-01-01: " + LocalDate.ofEpochDay(Integer.MIN_VALUE) + " to "
                            + LocalDate.ofEpochDay(Integer.MAX_VALUE) + "): use null, not LocalDate.MIN or MAX, for an unknown date");
                }
                ((DateDayVector) v).setSafe(i, (int) day);
            });
        }
        if (c == Instant.class || c == LocalDateTime.class) {
            boolean instant = c == Instant.class;
            return new Mapped(leaf(name, new ArrowType.Timestamp(TimeUnit.MICROSECOND, instant ? "UTC" : null)), (v, i, o) -> {
                if (o == null) {
                    ((TimeStampVector) v).setNull(i);
                    return;
                }
                Instant t = instant ? (Instant) o : ((LocalDateTime) o).toInstant(ZoneOffset.UTC);
                if (t.isBefore(MIN_MICROS) || t.isAfter(MAX_MICROS)) {
                    throw new IllegalArgumentException("component '" + path + "' holds " + o + ", outside the instants a "
                            + "microsecond timestamp holds (64-bit microseconds from 1970: " + MIN_MICROS + " to " + MAX_MICROS
                            + "): use null, not Instant.MIN or MAX, for an unknown time");
                }
                if (t.getNano() % 1000 != 0) {
                    throw new IllegalArgumentException("component '" + path + "' holds " + o
                            + ", finer than the microseconds a Parquet timestamp that Spark and Athena read holds: truncate it to microseconds");
                }
                long micros = Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
                ((TimeStampVector) v).setSafe(i, micros);
            });
        }
        if (c == byte[].class) {
            return new Mapped(leaf(name, ArrowType.Binary.INSTANCE), (v, i, o) -> {
                if (o == null) ((VarBinaryVector) v).setNull(i); else ((VarBinaryVector) v).setSafe(i, (byte[]) o);
            });
        }
        if (List.class.isAssignableFrom(c)) {
            Mapped element = map("element", path + ".element", arg(type, 0, path), scales);
            Field field = new Field(name, FieldType.nullable(ArrowType.List.INSTANCE), List.of(element.field));
            Setter es = element.setter;
            return new Mapped(field, (v, i, o) -> {
                ListVector l = (ListVector) v;
                if (o == null) {
                    l.setNull(i);
                    return;
                }
                List<?> list = (List<?>) o;
                int start = l.startNewValue(i);
                for (int j = 0; j < list.size(); j++) {
                    es.set(l.getDataVector(), start + j, list.get(j));
                }
                l.endValue(i, list.size());
            });
        }
        if (Map.class.isAssignableFrom(c)) {
            Mapped key = map("key", path + ".key", arg(type, 0, path), scales);
            Mapped value = map("value", path + ".value", arg(type, 1, path), scales);
            Field keyField = new Field("key", FieldType.notNullable(key.field.getType()), key.field.getChildren());
            Field entries = new Field("entries", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(keyField, value.field));
            Field field = new Field(name, FieldType.nullable(new ArrowType.Map(false)), List.of(entries));
            Setter ks = key.setter;
            Setter vs = value.setter;
            return new Mapped(field, (v, i, o) -> {
                MapVector m = (MapVector) v;
                if (o == null) {
                    m.setNull(i);
                    return;
                }
                Map<?, ?> map = (Map<?, ?>) o;
                int start = m.startNewValue(i);
                StructVector kv = (StructVector) m.getDataVector();
                Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
                for (int j = 0; it.hasNext(); j++) {
                    Map.Entry<?, ?> e = it.next();
                    if (e.getKey() == null) {
                        throw new IllegalArgumentException("component '" + path + "' has a null map key: maps cannot hold null keys");
                    }
                    kv.setIndexDefined(start + j);
                    ks.set(kv.getChildByOrdinal(0), start + j, e.getKey());
                    vs.set(kv.getChildByOrdinal(1), start + j, e.getValue());
                }
                m.endValue(i, map.size());
            });
        }
        if (c.isRecord()) {
            RecordComponent[] rcs = c.getRecordComponents();
            List<Field> children = new ArrayList<>();
            Setter[] childSetters = new Setter[rcs.length];
            for (int k = 0; k < rcs.length; k++) {
                Mapped m = map(rcs[k].getName(), path + "." + rcs[k].getName(), rcs[k].getGenericType(), scales,
                        rcs[k].getAnnotation(Decimal.class));
                children.add(m.field);
                childSetters[k] = m.setter;
            }
            Field field = new Field(name, FieldType.nullable(ArrowType.Struct.INSTANCE), children);
            return new Mapped(field, (v, i, o) -> {
                StructVector s = (StructVector) v;
                if (o == null) {
                    s.setNull(i);
                    return;
                }
                s.setIndexDefined(i);
                for (int k = 0; k < rcs.length; k++) {
                    childSetters[k].set(s.getChildByOrdinal(k), i, read(rcs[k], (Record) o));
                }
            });
        }
        if (c.isArray()) {
            throw new IllegalArgumentException("component '" + path + "' is an array of " + c.getComponentType().getSimpleName()
                    + ": use a List instead (only byte[] maps to a column, as binary)");
        }
        throw new IllegalArgumentException("component '" + path + "' has the type " + c.getName()
                + ", which wrangler does not map to a column: use String, a primitive or its box, BigDecimal, LocalDate, "
                + "Instant, LocalDateTime, byte[], UUID, an enum, List, Map or a record");
    }
}
