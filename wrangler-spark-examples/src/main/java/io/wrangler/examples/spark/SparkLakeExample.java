package io.wrangler.examples.spark;

import io.wrangler.spark.S3Settings;
import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.LocalS3;
import java.nio.file.Path;
import java.util.List;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.EntityNotFoundException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Where the Spark example writes: an embedded LocalS3 and LocalGlue, file-backed under a folder (to look at afterwards),
 * or real AWS when {@code WRANGLER_BUCKET} names a bucket (default chains; {@code WRANGLER_PREFIX} puts the tables under a
 * prefix). Gives the driver's clients and the {@link S3Settings} the executors build theirs from.
 */
final class SparkLakeExample implements AutoCloseable {
    private final LocalS3 localS3;
    private final LocalGlue localGlue;
    private final S3Client s3;
    private final GlueClient glue;
    private final S3Settings settings;
    private final String bucket;
    private final String prefix;

    private SparkLakeExample(LocalS3 localS3, LocalGlue localGlue, S3Client s3, GlueClient glue, S3Settings settings, String bucket,
                             String prefix) {
        this.localS3 = localS3;
        this.localGlue = localGlue;
        this.s3 = s3;
        this.glue = glue;
        this.settings = settings;
        this.bucket = bucket;
        this.prefix = prefix;
    }

    static SparkLakeExample open(Path folder) {
        String realBucket = System.getenv("WRANGLER_BUCKET");
        if (realBucket != null && !realBucket.isBlank()) {
            String p = System.getenv().getOrDefault("WRANGLER_PREFIX", "wrangler-examples/");
            return new SparkLakeExample(null, null, S3Client.create(), GlueClient.create(), S3Settings.defaults(), realBucket,
                    p.endsWith("/") ? p : p + "/");
        }
        LocalS3 s3 = LocalS3.fileBacked(folder.resolve("s3"));
        LocalGlue glue = LocalGlue.fileBacked(folder.resolve("glue-catalog.json"));
        s3.createBucket("lake");
        S3Settings settings = S3Settings.defaults().endpoint(s3.endpoint()).region("us-east-1").pathStyle(true)
                .staticCredentials(LocalS3.ACCESS_KEY, "wrangler-local-secret", null).chunkedEncoding(false).checksumsWhenRequired(true);
        return new SparkLakeExample(s3, glue, s3.client(), glue.client(), settings, "lake", "");
    }

    String describe() {
        return localS3 == null ? "real AWS: s3://" + bucket + "/" + prefix + " and the Glue Data Catalog"
                : "LocalS3 (objects under " + localS3.folder() + ") and LocalGlue, with Spark local[2]";
    }

    S3Client s3() {
        return s3;
    }

    GlueClient glue() {
        return glue;
    }

    S3Settings settings() {
        return settings;
    }

    String bucket() {
        return bucket;
    }

    String key(String table) {
        return prefix + table;
    }

    String uri(String table) {
        return "s3://" + bucket + "/" + key(table);
    }

    void database(String name) {
        try {
            glue.getDatabase(b -> b.name(name));
        } catch (EntityNotFoundException e) {
            glue.createDatabase(b -> b.databaseInput(d -> d.name(name)));
        }
    }

    /** DuckDB SQL over a table ({@code t}), read as Hive readers read it. */
    List<List<Object>> query(String table, String sql) {
        return queryKey(key(table), sql);
    }

    List<List<Object>> queryKey(String keyPrefix, String sql) {
        return DuckReader.query(s3, bucket, keyPrefix, sql);
    }

    @Override
    public void close() {
        if (localS3 != null) {
            localGlue.close();
            localS3.close();
        }
    }
}
