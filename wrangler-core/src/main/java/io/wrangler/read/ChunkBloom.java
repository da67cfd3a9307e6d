package io.wrangler.read;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.Map;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.format.BloomFilterHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.api.Binary;

/**
 * ChunkBloom is a column chunk's split-block bloom filter read by the blocks it is asked about: its header first (one
 * small GET), then for each hash asked the one 32-byte block the hash falls in (one GET each), instead of the whole
 * filter (kilobytes to a megabyte a chunk). A lookup asks one or a few hashes of each file's filter, so it fetches
 * bytes, not the filters. The block is probed by parquet-java's own {@link BlockSplitBloomFilter} (a filter of that one
 * block), so the hashing and the bit tests are parquet-java's.
 *
 * <p>Only filters parquet-java can read are read this way: the header must say block-split, xxhash and uncompressed,
 * and the bitset must be a whole number of blocks; anything else is {@link #read} as no filter (null), and the rows
 * are tested anyway.
 */
final class ChunkBloom implements BloomFilter {
    /** Enough for any header parquet-java writes (a few bytes of Thrift), read before the bitset's blocks. */
    static final int HEADER_GET = 64;
    private static final int BLOCK = 32;

    private final S3InputFile file;
    private final long bitsetStart;
    private final int numBytes;
    /** Hashes with parquet-java's xxhash: a filter of one block, whose hash functions depend on nothing else. */
    private final BlockSplitBloomFilter hasher = new BlockSplitBloomFilter(BLOCK);
    private final Map<Integer, BlockSplitBloomFilter> blocks = new HashMap<>();

    private ChunkBloom(S3InputFile file, long bitsetStart, int numBytes) {
        this.file = file;
        this.bitsetStart = bitsetStart;
        this.numBytes = numBytes;
    }

    /** The bloom filter of {@code chunk} read block by block, or null when it has none wrangler reads this way. */
    static BloomFilter read(S3InputFile file, ColumnChunkMetaData chunk) throws IOException {
        long offset = chunk.getBloomFilterOffset();
        if (offset < 0 || offset >= file.getLength()) {
            return null;
        }
        int length = chunk.getBloomFilterLength();
        int n = (int) Math.min(file.getLength() - offset, length > 0 ? Math.min(length, HEADER_GET) : HEADER_GET);
        byte[] head = new byte[n];
        file.read(offset, head, 0, n);
        ByteArrayInputStream in = new ByteArrayInputStream(head);
        BloomFilterHeader h;
        try {
            h = Util.readBloomFilterHeader(in);
        } catch (IOException | RuntimeException e) {
            return null; // a header longer than the GET, or not a header: no filter, the rows are tested
        }
        long headerLength = n - in.available();
        int numBytes = h.getNumBytes();
        boolean known = h.getAlgorithm() != null && h.getAlgorithm().isSetBLOCK() && h.getHash() != null && h.getHash().isSetXXHASH()
                && h.getCompression() != null && h.getCompression().isSetUNCOMPRESSED();
        if (!known || numBytes < BLOCK || numBytes % BLOCK != 0 || offset + headerLength + numBytes > file.getLength()
                || length > 0 && headerLength + numBytes != length) {
            return null;
        }
        return new ChunkBloom(file, offset + headerLength, numBytes);
    }

    @Override
    public synchronized boolean findHash(long hash) {
        // parquet-java's block index: the hash's upper 32 bits scaled to the number of blocks
        int block = (int) (((hash >>> 32) * (numBytes / BLOCK)) >>> 32);
        BlockSplitBloomFilter one = blocks.get(block);
        if (one == null) {
            byte[] bits = new byte[BLOCK];
            try {
                file.read(bitsetStart + (long) block * BLOCK, bits, 0, BLOCK);
            } catch (IOException e) {
                return true; // only an optimisation: the rows are tested anyway
            }
            one = new BlockSplitBloomFilter(bits);
            blocks.put(block, one);
        }
        // the same lower 32 bits (which bits of the block), upper bits 0: block 0 of the one-block filter
        return one.findHash(hash & 0xFFFFFFFFL);
    }

    @Override
    public int getBitsetSize() {
        return numBytes;
    }

    @Override
    public synchronized long hash(int value) {
        return hasher.hash(value);
    }

    @Override
    public synchronized long hash(long value) {
        return hasher.hash(value);
    }

    @Override
    public synchronized long hash(double value) {
        return hasher.hash(value);
    }

    @Override
    public synchronized long hash(float value) {
        return hasher.hash(value);
    }

    @Override
    public synchronized long hash(Binary value) {
        return hasher.hash(value);
    }

    @Override
    public synchronized long hash(Object value) {
        return hasher.hash(value);
    }

    @Override
    public HashStrategy getHashStrategy() {
        return HashStrategy.XXH64;
    }

    @Override
    public Algorithm getAlgorithm() {
        return Algorithm.BLOCK;
    }

    @Override
    public Compression getCompression() {
        return Compression.UNCOMPRESSED;
    }

    @Override
    public void writeTo(OutputStream out) {
        throw new UnsupportedOperationException("a bloom filter read block by block is not written");
    }

    @Override
    public void insertHash(long hash) {
        throw new UnsupportedOperationException("a bloom filter read block by block is read only");
    }

    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
