package io.wrangler.bench;

import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system (checksums included) without its permission calls. Without Hadoop's native library, as
 * here, each directory Spark's committer makes and each file it creates gets its permission by forking {@code chmod}
 * from the JVM; the bench's second run of Spark's writer uses this file system to show what those forks cost, so that
 * the comparison is not only against them.
 */
public final class NoChmodLocalFileSystem extends LocalFileSystem {
    public NoChmodLocalFileSystem() {
        super(new RawLocalFileSystem() {
            @Override
            public void setPermission(Path p, FsPermission permission) {
                // the permissions of new files and directories stay the process's umask
            }
        });
    }
}
