package io.wrangler.commit;

import io.wrangler.CommitConflictException;
import io.wrangler.StorageException;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A TableLease is the right of one writer (or recovery) to change a table, held as the object
 * {@code <table>/_tmp/_lease.json} and taken with a conditional create ({@code If-None-Match: *}).
 *
 * <p>Each acquisition writes a token of its own (128 random bits) into the lease, so the lease's ETag differs from
 * every other acquisition's, even two runs of one keyed write. Renewal (every fifth of the time to live, in the
 * background: a live holder keeps its lease through four renewals in a row that fail or are late) and fencing
 * ({@link #check}, before every destructive step) are a compare-and-swap on the ETag this acquisition last wrote:
 * once another holder has taken the lease over, they fail, and the writer stops. Release is a conditional delete on
 * that ETag, so it never removes a lease someone else took.
 *
 * <p>A lease whose holder stopped renewing (a crashed or stalled writer) expires after its time to live. Its age is
 * measured with S3's clock alone (the object's Last-Modified against the Date of the answer), so clock skew between
 * machines does not matter; {@code clockOffset} is added to S3's clock, which is how tests make a lease expire
 * without waiting. An expired lease is taken over with a compare-and-swap, so two waiting writers cannot both take it.
 *
 * <p>What fencing cannot do: S3 has no transaction across objects, so between a successful check and the request it
 * guards, a writer that stalls for longer than the time to live (a suspended VM) can still send that one request after
 * another holder took over. Every destructive step is therefore checked immediately before it, and the manifest's
 * own compare-and-swap ({@link WriteLog}) decides the write's fate whichever of the two acts first.
 *
 * <p>It relies on the server enforcing conditional writes and deletes, and checks that it does on every acquisition.
 */
final class TableLease implements AutoCloseable {
    static final String NAME = "_lease.json";
    /** Renewals per time to live: with 5, a holder renews every fifth of it (2 s of the default 10 s). */
    static final int RENEWALS_PER_TTL = 5;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final S3Store store;
    private final String key;
    private final String table;
    private final String owner;
    private final String token;
    private final Duration ttl;
    private final ScheduledExecutorService renewer;
    private volatile String etag;
    private volatile boolean lost;
    private volatile boolean released;

    /** The lease was taken over by another holder (or removed): this holder must stop. */
    static final class Lost extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Lost(String message, Throwable cause) {
            super(message, cause, false, false);
        }
    }

    private TableLease(S3Store store, S3Location location, String owner, String token, Duration ttl, String etag) {
        this.store = store;
        this.key = location.tmpPrefix() + NAME;
        this.table = location.uri();
        this.owner = owner;
        this.token = token;
        this.ttl = ttl;
        this.etag = etag;
        this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "wrangler-lease");
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(50, ttl.toMillis() / RENEWALS_PER_TTL);
        renewer.scheduleWithFixedDelay(this::renewQuietly, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * Takes the table's lease for {@code owner}, waiting up to {@code wait} for a held one to be released or to expire.
     *
     * @throws CommitConflictException when another holder keeps it beyond {@code wait}: rerunning later is safe
     * @throws StorageException when the server does not enforce conditional writes or deletes
     */
    static TableLease acquire(S3Store store, S3Location location, String owner, Duration ttl, Duration wait, Duration clockOffset) {
        String key = location.tmpPrefix() + NAME;
        String table = location.uri();
        long deadline = System.nanoTime() + wait.toNanos();
        String token = HexFormat.of().formatHex(randomBytes());
        byte[] body = body(owner, token, ttl);
        String waitingOn = null;
        while (true) {
            try {
                String etag = store.putIf(key, body, null);
                checkEnforced(store, key, body, etag, table);
                return new TableLease(store, location, owner, token, ttl, etag);
            } catch (S3Exception e) {
                if (!conflict(e)) {
                    throw e;
                }
            }
            Held held = read(store, key, clockOffset);
            if (held != null && token.equals(held.token())) {
                // This acquisition's own create was applied though its answer said otherwise (a conflict answered to a
                // create racing the previous holder's release, or a retried create): the lease is ours, under the ETag
                // just read. Without this the writer would wait out its own lease's whole time to live.
                checkEnforced(store, key, body, held.etag(), table);
                return new TableLease(store, location, owner, token, ttl, held.etag());
            }
            if (held != null && held.expired()) {
                try {
                    String etag = store.putIf(key, body, held.etag);
                    Logs.COMMIT.log(Level.INFO, () -> "Took over the expired lease of " + table + " from " + held.owner + " (last renewed "
                            + held.age.toSeconds() + " s ago, time to live " + held.ttl.toSeconds() + " s) for " + owner
                            + "; what it left is recovered next.");
                    return new TableLease(store, location, owner, token, ttl, etag);
                } catch (S3Exception e) {
                    if (!conflict(e)) {
                        throw e;
                    }
                    continue; // someone else took it over first
                }
            }
            if (System.nanoTime() > deadline) {
                throw Outcomes.leaseHeld(table, held == null ? "unknown" : held.owner, held == null ? "?" : held.age.toSeconds() + " s ago", ttl);
            }
            if (held != null && !held.token.equals(waitingOn)) {
                waitingOn = held.token;
                long left = Math.max(0, (deadline - System.nanoTime() + 999_999_999L) / 1_000_000_000L);
                Logs.COMMIT.log(Level.INFO, () -> owner + " waits for the lease of " + table + ": " + held.owner + " holds it, renewed "
                        + held.age.toSeconds() + " s ago. It is free when that writer ends, or taken over in about "
                        + (held.ttl.minus(held.age).toSeconds() + 1) + " s if it is not renewed by then (time to live "
                        + held.ttl.toSeconds() + " s); waiting up to " + left + " s.");
            }
            sleep(Math.max(20, Math.min(1000, ttl.toMillis() / 10)), table);
        }
    }

    private static byte[] randomBytes() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return b;
    }

    private static byte[] body(String owner, String token, Duration ttl) {
        return ("{\"owner\": \"" + owner + "\", \"token\": \"" + token + "\", \"ttlMillis\": " + ttl.toMillis() + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static boolean conflict(S3Exception e) {
        return e.statusCode() == 412 || e.statusCode() == 409;
    }

    /**
     * A server that ignores If-None-Match would let every writer "take" the lease, and one that ignores If-Match on a
     * delete would let a stale holder remove the next holder's lease: refuse to rely on either.
     */
    private static void checkEnforced(S3Store store, String key, byte[] body, String etag, String table) {
        String what = null;
        try {
            store.putIf(key, body, null);
            what = "a second conditional create (If-None-Match: *)";
        } catch (S3Exception e) {
            if (!conflict(e)) {
                throw e;
            }
        }
        if (what == null) {
            try {
                store.deleteIf(key, "\"00000000000000000000000000000000\"");
                what = "a conditional delete (If-Match) with another ETag";
            } catch (S3Exception e) {
                if (!conflict(e)) {
                    throw e;
                }
                return;
            }
        }
        store.delete(List.of(key));
        throw Outcomes.unconditionalEndpoint(table, what, key);
    }

    /**
     * @param age less than the lease's true age: S3's clock when it answered less Last-Modified, both in whole seconds, less
     *     one second. Expired once it is over the time to live: 11 to 13 s after the last renewal for 10 s, a second more
     *     than the whole seconds require, kept as a margin for a server that rounds them otherwise.
     */
    private record Held(String owner, String token, String etag, Duration age, Duration ttl) {
        boolean expired() {
            return age.compareTo(ttl) > 0;
        }
    }

    /** True when a holder whose time to live has not run out holds the table's lease (a writer that may still be running). */
    static boolean heldLive(S3Store store, S3Location location, Duration clockOffset) {
        Held h = read(store, location.tmpPrefix() + NAME, clockOffset);
        return h != null && !h.expired();
    }

    private static Held read(S3Store store, String key, Duration clockOffset) {
        Optional<S3Store.Versioned> got = store.getVersioned(key);
        if (got.isEmpty()) {
            return null;
        }
        S3Store.Versioned r = got.get();
        String json = new String(r.content(), StandardCharsets.UTF_8);
        String owner = field(json, "owner");
        long ttl = Long.parseLong(field(json, "ttlMillis"));
        Instant modified = r.lastModified();
        Instant now = (r.date() != null ? r.date() : Instant.now()).plus(clockOffset);
        // Last-Modified and Date have second precision: count the lease as one second younger to be safe.
        Duration age = Duration.between(modified, now).minusSeconds(1);
        return new Held(owner, field(json, "token"), r.etag(), age.isNegative() ? Duration.ZERO : age, Duration.ofMillis(ttl));
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
            // the next fencing check reports it
            if (released || renewer.isShutdown()) {
                return; // interrupted by close() or abandon()
            }
            Logs.COMMIT.log(Level.WARNING, () -> "Could not renew the lease of " + table + " held by " + owner + ": " + e.getMessage()
                    + (lost ? "" : "; trying again in " + ttl.toMillis() / RENEWALS_PER_TTL + " ms (it expires "
                    + ttl.toSeconds() + " s after its last renewal)"));
        }
    }

    private synchronized void renew() {
        if (lost) {
            throw lost(null);
        }
        if (released) {
            throw new IllegalStateException("the lease of " + table + " was released");
        }
        try {
            etag = store.putIf(key, body(owner, token, ttl), etag);
            Logs.COMMIT.log(Level.DEBUG, () -> "Renewed the lease of " + table + " held by " + owner);
        } catch (S3Exception e) {
            if (e.statusCode() == 412 || e.statusCode() == 409 || e.statusCode() == 404) {
                lost = true;
                throw lost(e);
            }
            throw e;
        }
    }

    /**
     * Fencing: renews now, proving the lease is still this holder's; called immediately before every destructive step.
     *
     * @throws Lost when another holder has taken the lease over
     */
    void check() {
        renew();
    }

    /** True once a renewal or check found the lease taken over. */
    boolean lost() {
        return lost;
    }

    private Lost lost(Throwable cause) {
        return new Lost("the table lease of " + owner + " was taken over by another writer or a recovery (it was not renewed "
                + "within " + ttl.toSeconds() + " s, or was removed)", cause);
    }

    /** Stops renewing and removes the lease if it is still this acquisition's (a conditional delete on its ETag). */
    @Override
    public void close() {
        renewer.shutdownNow();
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
            if (!lost) {
                try {
                    store.deleteIf(key, etag);
                    return;
                } catch (RuntimeException e) {
                    // taken over meanwhile (412), our own last renewal applied but unanswered, or S3 failed: see below
                }
            }
            // A renewal whose answer was lost (interrupted, timed out, or answered 409 while another writer polled) can
            // leave this acquisition's lease in place under an ETag it never learned, and the next writer would wait out
            // the whole time to live. The token is this acquisition's alone: while the lease still holds it, nobody took
            // it over, and a conditional delete on the ETag just read removes exactly it.
            try {
                Held held = read(store, key, Duration.ZERO);
                if (held != null && token.equals(held.token())) {
                    store.deleteIf(key, held.etag());
                }
            } catch (RuntimeException e) {
                // S3 failed, or taken over between the read and the delete: it expires on its own
                Logs.COMMIT.log(Level.WARNING, () -> "Could not release the lease of " + table + " held by " + owner + " ("
                        + e.getMessage() + "); it expires on its own " + ttl.toSeconds() + " s after its last renewal.");
            }
        }
    }

    /** Stops renewing without removing the lease: what a crash leaves. */
    void abandon() {
        renewer.shutdownNow();
    }

    private static void sleep(long millis, String table) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Outcomes.leaseWaitInterrupted(table, e);
        }
    }
}
