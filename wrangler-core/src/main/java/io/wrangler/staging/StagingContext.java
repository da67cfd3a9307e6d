package io.wrangler.staging;

import io.wrangler.Progress;
import io.wrangler.encoding.FileEncoder;
import io.wrangler.storage.S3Store;
import java.nio.file.Path;
import java.util.function.IntConsumer;

/**
 * A StagingContext is what every file a {@link Stager} writes for one write (or one task of a distributed write)
 * shares: where the files go, how they are named and encoded, when a file ends, the bounds on what stays open, and who
 * hears of progress. Immutable.
 *
 * @param tablePrefix the table root's key prefix, with a trailing slash: final keys are below it
 * @param stagingPrefix the write's {@code _tmp/<writeId>/} key prefix: staged keys are below it
 * @param filenamePrefix put before every file name ({@code ""} for none; a distributed write's task attempt's prefix)
 * @param fileSuffix the codec infix and {@code .parquet}
 * @param deferred each file is an open multipart upload at its final key ({@code CommitMethod.DEFERRED_UPLOADS}), not a
 *     staged object
 * @param maxRowsPerFile a partition's file ends at this many rows
 * @param targetFileSize a partition's file ends once it holds this many bytes (Long.MAX_VALUE: no limit)
 * @param maxOpenFiles files open at once in a stream before the least recently written are finished early
 * @param openBytes bytes held in memory by open files before the largest are finished early
 * @param spillDirectory where a stream that interleaves too many partitions is spilled
 * @param fileStaged told the count of files finished so far, as each one is (the write's step hook)
 */
public record StagingContext(S3Store store, String tablePrefix, String stagingPrefix, String writeId, String filenamePrefix,
                             String fileSuffix, boolean deferred, FileEncoder.Settings encoding, long maxRowsPerFile,
                             long targetFileSize, int maxOpenFiles, long openBytes, Path spillDirectory, Progress progress,
                             IntConsumer fileStaged) {
}
