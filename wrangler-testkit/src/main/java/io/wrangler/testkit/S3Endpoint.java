package io.wrangler.testkit;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * An S3Endpoint is a {@link MemoryS3} served over HTTP on 127.0.0.1: S3's REST API on the JDK's own HTTP server, for
 * clients in other processes (Spark executors, the AWS CLI, another JVM, DuckDB or pyarrow given the endpoint). It needs
 * nothing but the JDK and the AWS SDK: no Spring Boot, Tomcat, S3Mock or DuckDB.
 *
 * <p>Every request is served by the MemoryS3's own client, so what the MemoryS3 does is what the endpoint answers: its
 * semantics (see {@link MemoryS3}: conditional writes with 412, multipart uploads, copies, batch deletes, listings,
 * storage classes and tags), its faults ({@link MemoryS3#failNext} and the others: an S3 error is answered as S3
 * answers it, a connection reset or a lost answer closes the connection, a body cut short is cut on the wire), its
 * holds and its request log ({@link MemoryS3#requests}). A program can hand {@link MemoryS3#client()} to its own code
 * and {@link #endpoint()} to another process: both see the same buckets.
 *
 * <p>Served: ListBuckets, CreateBucket, HeadBucket, GetBucketLocation, PutObject, GetObject (ranges), HeadObject,
 * DeleteObject, DeleteObjects, CopyObject (with {@code x-amz-copy-source-if-match} / {@code -if-none-match} and
 * {@code If-None-Match} / {@code If-Match} on the target), CreateMultipartUpload, UploadPart, UploadPartCopy,
 * CompleteMultipartUpload, AbortMultipartUpload, ListParts, ListMultipartUploads, ListObjectsV2 (prefix, delimiter,
 * continuation token, start-after, max-keys, {@code encoding-type=url}), GetObjectTagging; path-style addressing, and
 * virtual-host style for hosts {@code <bucket>.localhost}. Bodies as the AWS SDK sends them by default
 * ({@code aws-chunked} with a checksum trailer) or plain; Content-MD5, {@code x-amz-content-sha256} and
 * {@code x-amz-checksum-*} (CRC32, CRC32C, CRC64NVME, SHA1, SHA256) are verified (400 BadDigest otherwise) and the
 * checksum is answered as S3 answers it. Errors are S3's XML bodies with S3's status codes (HEAD answers have no body).
 * Anything else (ListObjects version 1, versioning, ACLs, PutObjectTagging, DeleteBucket, ...) is answered 501
 * NotImplemented. Requests are not authenticated: any credentials and any region are accepted. The Date header is the
 * machine's clock (the JDK server sets it), not one moved by {@link MemoryS3#advanceClock}.
 *
 * <pre>{@code
 * try (MemoryS3 s3 = MemoryS3.start(); S3Endpoint http = s3.serve()) {
 *     s3.createBucket("lake");
 *     // this JVM: s3.client(); another process: http.endpoint(), path-style, any credentials
 * }
 * }</pre>
 *
 * <p>Requests are served by up to 64 threads at once (wrangler sends 48 at once by default); each
 * request is atomic against the others, as in the MemoryS3.
 */
public final class S3Endpoint implements S3Fixture {
    /** The access key {@link #client()} signs with; the endpoint accepts any. */
    public static final String ACCESS_KEY = "wrangler-local";
    private static final String SECRET_KEY = "wrangler-local-secret";
    static final int THREADS = 64;
    private static final AtomicInteger SERVERS = new AtomicInteger();

    private final MemoryS3 memory;
    private final HttpServer server;
    private final ExecutorService pool;
    private final S3Client client;

    private S3Endpoint(MemoryS3 memory, HttpServer server, ExecutorService pool) {
        this.memory = memory;
        this.server = server;
        this.pool = pool;
        this.client = newClient();
    }

    /** Serves a new, empty {@link MemoryS3}: {@code MemoryS3.start().serve()}. */
    public static S3Endpoint start() {
        return MemoryS3.start().serve();
    }

    static S3Endpoint serve(MemoryS3 memory) {
        try {
            HttpServer server = LoopbackHttp.create();
            int n = SERVERS.incrementAndGet();
            AtomicInteger threads = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(THREADS, r -> {
                Thread t = new Thread(r, "memory-s3-http-" + n + "-" + threads.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            server.setExecutor(pool);
            server.createContext("/", new S3Http(memory));
            server.start();
            return new S3Endpoint(memory, server, pool);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot start an S3Endpoint on 127.0.0.1", e);
        }
    }

    /** The endpoint to give any S3 client: {@code http://127.0.0.1:<port>}, path-style. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The MemoryS3 this endpoint serves: its client (no HTTP), its knobs, its request log. */
    public MemoryS3 memory() {
        return memory;
    }

    /**
     * A client of this endpoint over HTTP, as the AWS SDK makes one by default (its request checksums and
     * {@code aws-chunked} bodies included): path-style, static test credentials, region us-east-1. Shared; do not close it.
     */
    @Override
    public S3Client client() {
        return client;
    }

    /** A new client of this endpoint, as {@link #client()}, that the caller owns and closes. */
    public S3Client newClient() {
        return newClient(b -> { });
    }

    /** A new client of this endpoint, configured as {@link #newClient()} and then by {@code more}; the caller closes it. */
    public S3Client newClient(Consumer<S3ClientBuilder> more) {
        S3ClientBuilder builder = S3Client.builder().endpointOverride(endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
                .forcePathStyle(true)
                .httpClientBuilder(ApacheHttpClient.builder().maxConnections(THREADS).connectionTimeout(Duration.ofSeconds(5))
                        .socketTimeout(Duration.ofSeconds(60)));
        more.accept(builder);
        return builder.build();
    }

    @Override
    public void createBucket(String bucket) {
        memory.createBucket(bucket);
    }

    @Override
    public Map<String, Long> list(String bucket, String prefix) {
        return memory.list(bucket, prefix);
    }

    @Override
    public Map<String, byte[]> snapshot(String bucket, String prefix) {
        return memory.snapshot(bucket, prefix);
    }

    @Override
    public byte[] get(String bucket, String key) {
        return memory.get(bucket, key);
    }

    /** Puts one object through the endpoint (over HTTP). */
    @Override
    public void put(String bucket, String key, byte[] content) {
        client.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(content));
    }

    @Override
    public List<String> openMultipartUploads(String bucket, String prefix) {
        return memory.openMultipartUploads(bucket, prefix);
    }

    /** Stops serving (requests in flight are cut); the MemoryS3 and its objects stay. */
    @Override
    public void close() {
        client.close();
        server.stop(0);
        pool.shutdownNow();
    }
}
