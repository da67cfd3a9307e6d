package io.wrangler.testkit;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * A NetworkProfile makes {@link LocalS3} answer as S3 does over a network: each answer's first byte waits a delay chosen
 * per kind of request, request and response bodies flow at a limited rate per connection, and optionally only so many
 * requests are served at once.
 *
 * <pre>{@code
 * NetworkProfile aws = NetworkProfile.builder()
 *         .firstByte(Duration.ofMillis(30))
 *         .bytesPerSecond(80_000_000)
 *         .build();
 * try (LocalS3 s3 = LocalS3.start(aws)) { ... }
 * }</pre>
 *
 * <p>What it models, and what not:
 * <ul>
 *   <li>The delay is counted from the moment the request's body has been received in full (or the request line and
 *       headers, for a request without a body) to the answer's status line. The local server's own work (S3Mock's) runs
 *       inside that delay; a server slower than the delay adds its excess on top.</li>
 *   <li>The bandwidth is per request; an HTTP/1.1 connection carries one request at a time, so it is also per connection.
 *       Request bodies are read from the client at that rate, response bodies written at it. TCP slow start, TLS and
 *       connection setup are not modelled: the SDK keeps its connections open.</li>
 *   <li>{@link Builder#maxConcurrentRequests(int)} caps the requests served at once (fairly, first come first served);
 *       the ones over it wait, as a client waits for a free connection. 0 means no cap.</li>
 * </ul>
 */
public final class NetworkProfile {
    /** The kinds of request a delay can be set for. */
    public enum RequestType {
        /** PutObject. */
        PUT,
        /** GetObject (whole or ranged). */
        GET,
        /** ListObjects(V2), ListMultipartUploads, ListParts, ListBuckets. */
        LIST,
        /** CopyObject and UploadPartCopy. */
        COPY,
        /** DeleteObject, DeleteObjects (batch) and AbortMultipartUpload. */
        DELETE,
        /** CreateMultipartUpload. */
        CREATE_MULTIPART,
        /** UploadPart. */
        UPLOAD_PART,
        /** CompleteMultipartUpload. */
        COMPLETE_MULTIPART,
        /** HeadObject and HeadBucket. */
        HEAD,
        /** Anything else (CreateBucket, bucket configuration). */
        OTHER
    }

    private static final NetworkProfile NONE = builder().build();

    private final Map<RequestType, Duration> firstByte;
    private final long bytesPerSecond;
    private final int maxConcurrentRequests;

    private NetworkProfile(Builder b) {
        this.firstByte = new EnumMap<>(b.firstByte);
        this.bytesPerSecond = b.bytesPerSecond;
        this.maxConcurrentRequests = b.maxConcurrentRequests;
    }

    /** No delay, no bandwidth limit, no cap: LocalS3 as fast as this machine serves it. */
    public static NetworkProfile none() {
        return NONE;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The delay before the first byte of the answer to a request of this type ({@link Duration#ZERO} if none). */
    public Duration firstByte(RequestType type) {
        return firstByte.getOrDefault(type, Duration.ZERO);
    }

    /** Bytes per second of a request's body and of its answer's body, per connection; 0 means unlimited. */
    public long bytesPerSecond() {
        return bytesPerSecond;
    }

    /** Requests served at once; 0 means no cap. */
    public int maxConcurrentRequests() {
        return maxConcurrentRequests;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("NetworkProfile[firstByte ");
        if (firstByte.values().stream().distinct().count() <= 1 && firstByte.size() == RequestType.values().length) {
            sb.append(firstByte.get(RequestType.PUT).toMillis()).append(" ms for every request");
        } else {
            sb.append(firstByte.isEmpty() ? "0" : firstByte.toString());
        }
        sb.append(", ").append(bytesPerSecond == 0 ? "unlimited" : String.format("%.1f MB/s", bytesPerSecond / 1e6)).append(" per connection");
        sb.append(", ").append(maxConcurrentRequests == 0 ? "no cap" : "at most " + maxConcurrentRequests + " requests at once").append(']');
        return sb.toString();
    }

    /** Builds a {@link NetworkProfile}; every setting starts at "none". */
    public static final class Builder {
        private final Map<RequestType, Duration> firstByte = new EnumMap<>(RequestType.class);
        private long bytesPerSecond;
        private int maxConcurrentRequests;

        private Builder() {
        }

        /** The same first-byte delay for every type of request; types set afterwards keep their own. */
        public Builder firstByte(Duration delay) {
            for (RequestType t : RequestType.values()) {
                firstByte(t, delay);
            }
            return this;
        }

        /** The first-byte delay of one type of request. */
        public Builder firstByte(RequestType type, Duration delay) {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(delay, "delay");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("a first-byte delay cannot be negative: " + delay);
            }
            firstByte.put(type, delay);
            return this;
        }

        /** Bytes per second per connection, for request and response bodies alike; 0 for unlimited. */
        public Builder bytesPerSecond(long bytesPerSecond) {
            if (bytesPerSecond < 0) {
                throw new IllegalArgumentException("bandwidth cannot be negative: " + bytesPerSecond);
            }
            this.bytesPerSecond = bytesPerSecond;
            return this;
        }

        /** At most this many requests served at once, the others waiting their turn; 0 for no cap. */
        public Builder maxConcurrentRequests(int max) {
            if (max < 0) {
                throw new IllegalArgumentException("the cap cannot be negative: " + max);
            }
            this.maxConcurrentRequests = max;
            return this;
        }

        public NetworkProfile build() {
            return new NetworkProfile(this);
        }
    }
}
