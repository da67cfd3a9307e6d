package io.wrangler.storage;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * A PartBuffer holds the bytes of one part (or of a small object) in chunks: a first one of 64 KiB, then chunks of
 * {@link #CHUNK} bytes taken from and given back to the write's {@link Uploads}. No array is ever copied to grow, and
 * none is large enough to be a "humongous" object for G1 (half a heap region, 512 KiB on the smallest heaps), whose
 * allocation and reclaim would otherwise make the encode time of large files vary by a factor of two. Not thread-safe:
 * filled by the writer thread, then read by the upload and released.
 */
final class PartBuffer {
    static final int CHUNK = 256 * 1024;
    private static final int FIRST = 64 * 1024;

    private final Uploads uploads;
    private final List<byte[]> chunks = new ArrayList<>();
    private byte[] current;
    private int used;
    private int length;

    PartBuffer(Uploads uploads) {
        this.uploads = uploads;
        this.current = new byte[FIRST];
        chunks.add(current);
    }

    int length() {
        return length;
    }

    void write(int b) {
        if (used == current.length) {
            next();
        }
        current[used++] = (byte) b;
        length++;
    }

    void write(byte[] b, int off, int len) {
        while (len > 0) {
            if (used == current.length) {
                next();
            }
            int n = Math.min(len, current.length - used);
            System.arraycopy(b, off, current, used, n);
            used += n;
            length += n;
            off += n;
            len -= n;
        }
    }

    private void next() {
        current = uploads.takeChunk();
        chunks.add(current);
        used = 0;
    }

    /** The bytes as a request body that each attempt of a retried request reads anew; no copy is made. */
    RequestBody body() {
        int total = length;
        List<byte[]> parts = List.copyOf(chunks);
        return RequestBody.fromContentProvider(() -> {
            List<InputStream> streams = new ArrayList<>(parts.size());
            int left = total;
            for (byte[] c : parts) {
                int n = Math.min(left, c.length);
                streams.add(new ByteArrayInputStream(c, 0, n));
                left -= n;
            }
            return new SequenceInputStream(Collections.enumeration(streams));
        }, total, "application/octet-stream");
    }

    /** Gives the chunks back for reuse; the buffer is not used again. */
    void release() {
        for (byte[] c : chunks) {
            if (c.length == CHUNK) {
                uploads.giveChunk(c);
            }
        }
        chunks.clear();
        current = null;
    }
}
