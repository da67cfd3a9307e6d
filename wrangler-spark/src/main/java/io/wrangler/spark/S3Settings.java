package io.wrangler.spark;

import java.io.Serializable;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * S3Settings say how to build the S3 client on every executor (and on the driver): a client is not serializable, these
 * settings are. By default the SDK's default chains (region from {@code AWS_REGION} or the instance, credentials from
 * the environment, profile or the instance role: what EMR and AWS Glue jobs give their executors). Each JVM builds one
 * client per distinct settings and keeps it.
 *
 * <p>Static credentials travel with every task to the executors: prefer the default chain (an instance or job role).
 *
 * <pre>{@code
 * S3Settings.defaults()                                   // AWS, default chains
 * S3Settings.defaults().region("eu-west-1")
 * S3Settings.defaults().endpoint(URI.create("http://127.0.0.1:9000")).pathStyle(true)
 *     .staticCredentials("key", "secret", null).chunkedEncoding(false).checksumsWhenRequired(true)   // a local S3
 * }</pre>
 */
public final class S3Settings implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Map<S3Settings, S3Client> CLIENTS = new ConcurrentHashMap<>();

    private final String endpoint;
    private final String region;
    private final boolean pathStyle;
    private final String accessKeyId;
    private final String secretAccessKey;
    private final String sessionToken;
    private final String profile;
    private final boolean chunkedEncoding;
    private final boolean checksumsWhenRequired;
    private final int maxConnections;

    private S3Settings(String endpoint, String region, boolean pathStyle, String accessKeyId, String secretAccessKey, String sessionToken,
                       String profile, boolean chunkedEncoding, boolean checksumsWhenRequired, int maxConnections) {
        this.endpoint = endpoint;
        this.region = region;
        this.pathStyle = pathStyle;
        this.accessKeyId = accessKeyId;
        this.secretAccessKey = secretAccessKey;
        this.sessionToken = sessionToken;
        this.profile = profile;
        this.chunkedEncoding = chunkedEncoding;
        this.checksumsWhenRequired = checksumsWhenRequired;
        this.maxConnections = maxConnections;
    }

    /** The SDK's default region and credentials chains, AWS's endpoint, virtual-hosted addressing. */
    public static S3Settings defaults() {
        return new S3Settings(null, null, false, null, null, null, null, true, false, 64);
    }

    /** Another endpoint (an S3-compatible store, a VPC endpoint). */
    public S3Settings endpoint(URI uri) {
        return new S3Settings(uri.toString(), region, pathStyle, accessKeyId, secretAccessKey, sessionToken, profile, chunkedEncoding,
                checksumsWhenRequired, maxConnections);
    }

    public S3Settings region(String name) {
        return new S3Settings(endpoint, Objects.requireNonNull(name, "name"), pathStyle, accessKeyId, secretAccessKey, sessionToken,
                profile, chunkedEncoding, checksumsWhenRequired, maxConnections);
    }

    /** Path-style addressing ({@code endpoint/bucket/key}), which most S3-compatible stores need. */
    public S3Settings pathStyle(boolean enabled) {
        return new S3Settings(endpoint, region, enabled, accessKeyId, secretAccessKey, sessionToken, profile, chunkedEncoding,
                checksumsWhenRequired, maxConnections);
    }

    /** Fixed credentials (they travel to the executors with every task); {@code sessionToken} may be null. */
    public S3Settings staticCredentials(String accessKeyId, String secretAccessKey, String sessionToken) {
        return new S3Settings(endpoint, region, pathStyle, Objects.requireNonNull(accessKeyId, "accessKeyId"),
                Objects.requireNonNull(secretAccessKey, "secretAccessKey"), sessionToken, null, chunkedEncoding, checksumsWhenRequired,
                maxConnections);
    }

    /** Credentials of a named profile of the executors' AWS config files. */
    public S3Settings profile(String name) {
        return new S3Settings(endpoint, region, pathStyle, null, null, null, Objects.requireNonNull(name, "name"), chunkedEncoding,
                checksumsWhenRequired, maxConnections);
    }

    /** Whether bodies over plain HTTP are sent aws-chunked (the SDK's default; a local S3Mock wants false). */
    public S3Settings chunkedEncoding(boolean enabled) {
        return new S3Settings(endpoint, region, pathStyle, accessKeyId, secretAccessKey, sessionToken, profile, enabled,
                checksumsWhenRequired, maxConnections);
    }

    /** Request and response checksums only where S3 requires them (for stores that do not know the newer ones). */
    public S3Settings checksumsWhenRequired(boolean enabled) {
        return new S3Settings(endpoint, region, pathStyle, accessKeyId, secretAccessKey, sessionToken, profile, chunkedEncoding, enabled,
                maxConnections);
    }

    /** The HTTP connection pool of each client (64 by default): at least the write's concurrency. */
    public S3Settings maxConnections(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1, got " + n);
        }
        return new S3Settings(endpoint, region, pathStyle, accessKeyId, secretAccessKey, sessionToken, profile, chunkedEncoding,
                checksumsWhenRequired, n);
    }

    /** This JVM's client for these settings, built once; shared, never closed by the caller. */
    public S3Client client() {
        return CLIENTS.computeIfAbsent(this, S3Settings::build);
    }

    /**
     * Makes {@code client} this JVM's client for {@code settings}, in place of the one they would build. Not API: for
     * benchmarks and tests in local mode, where the executors share the driver's JVM, to hand every task an S3 that is
     * not reached over HTTP (an in-memory one). Has no effect on other JVMs.
     */
    static void useInThisJvm(S3Settings settings, S3Client client) {
        CLIENTS.put(Objects.requireNonNull(settings, "settings"), Objects.requireNonNull(client, "client"));
    }

    private S3Client build() {
        S3ClientBuilder b = S3Client.builder()
                .forcePathStyle(pathStyle)
                .serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(chunkedEncoding).build())
                .httpClientBuilder(ApacheHttpClient.builder().maxConnections(maxConnections).connectionTimeout(Duration.ofSeconds(10))
                        .socketTimeout(Duration.ofSeconds(60)));
        if (endpoint != null) {
            b.endpointOverride(URI.create(endpoint));
        }
        if (region != null) {
            b.region(Region.of(region));
        }
        if (checksumsWhenRequired) {
            b.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                    .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        }
        b.credentialsProvider(credentials());
        return b.build();
    }

    private AwsCredentialsProvider credentials() {
        if (accessKeyId != null) {
            return StaticCredentialsProvider.create(sessionToken == null ? AwsBasicCredentials.create(accessKeyId, secretAccessKey)
                    : AwsSessionCredentials.create(accessKeyId, secretAccessKey, sessionToken));
        }
        if (profile != null) {
            return ProfileCredentialsProvider.create(profile);
        }
        return DefaultCredentialsProvider.builder().build();
    }

    /** The settings the data source's {@code s3.*} options give (see docs/spark.md, "Options of the data source"); absent ones keep their defaults. */
    static S3Settings fromOptions(Map<String, String> o) {
        S3Settings s = defaults();
        if (o.get("s3.endpoint") != null) {
            s = s.endpoint(URI.create(o.get("s3.endpoint")));
        }
        if (o.get("s3.region") != null) {
            s = s.region(o.get("s3.region"));
        }
        if (o.get("s3.pathstyle") != null) {
            s = s.pathStyle(Boolean.parseBoolean(o.get("s3.pathstyle")));
        }
        if (o.get("s3.accesskeyid") != null) {
            s = s.staticCredentials(o.get("s3.accesskeyid"), Objects.requireNonNull(o.get("s3.secretaccesskey"),
                    "the option s3.secretAccessKey must accompany s3.accessKeyId"), o.get("s3.sessiontoken"));
        }
        if (o.get("s3.profile") != null) {
            s = s.profile(o.get("s3.profile"));
        }
        if (o.get("s3.chunkedencoding") != null) {
            s = s.chunkedEncoding(Boolean.parseBoolean(o.get("s3.chunkedencoding")));
        }
        if (o.get("s3.checksumswhenrequired") != null) {
            s = s.checksumsWhenRequired(Boolean.parseBoolean(o.get("s3.checksumswhenrequired")));
        }
        if (o.get("s3.maxconnections") != null) {
            s = s.maxConnections(Integer.parseInt(o.get("s3.maxconnections")));
        }
        return s;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof S3Settings s && Objects.equals(endpoint, s.endpoint) && Objects.equals(region, s.region) && pathStyle == s.pathStyle
                && Objects.equals(accessKeyId, s.accessKeyId) && Objects.equals(secretAccessKey, s.secretAccessKey)
                && Objects.equals(sessionToken, s.sessionToken) && Objects.equals(profile, s.profile) && chunkedEncoding == s.chunkedEncoding
                && checksumsWhenRequired == s.checksumsWhenRequired && maxConnections == s.maxConnections;
    }

    @Override
    public int hashCode() {
        return Objects.hash(endpoint, region, pathStyle, accessKeyId, secretAccessKey, sessionToken, profile, chunkedEncoding,
                checksumsWhenRequired, maxConnections);
    }

    @Override
    public String toString() {
        return "S3Settings[endpoint=" + (endpoint == null ? "AWS" : endpoint) + ", region=" + (region == null ? "default" : region)
                + ", pathStyle=" + pathStyle + ", credentials=" + (accessKeyId != null ? "static" : profile != null ? "profile " + profile
                : "default chain") + "]";
    }
}
