package io.wrangler.encoding;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.junit.jupiter.api.Test;

/**
 * Files are encoded on several threads at once, each hashing its columns' values for their bloom filters: every thread
 * must get the hash of its own value (parquet-java's hash functions write the value into a buffer their filter keeps).
 */
class BloomHashesThreadsTest {

    @Test
    void threadsHashingAtOnceEachGetTheHashOfTheirOwnValues() throws Exception {
        int threads = 4;
        int values = 200_000;
        long[][] expected = new long[threads][values];
        BlockSplitBloomFilter alone = new BlockSplitBloomFilter(BlockSplitBloomFilter.LOWER_BOUND_BYTES);
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < values; i++) {
                expected[t][i] = alone.hash(value(t, i));
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<long[]>> got = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                got.add(pool.submit(() -> {
                    start.await();
                    long[] out = new long[values];
                    for (int i = 0; i < values; i++) {
                        out[i] = FlatColumnWriter.BloomHashes.hasher().hash(value(thread, i));
                    }
                    return out;
                }));
            }
            start.countDown();
            for (int t = 0; t < threads; t++) {
                assertThat(got.get(t).get(2, TimeUnit.MINUTES)).as("the hashes of thread %d's values", t).isEqualTo(expected[t]);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static long value(int thread, int i) {
        return ((long) thread << 40) ^ (i * 0x9E3779B97F4A7C15L);
    }
}
