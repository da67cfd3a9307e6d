package io.wrangler.storage;

/**
 * PartSizes is the schedule of multipart part sizes that lets one file grow to anything S3 can hold.
 *
 * <p>S3 allows 10,000 parts of 5 MiB to 5 GiB, and objects of up to 5 TiB. A fixed part size caps the file at 10,000
 * parts (78 GiB at 8 MiB), found only when part 10,001 is due. Here the first 900 parts have the base size, and each
 * next 900 parts twice the size of the ones before, up to {@link #MAX_PART}: small files keep small parts (and small
 * buffers), and 10,000 parts hold more than 5 TiB from any base of 5 MiB up. A file that reaches 5 TiB is refused with a
 * message that names {@code targetFileSize}.
 *
 * <p>A part is held in memory until it is sent: a file's parts reach 1 GiB only after about 1.1 TiB (base 8 MiB).
 */
final class PartSizes {
    /** S3's largest object. */
    static final long MAX_OBJECT = 5L << 40;
    /** S3's most parts of one upload. */
    static final int MAX_PARTS = 10_000;
    /** The largest part: S3 allows 5 GiB; a part buffer's length is an int (2 GiB less one chunk). */
    static final int MAX_PART = Integer.MAX_VALUE - PartBuffer.CHUNK + 1;
    /** Parts of one size before the size doubles. */
    static final int STEP = 900;

    private PartSizes() {
    }

    /** The size of part {@code partNumber} (1-based) of an upload whose first parts have {@code base} bytes. */
    static int size(int base, int partNumber) {
        int doublings = (partNumber - 1) / STEP;
        long size = doublings >= 31 ? Long.MAX_VALUE : (long) base << doublings;
        return (int) Math.min(size, MAX_PART);
    }

    /**
     * Refuses a write that would take the object past what S3 holds.
     *
     * @throws IllegalArgumentException naming targetFileSize
     */
    static void checkRoom(String key, long position, long more) {
        if (position + more > MAX_OBJECT) {
            throw new IllegalArgumentException("the file " + key + " would grow past 5 TiB, the largest object S3 holds: set "
                    + "targetFileSize (or maxRowsPerFile) to split each partition into files S3 can hold");
        }
    }
}
