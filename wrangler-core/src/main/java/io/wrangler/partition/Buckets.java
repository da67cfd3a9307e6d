package io.wrangler.partition;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Buckets gives each row the bucket awswrangler 3.17.1 gives it ({@code bucketing_info}), and numbers the files of a
 * write: one group per partition and bucket, in the order they are first seen.
 *
 * <p>The bucket is {@code h % count}, where {@code h} folds the bucketing columns' value hashes as {@code h = 31*h +
 * hash(value)} kept in 31 bits after each step. The value hash: a boolean is 0 or 1; an integer within 32 bits is
 * itself, a wider one {@code (v >> 32) ^ v} (arithmetic shift: the same number as awswrangler's unbounded Python
 * integers), and a negative result {@code r} becomes {@code -r - 1} (only integers within 32 bits can be negative here:
 * the xor of two numbers of the same sign is not); a string folds its UTF-8 bytes, unsigned, as {@code h = 31*h + byte}
 * kept in 31 bits. Since each step keeps only 31 bits, a value hash enters the fold by its low 31 bits.
 *
 * <p>Not thread-safe: rows are assigned on the thread that reads the input.
 */
public final class Buckets {
    private static final int MASK = 0x7FFFFFFF;
    private final List<String> columns;
    private final int count;
    private final Map<Long, Integer> groups = new HashMap<>();
    private final List<long[]> byGroup = new ArrayList<>();
    /** For a compaction: the bucket of every row of the batch just read, from the file it was read from; else null. */
    private final IntSupplier given;

    /**
     * @param columns the bucketing columns as named in the batches, in hashing order
     * @param count the number of buckets, at least 1
     */
    public Buckets(List<String> columns, int count) {
        if (count < 1) {
            throw new IllegalArgumentException("buckets must be at least 1, got " + count);
        }
        this.columns = List.copyOf(columns);
        this.count = count;
        this.given = null;
    }

    private Buckets(IntSupplier given) {
        this.columns = List.of();
        this.count = Integer.MAX_VALUE;
        this.given = given;
    }

    /**
     * Buckets that hash nothing: every row of a batch goes to the bucket {@code bucketOfBatch} gives when the batch is
     * assigned. A compaction merges the files of one bucket into files of that bucket, so rows keep the bucket their
     * writer gave them, whatever hash it used.
     */
    public static Buckets given(IntSupplier bucketOfBatch) {
        return new Buckets(bucketOfBatch);
    }

    /** True when awswrangler's hash covers the field's type: integers up to signed 64 bits, strings, booleans. */
    public static boolean hashable(Field field) {
        ArrowType t = field.getType();
        if (t instanceof ArrowType.Int i) {
            return i.getBitWidth() < 64 || i.getIsSigned(); // awswrangler refuses integers above 2^63-1
        }
        return t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8 || t instanceof ArrowType.Bool;
    }

    /** A null in a bucketing column: awswrangler has no hash for it, and refuses the row. */
    public static final class NullValue extends IllegalArgumentException {
        NullValue(String message) {
            super(message);
        }
    }

    /** The number of buckets. */
    public int count() {
        return count;
    }

    /**
     * The group of every row: its partition and its bucket together, numbered densely in the order first seen.
     *
     * @param partitionOfRow each row's partition id ({@link Partitioner#assign})
     * @param firstRow the number of the batch's first row in the input, for messages
     * @throws NullValue for a null in a bucketing column (awswrangler has no hash for it either)
     */
    public int[] assign(VectorSchemaRoot batch, int[] partitionOfRow, long firstRow) {
        int rows = partitionOfRow.length;
        int[] hash = new int[rows];
        if (given != null) {
            Arrays.fill(hash, given.getAsInt());
        }
        for (String name : columns) {
            FieldVector v = batch.getVector(name);
            for (int r = 0; r < rows; r++) {
                if (v.isNull(r)) {
                    throw new NullValue("the bucket column '" + name + "' is null at row " + (firstRow + r)
                            + ", and awswrangler's bucket hash has no number for null (awswrangler refuses such rows)");
                }
                hash[r] = (31 * hash[r] + valueHash(v, r)) & MASK;
            }
        }
        int[] out = new int[rows];
        for (int r = 0; r < rows; r++) {
            int bucket = given != null ? hash[r] : hash[r] % count;
            long key = ((long) partitionOfRow[r] << 32) | bucket;
            Integer id = groups.get(key);
            if (id == null) {
                id = byGroup.size();
                groups.put(key, id);
                byGroup.add(new long[] {partitionOfRow[r], bucket});
            }
            out[r] = id;
        }
        return out;
    }

    /** The partition id of a group. */
    public int partitionOf(int group) {
        return (int) byGroup.get(group)[0];
    }

    /** The bucket of a group. */
    public int bucketOf(int group) {
        return (int) byGroup.get(group)[1];
    }

    /** The bucket of one row of values, for tests and tools: {@code values} are Boolean, Long/Integer/Short/Byte or String. */
    public static int bucketOf(List<?> values, int count) {
        int h = 0;
        for (Object o : values) {
            int vh;
            if (o instanceof Boolean b) {
                vh = b ? 1 : 0;
            } else if (o instanceof Number n && !(o instanceof Double) && !(o instanceof Float)) {
                vh = integerHash(n.longValue());
            } else if (o instanceof String s) {
                byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
                vh = 0;
                for (byte b : bytes) {
                    vh = (31 * vh + (b & 0xFF)) & MASK;
                }
            } else {
                throw new IllegalArgumentException("no bucket hash for " + o);
            }
            h = (31 * h + vh) & MASK;
        }
        return h % count;
    }

    /** The low 31 bits of awswrangler's hash of an integer. */
    static int integerHash(long v) {
        long h = v < Integer.MIN_VALUE || v > Integer.MAX_VALUE ? (v >> 32) ^ v : v;
        if (h < 0) {
            h = -h - 1;
        }
        return (int) (h & MASK);
    }

    private static int valueHash(FieldVector v, int r) {
        if (v instanceof BitVector b) {
            return b.get(r);
        }
        if (v instanceof BigIntVector x) {
            return integerHash(x.get(r));
        }
        if (v instanceof IntVector x) {
            return integerHash(x.get(r));
        }
        if (v instanceof SmallIntVector x) {
            return integerHash(x.get(r));
        }
        if (v instanceof TinyIntVector x) {
            return integerHash(x.get(r));
        }
        if (v instanceof UInt1Vector x) {
            return integerHash(x.get(r) & 0xFF);
        }
        if (v instanceof UInt2Vector x) {
            return integerHash(x.get(r));
        }
        if (v instanceof UInt4Vector x) {
            return integerHash(x.get(r) & 0xFFFFFFFFL);
        }
        if (v instanceof BaseVariableWidthVector s) {
            ArrowBuf offsets = s.getOffsetBuffer();
            return bytesHash(s.getDataBuffer(), offsets.getInt(4L * r), offsets.getInt(4L * r + 4));
        }
        if (v instanceof BaseLargeVariableWidthVector s) {
            ArrowBuf offsets = s.getOffsetBuffer();
            return bytesHash(s.getDataBuffer(), offsets.getLong(8L * r), offsets.getLong(8L * r + 8));
        }
        throw new IllegalStateException("no bucket hash for " + v.getField());
    }

    /** A string's hash: its UTF-8 bytes, unsigned, folded as {@code h = 31 * h + byte} within 31 bits. */
    private static int bytesHash(ArrowBuf data, long start, long end) {
        int h = 0;
        for (long i = start; i < end; i++) {
            h = (31 * h + (data.getByte(i) & 0xFF)) & MASK;
        }
        return h;
    }
}
