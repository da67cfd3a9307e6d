package io.wrangler.read;

import io.wrangler.ReadException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
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
 * RecordRows turns the batches of a read into Java records, the mirror of {@code RecordSource}: each record component
 * takes the column of its name (exactly, else the one column of its name ignoring case: Glue lowercases names), at
 * every depth (a nested record's components take its struct's fields). A column becomes a component's type only
 * without loss: String, enums and UUID from utf8; an integer component from integers it holds every value of
 * (signed or unsigned); float and double from floats and from integers they hold exactly; BigDecimal from decimals and
 * integers; boolean from bool; LocalDate from date; Instant from a timestamp with a zone, LocalDateTime from one
 * without; byte[] from binary; List, Map and records from lists, maps and structs. Everything is checked by
 * {@link #select} before any row is read; a null into a primitive component fails at its row.
 */
public final class RecordRows<R extends Record> {
    private final Class<R> type;
    private final String table;
    private final RecordComponent[] components;
    private final Constructor<R> constructor;
    /** The column of each component, once {@link #select} has run. */
    private String[] columns;
    private Conv[] convs;
    private long rowsRead;

    public RecordRows(Class<R> type, String table) {
        this.type = type;
        this.table = table;
        if (!type.isRecord()) {
            throw refused("the class " + type.getName() + " is not a record. Pass a record class (record Order(String orderid, "
                    + "long amountcents) {}), or read the batches with open()");
        }
        this.components = type.getRecordComponents();
        this.constructor = constructor(type);
    }

    @SuppressWarnings("unchecked")
    private Constructor<R> constructor(Class<?> c) {
        RecordComponent[] rcs = c.getRecordComponents();
        Class<?>[] params = new Class<?>[rcs.length];
        for (int i = 0; i < rcs.length; i++) {
            params[i] = rcs[i].getType();
        }
        try {
            Constructor<?> k = c.getDeclaredConstructor(params);
            k.setAccessible(true); // records are often package-private or nested in a job's class
            return (Constructor<R>) k;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw refused("the canonical constructor of the record " + c.getName() + " cannot be called (" + e + "). Make the record "
                    + "accessible (public, or its module open to io.wrangler)");
        }
    }

    /**
     * The Arrow type a partition column that no catalog types is restored as, for the component of its name: the folder
     * names parsed as the component's type (a String keeps the folder's text, an int must fit an int), or null (inferred
     * from the folder names).
     */
    public Field partitionType(String column) {
        RecordComponent c = component(column);
        if (c == null) {
            return null;
        }
        Class<?> t = box(c.getType());
        ArrowType a = t == String.class || t.isEnum() || t == UUID.class ? ArrowType.Utf8.INSTANCE
                : t == Integer.class ? new ArrowType.Int(32, true)
                : t == Long.class ? new ArrowType.Int(64, true)
                : t == Short.class ? new ArrowType.Int(16, true)
                : t == Byte.class ? new ArrowType.Int(8, true)
                : t == Double.class ? new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)
                : t == Float.class ? new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)
                : t == Boolean.class ? ArrowType.Bool.INSTANCE
                : t == LocalDate.class ? new ArrowType.Date(DateUnit.DAY)
                : t == LocalDateTime.class ? new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)
                : t == Instant.class ? new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")
                : null;
        return a == null ? null : new Field(column, FieldType.nullable(a), null);
    }

    /** The component a partition column would feed: of its name exactly, else ignoring case when only one matches. */
    private RecordComponent component(String column) {
        RecordComponent loose = null;
        int looseCount = 0;
        for (RecordComponent c : components) {
            if (c.getName().equals(column)) {
                return c;
            }
            if (c.getName().equalsIgnoreCase(column)) {
                loose = c;
                looseCount++;
            }
        }
        return looseCount == 1 ? loose : null;
    }

    /**
     * The columns of {@code schema} (the read's columns) the components take, in component order, after checking that
     * each component has its column and can hold its every value.
     *
     * @throws ReadException a component has no column, or one it cannot hold without loss
     */
    public List<String> select(Schema schema) {
        List<Field> fields = schema.getFields();
        columns = new String[components.length];
        convs = new Conv[components.length];
        for (int i = 0; i < components.length; i++) {
            RecordComponent c = components[i];
            Field f = match(fields, c.getName());
            if (f == null) {
                throw refused("the component " + describe(c) + " of " + type.getSimpleName() + " has no column: the read's columns "
                        + "are " + fields.stream().map(Field::getName).toList() + ". Name the component as its column (case does not "
                        + "matter), or leave it out of the record");
            }
            columns[i] = f.getName();
            convs[i] = conv(c.getGenericType(), f, describe(c), f.getName());
        }
        return List.of(columns).stream().distinct().toList(); // two components may take one column
    }

    /** The field named {@code name}: exactly, else the only one of that name ignoring case. */
    private Field match(List<Field> fields, String name) {
        List<Field> loose = new ArrayList<>();
        for (Field f : fields) {
            if (f.getName().equals(name)) {
                return f;
            }
            if (f.getName().equalsIgnoreCase(name)) {
                loose.add(f);
            }
        }
        if (loose.size() > 1) {
            throw refused("the component '" + name + "' of " + type.getSimpleName() + " matches the columns "
                    + loose.stream().map(Field::getName).toList() + ", which differ only in case. Name the component exactly as one of them");
        }
        return loose.isEmpty() ? null : loose.get(0);
    }

    /** Appends the rows of {@code batch} (the columns {@link #select} chose) to {@code out} as records. */
    public void read(VectorSchemaRoot batch, List<R> out) {
        Get[] gets = new Get[components.length];
        boolean[] primitive = new boolean[components.length];
        for (int i = 0; i < components.length; i++) {
            gets[i] = convs[i].bind(batch.getVector(columns[i]));
            primitive[i] = components[i].getType().isPrimitive();
        }
        int n = batch.getRowCount();
        Object[] args = new Object[components.length];
        for (int row = 0; row < n; row++) {
            rowsRead++;
            for (int i = 0; i < components.length; i++) {
                Object v = gets[i].get(row);
                if (v == null && primitive[i]) {
                    throw new ReadException(table, "Cannot read " + table + " (step: toList): row " + rowsRead + " of the read has null in "
                            + "the column '" + columns[i] + "', which the component " + describe(components[i]) + " of "
                            + type.getSimpleName() + " cannot hold. Declare it as " + box(components[i].getType()).getSimpleName()
                            + ", or filter the rows out.", null);
                }
                args[i] = v;
            }
            out.add(construct(constructor, args));
        }
    }

    private <T> T construct(Constructor<T> k, Object[] args) {
        try {
            return k.newInstance(args);
        } catch (InvocationTargetException e) {
            throw new ReadException(table, "Cannot read " + table + " (step: toList): the constructor of " + k.getDeclaringClass().getSimpleName()
                    + " refused row " + rowsRead + " of the read: " + e.getCause() + ". Relax the record's checks, or filter the rows out.",
                    e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the constructor of " + k.getDeclaringClass().getName() + " could not be called: " + e, e);
        }
    }

    // ---- conversions ----

    /** The value of a row of the vector it was bound to, as the component's type; null for a null. */
    private interface Get {
        Object get(int row);
    }

    /** How a column becomes a component: bound to each batch's vector. */
    private interface Conv {
        Get bind(ValueVector v);
    }

    private static String describe(RecordComponent c) {
        return c.getGenericType().getTypeName().replaceAll("[\\w.]+\\.(\\w+)", "$1").replace('$', '.') + " " + c.getName();
    }

    private static Class<?> raw(Type t) {
        if (t instanceof Class<?> c) {
            return c;
        }
        if (t instanceof ParameterizedType p && p.getRawType() instanceof Class<?> c) {
            return c;
        }
        return null;
    }

    private static Class<?> box(Class<?> c) {
        if (!c.isPrimitive()) {
            return c;
        }
        return c == int.class ? Integer.class : c == long.class ? Long.class : c == short.class ? Short.class : c == byte.class ? Byte.class
                : c == double.class ? Double.class : c == float.class ? Float.class : c == boolean.class ? Boolean.class : c;
    }

    /**
     * The conversion of {@code field} into {@code javaType}, or a refusal naming the component ({@code component}) and the
     * column ({@code column}, a path below the top-level column for nested fields).
     */
    private Conv conv(Type javaType, Field field, String component, String column) {
        Class<?> c = raw(javaType);
        ArrowType a = field.getType();
        Conv conv = c == null ? null : leaf(box(c), a);
        if (conv == null && c != null) {
            conv = nested(javaType, c, field, component, column);
        }
        if (conv == null) {
            throw refused("the component " + component + " of " + type.getSimpleName() + " cannot hold the column '" + column + "' ("
                    + describe(field) + ") without loss. Declare it as " + suggest(field) + ", or leave the column out of the record");
        }
        return conv;
    }

    /** Conversions of flat columns, or null. */
    private Conv leaf(Class<?> c, ArrowType a) {
        if (a instanceof ArrowType.Int i) {
            return integer(c, i);
        }
        if (a instanceof ArrowType.FloatingPoint f) {
            boolean single = f.getPrecision() == FloatingPointPrecision.SINGLE;
            if (c == Float.class && single) {
                return v -> row -> v.isNull(row) ? null : ((Float4Vector) v).get(row);
            }
            if (c == Double.class && f.getPrecision() != FloatingPointPrecision.HALF) {
                return v -> row -> v.isNull(row) ? null : single ? (double) ((Float4Vector) v).get(row) : ((Float8Vector) v).get(row);
            }
            return null;
        }
        if (a instanceof ArrowType.Bool) {
            return c == Boolean.class ? v -> row -> v.isNull(row) ? null : ((BitVector) v).get(row) == 1 : null;
        }
        if (a instanceof ArrowType.Utf8) {
            if (c == String.class) {
                return v -> row -> v.isNull(row) ? null : text(v, row);
            }
            if (c == UUID.class || c.isEnum()) {
                return v -> row -> v.isNull(row) ? null : parse(c, text(v, row), v.getName(), row);
            }
            return null;
        }
        if (a instanceof ArrowType.Decimal) {
            return c == BigDecimal.class ? v -> row -> v.isNull(row) ? null : ((DecimalVector) v).getObject(row) : null;
        }
        if (a instanceof ArrowType.Date d) {
            if (c != LocalDate.class) {
                return null;
            }
            return d.getUnit() == DateUnit.DAY
                    ? v -> row -> v.isNull(row) ? null : LocalDate.ofEpochDay(((DateDayVector) v).get(row))
                    : v -> row -> v.isNull(row) ? null : LocalDate.ofEpochDay(Math.floorDiv(((DateMilliVector) v).get(row), 86_400_000L));
        }
        if (a instanceof ArrowType.Timestamp t) {
            return timestamp(c, t);
        }
        if (a instanceof ArrowType.Binary) {
            return c == byte[].class ? v -> row -> v.isNull(row) ? null : ((VarBinaryVector) v).get(row) : null;
        }
        if (a instanceof ArrowType.FixedSizeBinary) {
            return c == byte[].class ? v -> row -> v.isNull(row) ? null : ((FixedSizeBinaryVector) v).get(row) : null;
        }
        return null;
    }

    /** Conversions of an integer column into {@code c}, or null when {@code c} cannot hold every value. */
    private static Conv integer(Class<?> c, ArrowType.Int i) {
        int bits = i.getBitWidth();
        boolean signed = i.getIsSigned();
        // the least signed width that holds every value of the column
        int need = signed ? bits : bits * 2;
        boolean fits = c == Byte.class ? need <= 8 : c == Short.class ? need <= 16 : c == Integer.class ? need <= 32
                : c == Long.class ? need <= 64 : c == Float.class ? bits <= 16 : c == Double.class ? bits <= 32 : c == BigDecimal.class;
        if (!fits) {
            return null;
        }
        return v -> {
            if (v instanceof UInt8Vector u) {
                return row -> u.isNull(row) ? null : new BigDecimal(u.getObjectNoOverflow(row));
            }
            Get longs = unsignedOrSigned(v);
            return row -> {
                Object o = longs.get(row);
                if (o == null) {
                    return null;
                }
                long l = (Long) o;
                return c == Byte.class ? (Object) (byte) l : c == Short.class ? (Object) (short) l : c == Integer.class ? (Object) (int) l
                        : c == Long.class ? (Object) l : c == Float.class ? (Object) (float) l : c == Double.class ? (Object) (double) l
                        : BigDecimal.valueOf(l);
            };
        };
    }

    /** Conversions of a timestamp column into {@code c} (Instant when zoned, LocalDateTime when not), or null. */
    private static Conv timestamp(Class<?> c, ArrowType.Timestamp t) {
        boolean zoned = t.getTimezone() != null;
        if (zoned ? c != Instant.class : c != LocalDateTime.class) {
            return null;
        }
        long perSecond = switch (t.getUnit()) {
            case SECOND -> 1;
            case MILLISECOND -> 1_000;
            case MICROSECOND -> 1_000_000;
            case NANOSECOND -> 1_000_000_000;
        };
        long nanosPer = 1_000_000_000L / perSecond;
        return v -> row -> {
            if (v.isNull(row)) {
                return null;
            }
            long x = ((TimeStampVector) v).get(row);
            Instant i = Instant.ofEpochSecond(Math.floorDiv(x, perSecond), Math.floorMod(x, perSecond) * nanosPer);
            return zoned ? i : LocalDateTime.ofInstant(i, ZoneOffset.UTC);
        };
    }

    /** Integers of any width and sign as longs (UInt8 excepted). */
    private static Get unsignedOrSigned(ValueVector v) {
        if (v instanceof UInt1Vector u) {
            return row -> u.isNull(row) ? null : (long) u.getObjectNoOverflow(row);
        }
        if (v instanceof UInt2Vector u) {
            return row -> u.isNull(row) ? null : (long) u.get(row);
        }
        if (v instanceof UInt4Vector u) {
            return row -> u.isNull(row) ? null : u.getObjectNoOverflow(row);
        }
        BaseIntVector b = (BaseIntVector) v;
        return row -> v.isNull(row) ? null : b.getValueAsLong(row);
    }

    private static String text(ValueVector v, int row) {
        if (v instanceof VarCharVector s) {
            return new String(s.get(row), StandardCharsets.UTF_8);
        }
        return String.valueOf(v.getObject(row));
    }

    private Object parse(Class<?> c, String s, String column, int row) {
        try {
            if (c == UUID.class) {
                return UUID.fromString(s);
            }
            for (Object k : c.getEnumConstants()) {
                if (((Enum<?>) k).name().equals(s)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("not a constant of " + c.getSimpleName());
        } catch (IllegalArgumentException e) {
            throw new ReadException(table, "Cannot read " + table + " (step: toList): the column '" + column + "' holds '" + s + "' in row "
                    + rowsRead + " of the read, which is not a " + c.getSimpleName() + " (" + e.getMessage() + "). Declare the "
                    + "component as String, or fix the value.", e);
        }
    }

    /** Lists, maps and records, or null. */
    private Conv nested(Type javaType, Class<?> c, Field field, String component, String column) {
        ArrowType a = field.getType();
        if (a instanceof ArrowType.List && c.isAssignableFrom(List.class) && javaType instanceof ParameterizedType p) {
            return list(p, field, component, column);
        }
        if (a instanceof ArrowType.Map && c.isAssignableFrom(Map.class) && javaType instanceof ParameterizedType p) {
            return map(p, field, component, column);
        }
        if (a instanceof ArrowType.Struct && c.isRecord()) {
            return record(c, field, component, column);
        }
        return null;
    }

    /** Conversions of a list column into a {@code List} of {@code p}'s element type. */
    private Conv list(ParameterizedType p, Field field, String component, String column) {
        Conv element = conv(p.getActualTypeArguments()[0], field.getChildren().get(0), component, column + ".element");
        return v -> {
            ListVector l = (ListVector) v;
            Get e = element.bind(l.getDataVector());
            return row -> {
                if (l.isNull(row)) {
                    return null;
                }
                int end = l.getElementEndIndex(row);
                List<Object> out = new ArrayList<>(end - l.getElementStartIndex(row));
                for (int j = l.getElementStartIndex(row); j < end; j++) {
                    out.add(e.get(j));
                }
                return Collections.unmodifiableList(out);
            };
        };
    }

    /** Conversions of a map column into a {@code Map} of {@code p}'s key and value types. */
    private Conv map(ParameterizedType p, Field field, String component, String column) {
        Field entries = field.getChildren().get(0);
        Conv key = conv(p.getActualTypeArguments()[0], entries.getChildren().get(0), component, column + ".key");
        Conv value = conv(p.getActualTypeArguments()[1], entries.getChildren().get(1), component, column + ".value");
        return v -> {
            MapVector m = (MapVector) v;
            StructVector kv = (StructVector) m.getDataVector();
            Get k = key.bind(kv.getChildByOrdinal(0));
            Get x = value.bind(kv.getChildByOrdinal(1));
            return row -> {
                if (m.isNull(row)) {
                    return null;
                }
                Map<Object, Object> out = new LinkedHashMap<>();
                for (int j = m.getElementStartIndex(row); j < m.getElementEndIndex(row); j++) {
                    out.put(k.get(j), x.get(j));
                }
                return Collections.unmodifiableMap(out);
            };
        };
    }

    /** Conversions of a struct column into the record {@code c}, its components matched to the struct's fields by name. */
    private Conv record(Class<?> c, Field field, String component, String column) {
        RecordComponent[] rcs = c.getRecordComponents();
        Constructor<?> k = constructor(c);
        String[] names = new String[rcs.length];
        Conv[] children = new Conv[rcs.length];
        for (int i = 0; i < rcs.length; i++) {
            Field f = match(field.getChildren(), rcs[i].getName());
            if (f == null) {
                throw refused("the component " + describe(rcs[i]) + " of " + c.getSimpleName() + " (in " + component + ") has no field "
                        + "in the column '" + column + "' (" + describe(field) + "). Name the component as its field, or leave it out of "
                        + "the record");
            }
            names[i] = f.getName();
            children[i] = conv(rcs[i].getGenericType(), f, describe(rcs[i]) + " of " + c.getSimpleName(), column + "." + f.getName());
        }
        return v -> {
            StructVector s = (StructVector) v;
            Get[] gets = new Get[rcs.length];
            for (int i = 0; i < rcs.length; i++) {
                gets[i] = children[i].bind(s.getChild(names[i]));
            }
            return row -> {
                if (s.isNull(row)) {
                    return null;
                }
                Object[] args = new Object[rcs.length];
                for (int i = 0; i < rcs.length; i++) {
                    args[i] = gets[i].get(row);
                    if (args[i] == null && rcs[i].getType().isPrimitive()) {
                        throw new ReadException(table, "Cannot read " + table + " (step: toList): row " + (rowsRead) + " of the read has "
                                + "null in the column '" + column + "." + names[i] + "', which the component " + describe(rcs[i]) + " of "
                                + c.getSimpleName() + " cannot hold. Declare it as " + box(rcs[i].getType()).getSimpleName()
                                + ", or filter the rows out.", null);
                    }
                }
                return construct(k, args);
            };
        };
    }

    private static String describe(Field f) {
        return f.getType() + (f.getChildren().isEmpty() ? "" : " " + f.getChildren());
    }

    /** The Java type that holds every value of {@code f}. */
    private static String suggest(Field f) {
        ArrowType a = f.getType();
        if (a instanceof ArrowType.Int i) {
            int need = i.getIsSigned() ? i.getBitWidth() : i.getBitWidth() * 2;
            return need <= 8 ? "byte" : need <= 16 ? "short" : need <= 32 ? "int" : need <= 64 ? "long" : "BigDecimal";
        }
        if (a instanceof ArrowType.FloatingPoint p) {
            return p.getPrecision() == FloatingPointPrecision.SINGLE ? "float" : "double";
        }
        if (a instanceof ArrowType.Timestamp t) {
            return t.getTimezone() != null ? "Instant" : "LocalDateTime";
        }
        if (a instanceof ArrowType.List) {
            return "List<" + boxed(suggest(f.getChildren().get(0))) + ">";
        }
        if (a instanceof ArrowType.Map) {
            List<Field> kv = f.getChildren().get(0).getChildren();
            return "Map<" + boxed(suggest(kv.get(0))) + ", " + boxed(suggest(kv.get(1))) + ">";
        }
        return a instanceof ArrowType.Utf8 ? "String" : a instanceof ArrowType.Bool ? "boolean" : a instanceof ArrowType.Decimal ? "BigDecimal"
                : a instanceof ArrowType.Date ? "LocalDate" : a instanceof ArrowType.Binary || a instanceof ArrowType.FixedSizeBinary ? "byte[]"
                : a instanceof ArrowType.Struct ? "a record of its fields" : "a type wrangler maps (see docs/reading.md)";
    }

    private static String boxed(String java) {
        return switch (java) {
            case "byte" -> "Byte";
            case "short" -> "Short";
            case "int" -> "Integer";
            case "long" -> "Long";
            case "float" -> "Float";
            case "double" -> "Double";
            case "boolean" -> "Boolean";
            default -> java;
        };
    }

    private ReadException refused(String what) {
        return new ReadException(table, "Cannot read " + table + " (step: validate): " + what + ". Nothing was read.", null);
    }
}
