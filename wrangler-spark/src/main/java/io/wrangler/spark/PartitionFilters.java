package io.wrangler.spark;

import io.wrangler.PartitionFilter;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.spark.sql.sources.EqualNullSafe;
import org.apache.spark.sql.sources.EqualTo;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.sources.In;
import org.apache.spark.sql.sources.IsNull;
import org.apache.spark.sql.sources.Or;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * PartitionFilters turn Spark's filters on partition columns into a {@link PartitionFilter}, so that the driver lists
 * only the partitions they admit: equality, {@code IN}, {@code IS NULL} (and {@code OR} of them on one column) on a
 * partition column of type string, integer or date. A string column becomes {@link PartitionFilter#in} (each
 * partition's folder listed by its exact prefix); other types test each folder's value parsed as the type
 * ({@link PartitionFilter#where}), so a folder written {@code n=007} passes {@code n = 7}, and a value that does not
 * parse keeps its partition. The filter only ever admits more than Spark's: every filter is still applied by Spark to
 * the rows (the scan reports them all as not fully handled), so a pruning can drop partitions, never rows.
 */
final class PartitionFilters {
    /** What was found: the listing's filter and the Spark filters it came from (for Spark's plan). */
    record Pushed(PartitionFilter filter, List<Filter> used) {
    }

    private PartitionFilters() {
    }

    static Pushed of(Filter[] filters, StructType schema, List<String> partitionColumns) {
        PartitionFilter out = PartitionFilter.all();
        List<Filter> used = new ArrayList<>();
        for (Filter f : filters) {
            PartitionFilter p = one(f, schema, partitionColumns);
            if (p != null) {
                out = out == PartitionFilter.all() ? p : out.and(p);
                used.add(f);
            }
        }
        return new Pushed(out, used);
    }

    /** The partition filter {@code f} makes, or null when it cannot prune by partition. */
    private static PartitionFilter one(Filter f, StructType schema, List<String> partitionColumns) {
        String column = column(f);
        if (column == null || !partitionColumns.contains(column)) {
            return null;
        }
        Set<Object> values = values(f, new HashSet<>());
        if (values == null) {
            return null;
        }
        DataType type = typeOf(schema, column);
        if (type instanceof StringType) {
            List<String> texts = new ArrayList<>();
            for (Object v : values) {
                texts.add(v == null ? null : v.toString());
            }
            return PartitionFilter.in(column, texts.toArray(String[]::new));
        }
        Predicate<String> admits = admits(type, values);
        return admits == null ? null : PartitionFilter.where(p -> admits.test(p.get(column)));
    }

    /** The one column {@code f} tests (every branch of an OR the same column), or null. */
    private static String column(Filter f) {
        if (f instanceof EqualTo e) {
            return e.attribute();
        }
        if (f instanceof EqualNullSafe e) {
            return e.attribute();
        }
        if (f instanceof In i) {
            return i.attribute();
        }
        if (f instanceof IsNull n) {
            return n.attribute();
        }
        if (f instanceof Or or) {
            String l = column(or.left());
            return l != null && l.equals(column(or.right())) ? l : null;
        }
        return null;
    }

    /** The values {@code f} admits (null for the default partition), added to {@code into}; null when not a set of values. */
    private static Set<Object> values(Filter f, Set<Object> into) {
        if (f instanceof EqualTo e) {
            if (e.value() != null) {
                into.add(e.value());
            }
        } else if (f instanceof EqualNullSafe e) {
            into.add(e.value());
        } else if (f instanceof In in) {
            for (Object v : in.values()) {
                if (v != null) {
                    into.add(v);
                }
            }
        } else if (f instanceof IsNull) {
            into.add(null);
        } else if (f instanceof Or or) {
            return values(or.left(), into) == null ? null : values(or.right(), into);
        } else {
            return null;
        }
        return into;
    }

    private static DataType typeOf(StructType schema, String column) {
        for (StructField f : schema.fields()) {
            if (f.name().equals(column)) {
                return f.dataType();
            }
        }
        return null;
    }

    /** A test of a folder's value text against {@code values} of a column of {@code type}, or null for a type not pruned on. */
    private static Predicate<String> admits(DataType type, Set<Object> values) {
        boolean nulls = values.contains(null);
        if (type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType || type instanceof LongType) {
            Set<Long> wanted = new HashSet<>();
            for (Object v : values) {
                if (v != null) {
                    wanted.add(((Number) v).longValue());
                }
            }
            return text -> {
                if (text == null) {
                    return nulls;
                }
                try {
                    return wanted.contains(Long.parseLong(text.trim()));
                } catch (NumberFormatException e) {
                    return true; // not read as this type: left to Spark
                }
            };
        }
        if (type instanceof DateType) {
            Set<LocalDate> wanted = new HashSet<>();
            for (Object v : values) {
                if (v instanceof java.sql.Date d) {
                    wanted.add(d.toLocalDate());
                } else if (v instanceof LocalDate d) {
                    wanted.add(d);
                } else if (v != null) {
                    return null;
                }
            }
            return text -> {
                if (text == null) {
                    return nulls;
                }
                try {
                    return wanted.contains(LocalDate.parse(text.trim()));
                } catch (RuntimeException e) {
                    return true;
                }
            };
        }
        return null;
    }
}
