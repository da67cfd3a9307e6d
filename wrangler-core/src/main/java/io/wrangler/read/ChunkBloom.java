package io.wrangler.read;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.Map;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.apache.parquet.column.values.bloomfilter.BloomFilter;
import org.apache.parquet.format.BloomFilterAlgorithm;
import org.apache.parquet.format.BloomFilterCompression;
import org.apache.parquet.format.BloomFilterHash;
import org.apache.parquet.format.BloomFilterHeader;
import org.apache.parquet.format.SplitBlockAlgorithm;
import org.apache.parquet.format.Uncompressed;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.XxHash;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.api.Binary;

/**
 * ChunkBloom is a column chunk's split-block bloom filter read by the blocks it is asked about: for each hash asked the
 * one 32-byte block the hash falls in (one GET each), instead of the whole filter (kilobytes to a megabyte a chunk).
 * Where the block lies needs the bitset's size: when the footer records the filter's length (header and bitset, as
 * parquet-java 1.14 and later write it) and that length is what the standard header and a bitset of a power of two bytes
 * take ({@link #numBytesOf}), the size is inferred and the block fetched at once; else the header is fetched first (one
 * small GET) and read. A lookup asks one or a few hashes of each file's filter, so it fetches
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
        int inferred = length > 0 ? numBytesOf(length) : -1;
        if (inferred > 0 && offset + length <= file.getLength()) {
            return new ChunkBloom(file, offset + length - inferred, inferred);
        }
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

    /** The length of the standard header of a bitset of 2^i bytes (i from 5: 32 bytes, a block), by i. */
    private static final int[] STANDARD_HEADER = new int[31];

    static {
        for (int i = 5; i < STANDARD_HEADER.length; i++) {
            STANDARD_HEADER[i] = standardHeader(1 << i).length;
        }
    }

    /**
     * The bitset's size (bytes) of a filter whose header and bitset take {@code length} bytes in all, or -1 when it cannot
     * be told without reading the header. It is told when the bitset is a power of two bytes, at least a block, and the
     * header the standard one: block-split, xxhash, uncompressed, the four fields of parquet-format's Thrift in the compact
     * encoding, as parquet-java (and so wrangler), Arrow and DuckDB write it, under 32 bytes. Then {@code length} mod 32
     * is the header's length and the rest the bitset, and the two must agree ({@code standardHeader}): a header of other
     * fields shorter than a block disagrees and is read, so only a non-standard header longer than 44 bytes over a bitset
     * of 32 bytes could be mistaken, which no writer known writes.
     */
    static int numBytesOf(int length) {
        int header = length % BLOCK;
        int numBytes = length - header;
        if (header == 0 || numBytes < BLOCK || Integer.bitCount(numBytes) != 1) {
            return -1;
        }
        return STANDARD_HEADER[Integer.numberOfTrailingZeros(numBytes)] == header ? numBytes : -1;
    }

    /** The standard header of a bitset of {@code numBytes} bytes, as parquet-java writes it. */
    static byte[] standardHeader(int numBytes) {
        BloomFilterHeader h = new BloomFilterHeader(numBytes, BloomFilterAlgorithm.BLOCK(new SplitBlockAlgorithm()),
                BloomFilterHash.XXHASH(new XxHash()), BloomFilterCompression.UNCOMPRESSED(new Uncompressed()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            Util.writeBloomFilterHeader(h, out);
        } catch (IOException e) {
            throw new IllegalStateException(e); // a byte array's stream does not fail
        }
        return out.toByteArray();
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
