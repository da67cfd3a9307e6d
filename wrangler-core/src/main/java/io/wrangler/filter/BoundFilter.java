package io.wrangler.filter;

import io.wrangler.InvalidReadException;
import io.wrangler.RowFilter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A BoundFilter is a {@link RowFilter} checked against a table's columns: each column resolved to the table's spelling
 * and type, each literal converted to the column's domain ({@link Kind}). It answers two questions: what statistics say
 * of a set of rows ({@link #verdict}, {@code rowGroup}: none, all or some pass) and which rows of a decoded batch pass
 * ({@link #matches}, {@link #select}), with SQL's three-valued logic (a row passes when the filter is true, not when it
 * is false or unknown). Immutable and thread-safe.
 */
public final class BoundFilter {
    /** Per row: the filter is false, true, or unknown (a null met). */
    static final byte FALSE = 0;
    static final byte TRUE = 1;
    static final byte UNKNOWN = 2;

    private final RowFilter filter;
    private final Node root;
    private final Map<String, Field> columns;

    private BoundFilter(RowFilter filter, Node root, Map<String, Field> columns) {
        this.filter = filter;
        this.root = root;
        this.columns = columns;
    }

    /**
     * Checks {@code filter} against the table's columns (data and partition columns, as a read types them): every column
     * it names must be one of them (exactly, else ignoring case) of a type a filter compares, and every literal must suit
     * its column's type ({@link RowFilter}'s class comment).
     *
     * @param table the table's URI or name, for messages
     * @throws InvalidReadException naming the table, the column and what to change
     */
    public static BoundFilter bind(String table, RowFilter filter, List<Field> tableColumns) {
        Map<String, Field> used = new LinkedHashMap<>();
        Node root = bind(table, filter, tableColumns, used);
        return new BoundFilter(filter, root, Collections.unmodifiableMap(used));
    }

    /** The filter this was bound from. */
    public RowFilter filter() {
        return filter;
    }

    /** The table's columns the filter reads, spelled as the table spells them, with their types. */
    public Map<String, Field> columns() {
        return columns;
    }

    // ---- binding ----

    private sealed interface Node permits Leaf, Combine {
    }

    private record Leaf(RowFilter.Op op, String column, Kind kind, List<Object> literals) implements Node {
    }

    private record Combine(RowFilter.Op op, List<Node> children) implements Node {
    }

    private static Node bind(String table, RowFilter f, List<Field> tableColumns, Map<String, Field> used) {
        switch (f.op()) {
            case AND, OR, NOT -> {
                List<Node> children = new ArrayList<>();
                for (RowFilter c : f.children()) {
                    children.add(bind(table, c, tableColumns, used));
                }
                return new Combine(f.op(), List.copyOf(children));
            }
            default -> {
                Field field = find(tableColumns, f.column());
                if (field == null) {
                    throw new InvalidReadException(table, "Cannot read " + table + " (step: validate): the row filter " + f + " names the column '"
                            + f.column() + "', which the table does not have; its columns are "
                            + tableColumns.stream().map(Field::getName).toList() + ". Filter on a column of the table.");
                }
                ArrowType type = field.getType();
                Kind kind = Kind.of(type);
                if (kind == null) {
                    throw new InvalidReadException(table, "Cannot read " + table + " (step: validate): the row filter " + f + " names the column '"
                            + field.getName() + "', of type " + type + ", which a row filter cannot compare (only integer, "
                            + "float, decimal, string, binary, boolean, date and timestamp columns). Filter on another column, "
                            + "or filter the rows after reading them.");
                }
                if (f.op() == RowFilter.Op.STARTS_WITH && kind != Kind.BYTES) {
                    throw new InvalidReadException(table, "Cannot read " + table + " (step: validate): the row filter " + f + " asks a prefix of the "
                            + "column '" + field.getName() + "', of type " + type + "; startsWith takes a string or binary column. "
                            + "Use a comparison instead.");
                }
                List<Object> literals = new ArrayList<>();
                for (Object v : f.values()) {
                    Object lit = Kind.literal(type, v);
                    if (lit == null) {
                        throw new InvalidReadException(table, "Cannot read " + table + " (step: validate): the row filter " + f + " compares the column '"
                                + field.getName() + "', of type " + type + ", with the " + v.getClass().getSimpleName() + " "
                                + textOf(v) + "; that column takes " + Kind.accepts(type) + ". Give the literal that type.");
                    }
                    literals.add(lit);
                }
                used.putIfAbsent(field.getName(), field);
                return new Leaf(f.op(), field.getName(), kind, List.copyOf(literals));
            }
        }
    }

    private static String textOf(Object v) {
        return RowFilter.in("x", v).toString().replaceFirst("^x IN \\((.*)\\)$", "$1");
    }

    /** The field named {@code name} exactly, else ignoring case, else null. */
    private static Field find(List<Field> fields, String name) {
        for (Field f : fields) {
            if (f.getName().equals(name)) {
                return f;
            }
        }
        for (Field f : fields) {
            if (f.getName().equalsIgnoreCase(name)) {
                return f;
            }
        }
        return null;
    }

    // ---- statistics ----

    /**
     * What the statistics of a set of rows say of this filter. {@code stats} gives each column the filter reads
     * ({@link #columns()}, by the table's name) what is known of it over the set; {@link ColumnStats#unknown} when
     * nothing is. Sound whatever the statistics hold, as long as they bound the values: NONE only when no row can pass,
     * ALL only when every row passes.
     */
    public Verdict verdict(Function<String, ColumnStats> stats) {
        Possible p = possible(root, stats);
        if (!p.canTrue) {
            return Verdict.NONE;
        }
        return !p.canFalse && !p.canUnknown ? Verdict.ALL : Verdict.SOME;
    }

    /** The values the filter may take over a set of rows: true, false, unknown. */
    private record Possible(boolean canTrue, boolean canFalse, boolean canUnknown) {
    }

    private Possible possible(Node n, Function<String, ColumnStats> stats) {
        if (n instanceof Combine c) {
            List<Possible> ps = new ArrayList<>();
            for (Node child : c.children) {
                ps.add(possible(child, stats));
            }
            return combine(c.op, ps);
        }
        Leaf l = (Leaf) n;
        return leaf(l, stats.apply(l.column));
    }

    private static Possible combine(RowFilter.Op op, List<Possible> ps) {
        if (op == RowFilter.Op.NOT) {
            Possible p = ps.get(0);
            return new Possible(p.canFalse, p.canTrue, p.canUnknown);
        }
        Possible acc = ps.get(0);
        for (int i = 1; i < ps.size(); i++) {
            Possible b = ps.get(i);
            Possible a = acc;
            if (op == RowFilter.Op.AND) {
                acc = new Possible(a.canTrue && b.canTrue, a.canFalse || b.canFalse,
                        a.canUnknown && (b.canTrue || b.canUnknown) || b.canUnknown && (a.canTrue || a.canUnknown));
            } else {
                acc = new Possible(a.canTrue || b.canTrue, a.canFalse && b.canFalse,
                        a.canUnknown && (b.canFalse || b.canUnknown) || b.canUnknown && (a.canFalse || a.canUnknown));
            }
        }
        return acc;
    }

    private static Possible leaf(Leaf l, ColumnStats s) {
        boolean someNull = s.nulls() != 0;
        boolean someValue = !s.onlyNulls() && s.rows() > 0;
        if (l.op == RowFilter.Op.IS_NULL) {
            return new Possible(someNull, someValue, false);
        }
        if (l.op == RowFilter.Op.NOT_NULL) {
            return new Possible(someValue, someNull, false);
        }
        if (!someValue) {
            return new Possible(false, false, someNull);
        }
        boolean[] tf = bounds(l, s);
        boolean canTrue = tf[0];
        boolean canFalse = tf[1];
        if (l.kind == Kind.FLOAT && s.nanPossible()) {
            // NaN may lie beyond the bounds: it is what it is compared as
            if (rowTest(l, Double.NaN) == TRUE) {
                canTrue = true;
            } else {
                canFalse = true;
            }
        }
        if (canTrue && s.mightContain() != null && (l.op == RowFilter.Op.EQ || l.op == RowFilter.Op.IN)) {
            canTrue = l.literals.stream().anyMatch(s.mightContain());
        }
        return new Possible(canTrue, canFalse, someNull);
    }

    /** Whether some non-null value within the bounds may pass, and whether some may fail. */
    private static boolean[] bounds(Leaf l, ColumnStats s) {
        Object lo = s.min();
        Object hi = s.max();
        Kind k = l.kind;
        boolean canTrue = false;
        boolean canFalse = false;
        switch (l.op) {
            case EQ, NE, IN -> {
                for (Object x : l.literals) {
                    if ((lo == null || k.compare(lo, x) <= 0) && (hi == null || k.compare(hi, x) >= 0)) {
                        canTrue = true;
                        break; // one literal within the bounds is enough (a merge's IN has one per input key)
                    }
                }
                boolean single = lo != null && hi != null && k.compareValues(lo, hi) == 0;
                boolean allEqual = single && l.literals.stream().anyMatch(x -> k.compare(lo, x) == 0);
                canFalse = !allEqual;
                if (l.op == RowFilter.Op.NE) {
                    boolean t = canTrue;
                    canTrue = canFalse;
                    canFalse = t;
                }
            }
            case LT -> {
                canTrue = lo == null || k.compare(lo, l.literals.get(0)) < 0;
                canFalse = hi == null || k.compare(hi, l.literals.get(0)) >= 0;
            }
            case LE -> {
                canTrue = lo == null || k.compare(lo, l.literals.get(0)) <= 0;
                canFalse = hi == null || k.compare(hi, l.literals.get(0)) > 0;
            }
            case GT -> {
                canTrue = hi == null || k.compare(hi, l.literals.get(0)) > 0;
                canFalse = lo == null || k.compare(lo, l.literals.get(0)) <= 0;
            }
            case GE -> {
                canTrue = hi == null || k.compare(hi, l.literals.get(0)) >= 0;
                canFalse = lo == null || k.compare(lo, l.literals.get(0)) < 0;
            }
            case STARTS_WITH -> {
                byte[] p = (byte[]) l.literals.get(0);
                // the values with this prefix are the interval [p, p followed by anything)
                canTrue = (hi == null || Kind.compareBytes((byte[]) hi, p) >= 0)
                        && (lo == null || Kind.compareBytes(head((byte[]) lo, p.length), p) <= 0);
                canFalse = lo == null || hi == null || !Kind.startsWith((byte[]) lo, p) || !Kind.startsWith((byte[]) hi, p);
            }
            default -> throw new IllegalStateException(l.op.toString());
        }
        return new boolean[] {canTrue, canFalse};
    }

    private static byte[] head(byte[] b, int n) {
        return b.length <= n ? b : java.util.Arrays.copyOf(b, n);
    }

    // ---- rows ----

    /**
     * Per row of {@code batch}: true when the row passes. The batch must hold a vector for every column the filter reads
     * ({@link #columns()}), by the table's name; only its first {@code batch.getRowCount()} rows are evaluated.
     */
    public boolean[] matches(VectorSchemaRoot batch) {
        int n = batch.getRowCount();
        byte[] v = eval(root, batch, n);
        boolean[] out = new boolean[n];
        for (int i = 0; i < n; i++) {
            out[i] = v[i] == TRUE;
        }
        return out;
    }

    /** The indexes of the rows of {@code batch} that pass, ascending; see {@link #matches}. */
    public int[] select(VectorSchemaRoot batch) {
        int n = batch.getRowCount();
        byte[] v = eval(root, batch, n);
        int[] out = new int[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (v[i] == TRUE) {
                out[k++] = i;
            }
        }
        return k == n ? out : java.util.Arrays.copyOf(out, k);
    }

    /** True when row {@code row} of {@code batch} passes; see {@link #matches}. For a few rows: a batch is faster with {@link #select}. */
    public boolean test(VectorSchemaRoot batch, int row) {
        return evalRow(root, batch, row) == TRUE;
    }

    private byte evalRow(Node n, VectorSchemaRoot batch, int row) {
        if (n instanceof Leaf l) {
            FieldVector v = vector(batch, l.column);
            if (l.op == RowFilter.Op.IS_NULL || l.op == RowFilter.Op.NOT_NULL) {
                return v.isNull(row) == (l.op == RowFilter.Op.IS_NULL) ? TRUE : FALSE;
            }
            return v.isNull(row) ? UNKNOWN : rowTest(l, Kind.value(v, row));
        }
        Combine c = (Combine) n;
        if (c.op == RowFilter.Op.NOT) {
            return not(evalRow(c.children.get(0), batch, row));
        }
        byte acc = evalRow(c.children.get(0), batch, row);
        for (int i = 1; i < c.children.size(); i++) {
            acc = c.op == RowFilter.Op.AND ? and(acc, evalRow(c.children.get(i), batch, row)) : or(acc, evalRow(c.children.get(i), batch, row));
        }
        return acc;
    }

    private byte[] eval(Node n, VectorSchemaRoot batch, int rows) {
        byte[] out = new byte[rows];
        if (n instanceof Leaf l) {
            FieldVector v = vector(batch, l.column);
            boolean nullCheck = l.op == RowFilter.Op.IS_NULL || l.op == RowFilter.Op.NOT_NULL;
            for (int i = 0; i < rows; i++) {
                if (nullCheck) {
                    out[i] = v.isNull(i) == (l.op == RowFilter.Op.IS_NULL) ? TRUE : FALSE;
                } else {
                    out[i] = v.isNull(i) ? UNKNOWN : rowTest(l, Kind.value(v, i));
                }
            }
            return out;
        }
        Combine c = (Combine) n;
        byte[] acc = eval(c.children.get(0), batch, rows);
        if (c.op == RowFilter.Op.NOT) {
            for (int i = 0; i < rows; i++) {
                acc[i] = not(acc[i]);
            }
            return acc;
        }
        for (int k = 1; k < c.children.size(); k++) {
            byte[] next = eval(c.children.get(k), batch, rows);
            for (int i = 0; i < rows; i++) {
                acc[i] = c.op == RowFilter.Op.AND ? and(acc[i], next[i]) : or(acc[i], next[i]);
            }
        }
        return acc;
    }

    private static FieldVector vector(VectorSchemaRoot batch, String column) {
        FieldVector v = batch.getVector(column);
        if (v == null) {
            throw new IllegalArgumentException("the batch has no column '" + column + "' for the row filter");
        }
        return v;
    }

    /** A non-null value of the leaf's column tested. */
    private static byte rowTest(Leaf l, Object value) {
        Kind k = l.kind;
        boolean r = switch (l.op) {
            case EQ -> k.compare(value, l.literals.get(0)) == 0;
            case NE -> k.compare(value, l.literals.get(0)) != 0;
            case LT -> k.compare(value, l.literals.get(0)) < 0;
            case LE -> k.compare(value, l.literals.get(0)) <= 0;
            case GT -> k.compare(value, l.literals.get(0)) > 0;
            case GE -> k.compare(value, l.literals.get(0)) >= 0;
            case IN -> l.literals.stream().anyMatch(x -> k.compare(value, x) == 0);
            case STARTS_WITH -> Kind.startsWith((byte[]) value, (byte[]) l.literals.get(0));
            default -> throw new IllegalStateException(l.op.toString());
        };
        return r ? TRUE : FALSE;
    }

    private static byte not(byte a) {
        return a == UNKNOWN ? UNKNOWN : a == TRUE ? FALSE : TRUE;
    }

    private static byte and(byte a, byte b) {
        if (a == FALSE || b == FALSE) {
            return FALSE;
        }
        return a == TRUE && b == TRUE ? TRUE : UNKNOWN;
    }

    private static byte or(byte a, byte b) {
        if (a == TRUE || b == TRUE) {
            return TRUE;
        }
        return a == FALSE && b == FALSE ? FALSE : UNKNOWN;
    }

    /** The names of the columns the filter reads that are not in {@code have} (ignoring case). */
    public Set<String> missingFrom(Set<String> have) {
        Set<String> out = new LinkedHashSet<>();
        for (String c : columns.keySet()) {
            if (have.stream().noneMatch(h -> h.equalsIgnoreCase(c))) {
                out.add(c);
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return filter.toString();
    }
}
