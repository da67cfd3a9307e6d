package io.wrangler.storage;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * An S3OutputStream uploads one object while it is being written, with bounded memory.
 *
 * <p>Bytes collect in a buffer of at most one part, in chunks ({@link PartBuffer}); parts grow with the file
 * ({@link PartSizes}), so that any file S3 can hold (5 TiB) fits in its 10,000 parts. An object that stays smaller than a part is sent
 * with one PutObject on {@link #close()}; a larger one becomes a multipart upload whose parts are sent
 * in the background as they fill, at most {@code maxPendingParts} buffers waiting across the write.
 * The object appears at its key only when the last request succeeds: all or nothing. On failure,
 * or on {@link #abort()}, the multipart upload is aborted so that no invisible parts stay billed.
 *
 * <p>A <em>deferred</em> stream is always a multipart upload (a small object is one part) and is never completed by
 * the stream: its upload is created as the stream opens (in the background, while the file encodes), its parts are
 * sent as they fill, {@link #close()} sends the last part, and the object appears only when the commit completes the upload
 * with {@link #uploadId()} and {@link #etags()} ({@link S3Store#completeDeferred}). Until then nothing is visible at
 * the key; {@link #abort()} aborts the upload, with or without parts.
 *
 * <p>Not thread-safe: one writer thread; the uploads themselves run on the shared pool.
 */
public final class S3OutputStream extends OutputStream {
    private final S3Store store;
    private final String key;
    private final Uploads uploads;
    private final List<CompletableFuture<CompletedPart>> parts = new ArrayList<>();
    private PartBuffer buffer;
    private long position;
    /** The multipart upload, created in the background when the first part is full, or as a deferred stream opens (null before). */
    private CompletableFuture<String> uploadId;
    private CompletableFuture<Long> done;
    private boolean aborted;
    private final boolean deferred;

    S3OutputStream(S3Store store, String key, Uploads uploads, boolean deferred) {
        this.store = store;
        this.key = key;
        this.uploads = uploads;
        this.deferred = deferred;
        this.buffer = new PartBuffer(uploads);
        if (deferred) {
            // A deferred stream is always a multipart upload: it is created as the file opens, so that its round trip
            // overlaps the file's encoding instead of queueing, with the other files' creations, behind its last part.
            startUpload();
        }
    }

    /** Creates the multipart upload in the background, on the pool, not on the encoding thread. */
    private void startUpload() {
        uploadId = CompletableFuture.supplyAsync(() -> store.createUpload(key, deferred), uploads.pool());
    }

    /** Bytes written so far. */
    public long position() {
        return position;
    }

    /** Bytes written and held here, not yet handed to an upload: the part being filled. */
    public long unsent() {
        return buffer == null ? 0 : buffer.length();
    }

    /** The size of the part being filled: it grows with the file ({@link PartSizes}). */
    private int partSize() {
        return PartSizes.size(uploads.partSize(), parts.size() + 1);
    }

    @Override
    public void write(int b) throws IOException {
        ensureOpen();
        PartSizes.checkRoom(key, position, 1);
        buffer.write(b);
        position++;
        if (buffer.length() == partSize()) {
            sendPart();
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        ensureOpen();
        PartSizes.checkRoom(key, position, len);
        while (len > 0) {
            int n = Math.min(partSize() - buffer.length(), len);
            buffer.write(b, off, n);
            position += n;
            off += n;
            len -= n;
            if (buffer.length() == partSize()) {
                sendPart();
            }
        }
    }

    private void ensureOpen() throws IOException {
        if (done != null || aborted) {
            throw new IOException("Cannot write to s3 key " + key + ": the stream is closed");
        }
        for (CompletableFuture<CompletedPart> p : parts) {
            if (p.isCompletedExceptionally()) {
                p.join(); // rethrows the part's failure
            }
        }
    }

    private void sendPart() throws IOException {
        if (uploadId == null) {
            // Created on the pool, not on the encoding thread: its round trip overlaps the encoding of the next bytes,
            // and the first part is sent as soon as it is known.
            startUpload();
        }
        if (parts.size() == PartSizes.MAX_PARTS) {
            throw new IllegalArgumentException("the file " + key + " would need more than S3's 10,000 parts: set targetFileSize "
                    + "(or maxRowsPerFile) to split each partition into smaller files");
        }
        final int permits = permits(buffer.length());
        acquire(permits);
        final PartBuffer data = buffer;
        final int partNumber = parts.size() + 1;
        final CompletableFuture<String> created = uploadId;
        buffer = new PartBuffer(uploads);
        parts.add(created.whenComplete((v, e) -> {
            if (e != null) {
                data.release();
                uploads.permits().release(permits);
            }
        }).thenApplyAsync(id -> {
            try {
                String etag = store.uploadPart(key, id, partNumber, data.length(), data.body());
                return CompletedPart.builder().partNumber(partNumber).eTag(etag).build();
            } finally {
                data.release();
                uploads.permits().release(permits);
            }
        }, uploads.pool()));
    }

    /**
     * The permits a buffer of this size takes (one per chunk, {@link Uploads}), so that the pending buffers stay within
     * maxPendingParts base parts of memory as parts grow (a part larger than all of it takes every permit, and waits alone).
     */
    private int permits(int bytes) {
        return uploads.permitsFor(bytes);
    }

    private void acquire(int permits) throws IOException {
        try {
            uploads.permits().acquire(permits);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while waiting to upload a part of " + key);
        }
    }

    /**
     * Finishes the object: the last bytes are sent in the background. {@link #completion()} tells when
     * the object exists and how large it is (for a deferred stream: when every part is sent).
     */
    @Override
    public void close() throws IOException {
        if (done != null || aborted) {
            return;
        }
        if (uploadId == null && !deferred) {
            final int permits = permits(buffer.length());
            acquire(permits);
            final PartBuffer data = buffer;
            buffer = null;
            done = CompletableFuture.supplyAsync(() -> {
                try {
                    store.put(key, data.body());
                    return (long) data.length();
                } finally {
                    data.release();
                    uploads.permits().release(permits);
                }
            }, uploads.pool());
            return;
        }
        if (buffer.length() > 0 || parts.isEmpty()) {
            sendPart(); // the last part; none when the object ended exactly on a part boundary
        }
        buffer = null;
        final CompletableFuture<String> created = uploadId;
        final long size = position;
        CompletableFuture<Void> sent = CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]));
        // A deferred upload is left open for the commit to complete; any other is completed as soon as its parts are in.
        CompletableFuture<Long> object = deferred ? sent.thenApply(v -> size) : sent.thenApplyAsync(v -> {
            List<CompletedPart> completed = parts.stream().map(CompletableFuture::join).toList();
            store.complete(key, created.join(), completed, size);
            return size;
        }, uploads.pool());
        done = object.whenComplete((v, e) -> {
            if (e != null) {
                abortCreated(created, e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            }
        });
    }

    /** Completes when the object exists at its key, with its size; fails with the upload's failure. */
    public CompletableFuture<Long> completion() {
        if (done == null) {
            throw new IllegalStateException("close() first");
        }
        return done;
    }

    /** The multipart upload of a deferred stream, once {@link #completion()} succeeded. */
    public String uploadId() {
        return uploadId == null ? null : uploadId.join();
    }

    /** The ETags of a deferred stream's parts in part order, once {@link #completion()} succeeded. */
    public List<String> etags() {
        return parts.stream().map(p -> p.join().eTag()).toList();
    }

    /** Gives the object up: no object appears, a begun multipart upload is aborted. Safe to call twice. */
    public void abort() {
        if (aborted) {
            return;
        }
        aborted = true;
        buffer = null;
        if (uploadId != null) {
            for (CompletableFuture<CompletedPart> p : parts) {
                try {
                    p.join();
                } catch (RuntimeException ignored) {
                    // the part failed; aborting the upload discards what was sent either way
                }
            }
            abortCreated(uploadId, new IOException("aborted"));
        }
    }

    /** Aborts the multipart upload once its creation is known; one whose creation failed left nothing open. */
    private void abortCreated(CompletableFuture<String> created, Throwable failure) {
        String id;
        try {
            id = created.join();
        } catch (RuntimeException e) {
            return;
        }
        store.abortQuietly(key, id, failure);
    }
}
