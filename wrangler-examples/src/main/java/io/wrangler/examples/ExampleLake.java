package io.wrangler.examples;

import io.wrangler.testkit.DuckReader;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.LocalS3;
import java.nio.file.Path;
import java.util.List;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.EntityNotFoundException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An ExampleLake is where the examples write: by default an embedded LocalS3 and LocalGlue, both file-backed under a
 * folder (so a user can look at the objects and the catalog afterwards), or real AWS when the environment variable
 * {@code WRANGLER_BUCKET} names a bucket (clients from the SDK's default region and credentials chains; set
 * {@code AWS_REGION}, {@code AWS_PROFILE} or the usual variables; {@code WRANGLER_PREFIX} puts the tables under a prefix).
 */
final class ExampleLake implements AutoCloseable {
    private final LocalS3 localS3;
    private final LocalGlue localGlue;
    private final S3Client s3;
    private final GlueClient glue;
    private final String bucket;
    private final String prefix;
    private final Path folder;

    private ExampleLake(LocalS3 localS3, LocalGlue localGlue, S3Client s3, GlueClient glue, String bucket, String prefix, Path folder) {
        this.localS3 = localS3;
        this.localGlue = localGlue;
        this.s3 = s3;
        this.glue = glue;
        this.bucket = bucket;
        this.prefix = prefix;
        this.folder = folder;
    }

    /** The embedded lake under {@code folder} (or real AWS, see the class documentation). */
    static ExampleLake open(Path folder) {
        String realBucket = System.getenv("WRANGLER_BUCKET");
        if (realBucket != null && !realBucket.isBlank()) {
            String p = System.getenv().getOrDefault("WRANGLER_PREFIX", "wrangler-examples/");
            return new ExampleLake(null, null, S3Client.create(), GlueClient.create(), realBucket, p.endsWith("/") ? p : p + "/", folder);
        }
        LocalS3 s3 = LocalS3.fileBacked(folder.resolve("s3"));
        LocalGlue glue = LocalGlue.fileBacked(folder.resolve("glue-catalog.json"));
        s3.createBucket("lake");
        return new ExampleLake(s3, glue, s3.client(), glue.client(), "lake", "", folder);
    }

    /** Where the embedded servers keep their data, for the user to look at. */
    String describe() {
        return localS3 == null ? "real AWS: s3://" + bucket + "/" + prefix + " and the Glue Data Catalog"
                : "LocalS3 (objects under " + localS3.folder() + ") and LocalGlue (catalog in " + folder.resolve("glue-catalog.json") + ")";
    }

    S3Client s3() {
        return s3;
    }

    GlueClient glue() {
        return glue;
    }

    String bucket() {
        return bucket;
    }

    /** The key prefix of a table: {@code marts/orders/}. */
    String key(String table) {
        return prefix + table;
    }

    /** The URI of a table: {@code s3://lake/marts/orders/}. */
    String uri(String table) {
        return "s3://" + bucket + "/" + key(table);
    }

    Path folder() {
        return folder;
    }

    /** Creates the Glue database if it is missing. */
    void database(String name) {
        try {
            glue.getDatabase(b -> b.name(name));
        } catch (EntityNotFoundException e) {
            glue.createDatabase(b -> b.databaseInput(d -> d.name(name)));
        }
    }

    /** Runs DuckDB SQL over a table ({@code t} in the SQL), read as Hive readers read it. */
    List<List<Object>> query(String table, String sql) {
        return DuckReader.query(s3, bucket, key(table), sql);
    }

    @Override
    public void close() {
        if (localS3 != null) {
            localGlue.close();
            localS3.close();
        } else {
            s3.close();
            glue.close();
        }
    }
}
