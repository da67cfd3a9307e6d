package io.wrangler.commit;

import io.wrangler.CommitConflictException;
import io.wrangler.StorageException;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A TableLease is the right of one writer (or recovery) to change a table, held as the object
 * {@code <table>/_tmp/_lease.json} and taken with a conditional create ({@code If-None-Match: *}).
 *
 * <p>While held it is renewed in the background every quarter of its time to live with a compare-and-swap
 * ({@code If-Match} on the ETag of the last renewal), and checked the same way before the commit point (fencing): a
 * writer whose lease was taken over fails with a {@link CommitConflictException} before it publishes anything. A lease
 * whose holder stopped renewing (a crashed writer) expires after its time to live; its age is measured with S3's
 * clock alone (the object's Last-Modified against the Date of the answer), so clock skew between machines does not
 * matter. An expired lease is taken over with a compare-and-swap, so two waiting writers cannot both take it.
 *
 * <p>It relies on the server enforcing conditional writes. Taking a lease checks that it does (a second conditional
 * create of the lease must be refused) and refuses to go on against a server that ignores them.
 */
final class TableLease implements AutoCloseable {
    static final String NAME = "_lease.json";

    private final S3Store store;
    private final String key;
    private final String table;
    private final String owner;
    private final Duration ttl;
    private final ScheduledExecutorService renewer;
    private volatile String etag;
    private volatile boolean lost;

    private TableLease(S3Store store, String key, String table, String owner, Duration ttl, String etag) {
        this.store = store;
        this.key = key;
        this.table = table;
        this.owner = owner;
        this.ttl = ttl;
        this.etag = etag;
        this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "wrangler-lease");
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(50, ttl.toMillis() / 4);
        renewer.scheduleWithFixedDelay(this::renewQuietly, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * Takes the table's lease for {@code owner}, waiting up to {@code wait} for a held one to be released or to expire.
     *
     * @throws CommitConflictException when another holder keeps it beyond {@code wait}: rerunning later is safe
     * @throws StorageException when the server does not enforce conditional writes
     */
    static TableLease acquire(S3Store store, S3Location location, String owner, Duration ttl, Duration wait) {
        String key = location.tmpPrefix() + NAME;
        String table = location.uri();
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            try {
                String etag = create(store, key, owner, ttl, null);
                checkEnforced(store, key, owner, ttl, table);
                return new TableLease(store, key, table, owner, ttl, etag);
            } catch (S3Exception e) {
                if (e.statusCode() != 412 && e.statusCode() != 409) {
                    throw e;
                }
            }
            Held held = read(store, key);
            if (held != null && held.expired()) {
                try {
                    String etag = create(store, key, owner, ttl, held.etag);
                    return new TableLease(store, key, table, owner, ttl, etag);
                } catch (S3Exception e) {
                    if (e.statusCode() != 412 && e.statusCode() != 409) {
                        throw e;
                    }
                    continue; // someone else took it over first
                }
            }
            if (System.nanoTime() > deadline) {
                throw new CommitConflictException(table, Step.VALIDATE.label(), "Cannot write " + table + " (step: lease): another "
                        + "writer holds the table (" + (held == null ? "unknown" : held.owner) + ", renewed " + (held == null ? "?"
                        : held.age.toSeconds() + " s ago") + "). Nothing was written; rerunning is safe once it has finished, or after its "
                        + "lease expires (" + ttl.toSeconds() + " s after its last renewal) if it crashed.", null);
            }
            sleep(Math.max(20, Math.min(1000, ttl.toMillis() / 10)));
        }
    }

    private static String create(S3Store store, String key, String owner, Duration ttl, String ifMatch) {
        PutObjectRequest.Builder put = PutObjectRequest.builder().key(key);
        if (ifMatch == null) {
            put.ifNoneMatch("*");
        } else {
            put.ifMatch(ifMatch);
        }
        String json = "{\"owner\": \"" + owner + "\", \"ttlMillis\": " + ttl.toMillis() + "}";
        PutObjectResponse r = store.putObject(put, RequestBody.fromString(json));
        return r.eTag();
    }

    /** A server that ignores If-None-Match would let every writer "take" the lease: refuse to rely on it. */
    private static void checkEnforced(S3Store store, String key, String owner, Duration ttl, String table) {
        try {
            create(store, key, owner, ttl, null);
        } catch (S3Exception e) {
            if (e.statusCode() == 412 || e.statusCode() == 409) {
                return;
            }
            throw e;
        }
        store.delete(java.util.List.of(key));
        throw new StorageException(table, "lease", "Cannot write " + table + " (step: lease): the S3 endpoint accepted a second "
                + "conditional create (If-None-Match: *) of " + key + ", so it does not enforce conditional writes and a table lease "
                + "cannot keep two writers apart. Use an endpoint that enforces them (AWS S3 does), or turn the lease off with "
                + "lease(false) and make sure yourself that only one writer runs per table.", null, 200, null);
    }

    private record Held(String owner, String etag, Duration age, Duration ttl) {
        boolean expired() {
            return age.compareTo(ttl) > 0;
        }
    }

    private static Held read(S3Store store, String key) {
        ResponseBytes<GetObjectResponse> r;
        try {
            r = store.options().run(() -> store.client().getObjectAsBytes(b -> b.bucket(store.bucket()).key(key)
                    .expectedBucketOwner(store.options().expectedBucketOwner())));
        } catch (NoSuchKeyException e) {
            return null;
        }
        String json = r.asUtf8String();
        String owner = field(json, "owner");
        long ttl = Long.parseLong(field(json, "ttlMillis"));
        Instant modified = r.response().lastModified();
        Instant now = r.response().sdkHttpResponse().firstMatchingHeader("Date")
                .map(d -> ZonedDateTime.parse(d, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant()).orElse(Instant.now());
        // Last-Modified and Date have second precision: count the lease as one second younger to be safe.
        Duration age = Duration.between(modified, now).minusSeconds(1);
        return new Held(owner, r.response().eTag(), age.isNegative() ? Duration.ZERO : age, Duration.ofMillis(ttl));
    }

    private static String field(String json, String name) {
        int at = json.indexOf("\"" + name + "\"");
        int colon = json.indexOf(':', at);
        int end = colon + 1;
        while (end < json.length() && ",}".indexOf(json.charAt(end)) < 0) {
            end++;
        }
        return json.substring(colon + 1, end).trim().replace("\"", "");
    }

    private void renewQuietly() {
        try {
            renew();
        } catch (RuntimeException e) {
            // the next renewal or the fencing check reports it
        }
    }

    private synchronized void renew() {
        if (lost) {
            throw lostLease(null);
        }
        try {
            etag = create(store, key, owner, ttl, etag);
        } catch (S3Exception e) {
            if (e.statusCode() == 412 || e.statusCode() == 409) {
                lost = true;
                throw lostLease(e);
            }
            throw e;
        }
    }

    /** Fencing: renews now, proving the lease is still this writer's, or throws a CommitConflictException. */
    void check(Step step) {
        try {
            renew();
        } catch (CommitConflictException e) {
            throw new CommitConflictException(table, step.label(), e.getMessage(), e.getCause());
        } catch (SdkException e) {
            throw Failures.storage(table, step, "renew the table lease", e, "Nothing was published; rerun the write.");
        }
    }

    private CommitConflictException lostLease(Throwable cause) {
        return new CommitConflictException(table, "lease", "Cannot write " + table + " (step: lease): this write's lease on the table was "
                + "taken over by another writer (it was not renewed within " + ttl.toSeconds() + " s, or was removed). This write "
                + "stopped before publishing; rerunning it is safe.", cause);
    }

    /** Stops renewing and removes the lease if it is still this writer's. A crashed writer's lease simply expires. */
    @Override
    public void close() {
        renewer.shutdownNow();
        synchronized (this) {
            if (!lost) {
                try {
                    Held held = read(store, key);
                    if (held != null && owner.equals(held.owner)) {
                        store.delete(java.util.List.of(key));
                    }
                } catch (RuntimeException e) {
                    // it expires on its own
                }
            }
        }
    }

    /** Stops renewing without removing the lease: what a crash leaves. */
    void abandon() {
        renewer.shutdownNow();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the table lease", e);
        }
    }
}
