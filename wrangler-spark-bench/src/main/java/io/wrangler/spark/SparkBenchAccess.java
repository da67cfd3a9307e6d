package io.wrangler.spark;

import io.wrangler.spi.StepHook;
import java.net.URI;
import java.util.Objects;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What the Spark benchmark reaches inside wrangler-spark that users cannot: an S3 client handed to the tasks of a
 * local-mode session without HTTP, and the driver's step hook. Not API; lives in the bench module only.
 */
public final class SparkBenchAccess {
    private SparkBenchAccess() {
    }

    /**
     * Settings whose client, in this JVM, is {@code client} (driver and local-mode executors alike): {@code name} makes
     * them distinct from every other settings, so that each run can have a store of its own.
     */
    public static S3Settings inThisJvm(String name, S3Client client) {
        S3Settings s = S3Settings.defaults().endpoint(URI.create("http://" + Objects.requireNonNull(name, "name") + ".invalid"))
                .region("us-east-1").pathStyle(true).staticCredentials("bench", "bench", null);
        S3Settings.useInThisJvm(s, client);
        return s;
    }

    /** The write, told of each commit step on the driver. */
    public static SparkWriteBuilder hook(SparkWriteBuilder write, StepHook hook) {
        return write.hook(hook);
    }
}
