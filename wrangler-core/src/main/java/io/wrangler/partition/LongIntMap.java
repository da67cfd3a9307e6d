package io.wrangler.partition;

import java.util.Arrays;

/** An open-addressing map from long to int without boxing; {@code -1} means absent. Not thread-safe. */
final class LongIntMap {
    private long[] keys;
    private int[] values;
    private boolean[] used;
    private int size;

    LongIntMap() {
        keys = new long[64];
        values = new int[64];
        used = new boolean[64];
    }

    int get(long key) {
        int mask = keys.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            if (!used[i]) {
                return -1;
            }
            if (keys[i] == key) {
                return values[i];
            }
        }
    }

    void put(long key, int value) {
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            if (!used[i]) {
                used[i] = true;
                keys[i] = key;
                values[i] = value;
                size++;
                return;
            }
            if (keys[i] == key) {
                values[i] = value;
                return;
            }
        }
    }

    private void grow() {
        long[] k = keys;
        int[] v = values;
        boolean[] u = used;
        keys = new long[k.length * 2];
        values = new int[k.length * 2];
        used = new boolean[k.length * 2];
        size = 0;
        for (int i = 0; i < k.length; i++) {
            if (u[i]) {
                put(k[i], v[i]);
            }
        }
    }

    private static int mix(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    @Override
    public String toString() {
        return "LongIntMap" + Arrays.toString(Arrays.copyOf(keys, Math.min(8, keys.length)));
    }
}
