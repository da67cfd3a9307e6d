package io.wrangler.testkit;

import com.adobe.testing.s3mock.S3MockApplication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Consumer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A LocalS3 is a real S3 server (Adobe's S3Mock) started in this JVM on 127.0.0.1, with a ready client.
 *
 * <p>It speaks the S3 REST protocol over HTTP on a random port, so the AWS SDK's own {@link S3Client}
 * talks to it exactly as it talks to AWS: path-style addressing, multipart uploads, copies, batch
 * deletes, listings with continuation tokens, and conditional writes ({@code If-None-Match: *}
 * answered with 412). Objects live in a folder: a temporary one that is removed on {@link #close()},
 * or one you name with {@link #fileBacked(Path)}, which is kept so you can look at it afterwards.
 *
 * <pre>{@code
 * try (LocalS3 s3 = LocalS3.start()) {
 *     s3.createBucket("lake");
 *     S3Parquet.write(table).s3(s3.client()).to("s3://lake/orders/");
 * }
 * }</pre>
 *
 * <p>Keys: every key AWS S3 accepts (any UTF-8, emoji and control characters included, up to 1,024 bytes) is
 * accepted, listed in S3's order and read back, and a key longer is refused with {@code KeyTooLongError}, as AWS does.
 * S3Mock itself fails on many such keys (a 4-byte UTF-8 character corrupts its bucket metadata and every later request
 * of the bucket fails); the endpoint is therefore a small proxy on 127.0.0.1 that keeps keys encoded on the server (see
 * {@code KeyCodec}), so one request can never break the next. Only {@code /} works as a listing delimiter.
 *
 * <p>S3Mock (Spring Boot, Tomcat) is an optional dependency of the testkit: a project that uses LocalS3 declares
 * {@code com.adobe.testing:s3mock} (version and exclusions in wrangler-bom); {@link MemoryS3} needs nothing more.
 *
 * <p>Logging: the server leaves the JVM's logging as it found it. Spring Boot starts with no logging system (it would
 * otherwise reset java.util.logging and send it to logback at WARN, hiding wrangler's INFO lines: lease waits,
 * takeovers, recoveries); the testkit brings no logging backend; Spring's and S3Mock's SLF4J lines go to the
 * application's SLF4J provider if it has one, and Tomcat's routine INFO lines are held back (see
 * {@code EmbeddedLogging}).
 *
 * <p>S3Mock listens on every interface of this machine (it offers no way to bind its plain HTTP
 * connector to one address); the client built here only ever talks to 127.0.0.1, through the proxy.
 */
public final class LocalS3 implements S3Fixture {
    /** The access key that {@link #client()} signs with; S3Mock accepts any. */
    public static final String ACCESS_KEY = "wrangler-local";
    private static final String SECRET_KEY = "wrangler-local-secret";
    private static final Region REGION = Region.US_EAST_1;

    private final S3MockApplication app;
    private final KeyProxy keys;
    private final Path root;
    private final boolean deleteRootOnClose;
    private final S3Client client;
    private final NetworkProfile profile;

    private LocalS3(S3MockApplication app, KeyProxy keys, Path root, boolean deleteRootOnClose, NetworkProfile profile) {
        this.app = app;
        this.keys = keys;
        this.profile = profile;
        this.root = root;
        this.deleteRootOnClose = deleteRootOnClose;
        this.client = newClient();
    }

    /** Starts a server whose objects live in a temporary folder, removed on {@link #close()}. */
    public static LocalS3 start() {
        return start(NetworkProfile.none());
    }

    /**
     * Starts a server whose objects live in a temporary folder, removed on {@link #close()}, that answers as S3 over
     * the network {@code profile} describes: first-byte delays per type of request, a bandwidth per connection, a cap
     * on the requests served at once. Every client of {@link #endpoint()} sees the profile, {@link #client()} too.
     */
    public static LocalS3 start(NetworkProfile profile) {
        Objects.requireNonNull(profile, "profile");
        try {
            return start(Files.createTempDirectory("wrangler-local-s3-"), true, profile);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot start LocalS3: cannot create a temporary folder", e);
        }
    }

    /**
     * Starts a server whose objects live in {@code folder} (created if missing), kept after
     * {@link #close()}. A server started again on the same folder sees the same buckets and objects.
     */
    public static LocalS3 fileBacked(Path folder) {
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot start LocalS3: cannot create " + folder, e);
        }
        return start(folder.toAbsolutePath(), false, NetworkProfile.none());
    }

    private static LocalS3 start(Path root, boolean deleteRootOnClose, NetworkProfile profile) {
        OptionalDependency.require("com.adobe.testing.s3mock.S3MockApplication", "LocalS3", "com.adobe.testing:s3mock",
                "; or use MemoryS3, an S3 in this JVM that needs nothing more");
        Map<String, Object> props = new HashMap<>();
        props.put(S3MockApplication.PROP_HTTP_PORT, S3MockApplication.RANDOM_PORT);
        props.put(S3MockApplication.PROP_HTTPS_PORT, S3MockApplication.RANDOM_PORT);
        props.put("server.address", "127.0.0.1");
        props.put(S3MockApplication.PROP_ROOT_DIRECTORY, root.toString());
        props.put("com.adobe.testing.s3mock.store.retainFilesOnExit", !deleteRootOnClose);
        props.put(S3MockApplication.PROP_SILENT, true);
        props.put("spring.main.banner-mode", "off");
        props.put("spring.main.log-startup-info", false);
        props.put("spring.jmx.enabled", false);
        S3MockApplication app = EmbeddedLogging.leftAlone(() -> S3MockApplication.start(props));
        @SuppressWarnings("removal")
        int port = app.getHttpPort();
        KeyProxy keys;
        try {
            keys = KeyProxy.start(URI.create("http://127.0.0.1:" + port), profile);
        } catch (RuntimeException e) {
            app.stop();
            throw e;
        }
        return new LocalS3(app, keys, root, deleteRootOnClose, profile);
    }

    /** The network this server simulates; {@link NetworkProfile#none()} unless started with one. */
    public NetworkProfile profile() {
        return profile;
    }

    /** The endpoint to give any S3 client: {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return keys.endpoint();
    }

    /** The folder that holds the server's buckets and objects. */
    public Path folder() {
        return root;
    }

    /** A client for this server: path-style, static test credentials, region us-east-1. Shared; do not close it. */
    public S3Client client() {
        return client;
    }

    /** A new client for this server that the caller owns and closes. */
    public S3Client newClient() {
        return newClient(b -> { });
    }

    /**
     * A new client for this server, configured as {@link #newClient()} and then by {@code more} (an interceptor that
     * counts requests, say); the caller owns and closes it.
     */
    public S3Client newClient(Consumer<S3ClientBuilder> more) {
        S3ClientBuilder builder = S3Client.builder()
                .endpointOverride(endpoint())
                .region(REGION)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
                .forcePathStyle(true)
                // Over plain HTTP the SDK would send bodies aws-chunked (a signature per chunk), which S3Mock decodes a
                // byte at a time; AWS S3 over HTTPS gets plain bodies, and so does this server.
                .serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(false).build())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(ApacheHttpClient.builder()
                        .maxConnections(64)
                        .connectionTimeout(Duration.ofSeconds(5))
                        .socketTimeout(Duration.ofSeconds(60)));
        more.accept(builder);
        return builder.build();
    }

    /**
     * Makes {@code keyArn} a KMS key the server accepts for SSE-KMS ({@code arn:aws:kms:<region>:<account>:key/<id>});
     * S3Mock refuses unknown keys, as S3 does.
     */
    @SuppressWarnings("removal")
    public void registerKmsKey(String keyArn) {
        app.registerKMSKeyRef(keyArn);
    }

    /** Creates a bucket (no error if it exists already). */
    public void createBucket(String bucket) {
        if (client.listBuckets().buckets().stream().noneMatch(b -> b.name().equals(bucket))) {
            client.createBucket(b -> b.bucket(bucket));
        }
    }

    /** Every object under {@code prefix} in {@code bucket}, key to size, in key order. */
    public Map<String, Long> list(String bucket, String prefix) {
        Map<String, Long> out = new TreeMap<>();
        for (S3Object o : client.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).build()).contents()) {
            out.put(o.key(), o.size());
        }
        return out;
    }

    /** Every object under {@code prefix}, key to content, in key order. */
    public Map<String, byte[]> snapshot(String bucket, String prefix) {
        Map<String, byte[]> out = new TreeMap<>();
        for (String key : list(bucket, prefix).keySet()) {
            out.put(key, get(bucket, key));
        }
        return out;
    }

    /** The content of one object. */
    public byte[] get(String bucket, String key) {
        ResponseBytes<GetObjectResponse> bytes = client.getObjectAsBytes(b -> b.bucket(bucket).key(key));
        return bytes.asByteArray();
    }

    /** Puts one object. */
    public void put(String bucket, String key, byte[] content) {
        client.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(content));
    }

    /** The multipart uploads begun and neither completed nor aborted under {@code prefix}. */
    public List<String> openMultipartUploads(String bucket, String prefix) {
        List<String> keys = new ArrayList<>();
        for (MultipartUpload u : client.listMultipartUploads(b -> b.bucket(bucket).prefix(prefix)).uploads()) {
            keys.add(u.key());
        }
        return keys;
    }

    /**
     * Copies every object under {@code s3://bucket/prefix} into {@code target}, keeping the key's path
     * below the prefix, so that a local reader (DuckDB, a file browser) can open the dataset.
     */
    public Path download(String bucket, String prefix, Path target) {
        try {
            for (String key : list(bucket, prefix).keySet()) {
                Path file = target.resolve(key.substring(prefix.length()));
                Files.createDirectories(file.getParent());
                Files.write(file, get(bucket, key));
            }
            return target;
        } catch (IOException e) {
            throw new IllegalStateException("Cannot download s3://" + bucket + "/" + prefix + " to " + target, e);
        }
    }

    /** Stops the server; a temporary folder is removed, a named one is kept. */
    @Override
    public void close() {
        client.close();
        keys.close();
        app.stop();
        if (deleteRootOnClose) {
            deleteRecursively(root);
        }
    }

    private static void deleteRecursively(Path path) {
        try (var walk = Files.walk(path)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException ignored) {
            // A leftover temporary folder is harmless; the server is already stopped.
        }
    }
}
