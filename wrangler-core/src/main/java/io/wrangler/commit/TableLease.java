package io.wrangler.commit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.wrangler.CommitConflictException;
import io.wrangler.StorageException;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.lang.System.Logger.Level;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A TableLease is the right of one writer (or recovery) to change a table, held as the object
 * {@code <table>/_tmp/_lease.json} and taken with a conditional create ({@code If-None-Match: *}).
 *
 * <p>Each acquisition writes a token of its own (128 random bits) into the lease, so the lease's ETag differs from
 * every other acquisition's, even two runs of one keyed write; and each renewal a number of its own, so the ETag changes on
 * every renewal: a takeover's compare-and-swap on the ETag of the expired lease it read fails once the holder renewed
 * after that read (with the same bytes on every renewal, a renewal applied between the read and the swap would leave the
 * ETag as read, and the takeover would succeed on a lease renewed an instant before). Renewal (every fifth of the time to live, in the
 * background: a live holder keeps its lease through four renewals in a row that fail or are late) and fencing
 * ({@link #check}, before every destructive step) are a compare-and-swap on the ETag this acquisition last learned:
 * once another holder has taken the lease over, they fail, and the writer stops. Release is a conditional delete on
 * that ETag, so it never removes a lease someone else took.
 *
 * <p>One slow request costs nothing: every lease request gives up an attempt after {@link #attemptTimeout} (half a
 * renewal interval) and retries it on another connection; each renewal is sent on a thread of its own at its interval,
 * whether or not an earlier one is still in flight (at most {@link #RENEWALS_PER_TTL} at once); a fence sends its own
 * request, after letting a renewal in flight answer for at most one attempt's timeout ({@link #check}). So several requests of one holder can be in flight: a refusal counts as a
 * takeover only when the lease no longer holds this acquisition's token, and a success counts only when it was answered
 * within half the time to live of being sent (it was applied while the lease was this holder's; a takeover needs the
 * whole time to live to pass after it).
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
 * <p>It relies on the server enforcing conditional writes and deletes, and checks that it does on every acquisition
 * (for a write, beside its first fence: {@link #acquireCheckingBeside}).
 */
final class TableLease implements AutoCloseable {
    static final String NAME = "_lease.json";
    /** Renewals per time to live: with 5, a holder renews every fifth of it (2 s of the default 10 s). */
    static final int RENEWALS_PER_TTL = 5;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * The time to live of a lease that cannot be read (not a JSON object, or without a whole {@code ttlMillis} that fits
     * a long): the default one, counted from its object's Last-Modified.
     */
    static final Duration UNREADABLE_TTL = WriteSpec.Tuning.defaults().leaseTtl();

    private final S3Store store;
    private final String key;
    private final String table;
    private final String owner;
    private final String token;
    private final Duration ttl;
    /** Sends a renewal every interval, on a thread of {@link #senders}: it never waits for one. */
    private final ScheduledExecutorService ticker;
    private final ExecutorService senders;
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Renewals sending their compare-and-swap now: a fence lets them answer before it sends its own ({@link #check}). */
    private final AtomicInteger renewing = new AtomicInteger();
    /** Fences waiting or sending: a renewal due meanwhile is not sent (the fence renews). */
    private final AtomicInteger fencing = new AtomicInteger();
    /**
     * Fences send their compare-and-swaps one at a time: fences of one holder at once (copies in parts completing on
     * several threads) would all swap on the same ETag, and each refused one would read and swap again, up to
     * {@link #RENEWALS_PER_TTL} rounds, then fail on a lease that is still this holder's.
     */
    private final Object fenceTurn = new Object();
    /** When ({@link System#nanoTime}) the last fence whose swap succeeded sent it; guarded by {@link #fenceTurn}. */
    private long fencedAt;
    private boolean fenced;
    /** The number the next renewal writes into the lease (the acquisition wrote 0): every renewal changes the ETag. */
    private final AtomicLong renewals = new AtomicLong();
    /** The ETag of the lease as this holder last learned it; moves only from the value a request was sent with. */
    private final AtomicReference<String> etag;
    private volatile boolean lost;
    private volatile boolean released;
    /** The check of conditional requests sent beside the first fence: what the endpoint wrongly accepted, or null; null when none is pending. */
    private volatile CompletableFuture<String> enforced;
    /** The body of the create that took this lease, until the caller checks that the endpoint enforces conditions. */
    private byte[] unchecked;

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
        this.etag = new AtomicReference<>(etag);
        this.ticker = Executors.newSingleThreadScheduledExecutor(daemon("wrangler-lease"));
        this.senders = Executors.newCachedThreadPool(daemon("wrangler-lease-renewal"));
        long every = Math.max(50, ttl.toMillis() / RENEWALS_PER_TTL);
        ticker.scheduleAtFixedRate(this::sendRenewal, every, every, TimeUnit.MILLISECONDS);
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * The attempt timeout of every lease request: half a renewal interval (1 s of the default 10 s time to live), so
     * that a request stuck in the network is given up and sent again (another connection) long before the lease ages
     * out, and a renewal's answer that counts is at most that old.
     */
    static Duration attemptTimeout(Duration ttl) {
        return Duration.ofMillis(Math.max(100, ttl.toMillis() / RENEWALS_PER_TTL / 2));
    }

    /**
     * Takes the table's lease for {@code owner}, waiting up to {@code wait} for a held one to be released or to expire.
     *
     * @throws CommitConflictException when another holder keeps it beyond {@code wait}: rerunning later is safe
     * @throws StorageException when the server does not enforce conditional writes or deletes
     */
    static TableLease acquire(S3Store untimed, S3Location location, String owner, Duration ttl, Duration wait, Duration clockOffset) {
        TableLease lease = take(untimed, location, owner, ttl, wait, clockOffset);
        if (lease.unchecked != null) {
            String what;
            try {
                what = violation(lease.store, lease.key, lease.unchecked);
            } catch (RuntimeException e) {
                lease.abandon();
                throw e;
            }
            if (what != null) {
                lease.abandon();
                lease.store.delete(List.of(lease.key));
                throw Outcomes.unconditionalEndpoint(lease.table, what, lease.key);
            }
        }
        return lease;
    }

    /**
     * Like {@link #acquire(S3Store, S3Location, String, Duration, Duration, Duration)}, but when the lease is taken with
     * its create, the check that the endpoint enforces conditional requests is sent and not awaited: every {@link #check}
     * (the fence before anything is written under the lease: the write's record, a recovery's change) waits for its
     * answer after sending its own request, so the check shares a round trip with the write's first fence and the
     * recovery's listings instead of costing one of its own. Nothing but reads can happen before that first fence.
     */
    static TableLease acquireCheckingBeside(S3Store untimed, S3Location location, String owner, Duration ttl, Duration wait,
                                            Duration clockOffset) {
        TableLease lease = take(untimed, location, owner, ttl, wait, clockOffset);
        if (lease.unchecked != null) {
            byte[] body = lease.unchecked;
            lease.enforced = CompletableFuture.supplyAsync(() -> violation(lease.store, lease.key, body), TableLease::checkThread);
        }
        return lease;
    }

    /**
     * Takes the lease; one taken with its create is returned with {@link #unchecked} set: the caller checks that the
     * endpoint enforces conditional requests.
     */
    private static TableLease take(S3Store untimed, S3Location location, String owner, Duration ttl, Duration wait,
                                   Duration clockOffset) {
        S3Store store = untimed.withAttemptTimeout(attemptTimeout(ttl));
        String key = location.tmpPrefix() + NAME;
        String table = location.uri();
        long deadline = System.nanoTime() + wait.toNanos();
        String token = HexFormat.of().formatHex(randomBytes());
        byte[] body = body(owner, token, ttl);
        String waitingOn = null;
        while (true) {
            try {
                String etag = store.putIf(key, body, null);
                TableLease lease = new TableLease(store, location, owner, token, ttl, etag);
                lease.unchecked = body;
                return lease;
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
                checkEnforced(store, key, body, table);
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
                if (held != null && !held.readable) {
                    throw Outcomes.leaseUnreadable(table, store.bucket(), key, held.owner, held.age, UNREADABLE_TTL);
                }
                throw Outcomes.leaseHeld(table, held == null ? "unknown" : held.owner, held == null ? "?" : held.age.toSeconds() + " s ago", ttl);
            }
            if (held != null && !Objects.equals(held.token, waitingOn)) {
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
        return body(owner, token, ttl, 0);
    }

    private static byte[] body(String owner, String token, Duration ttl, long renewal) {
        ObjectNode lease = JSON.createObjectNode();
        lease.put("owner", owner);
        lease.put("token", token);
        lease.put("ttlMillis", ttl.toMillis());
        lease.put("renewal", renewal);
        try {
            return JSON.writeValueAsBytes(lease);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialize the lease of " + owner, e);
        }
    }

    private static boolean conflict(S3Exception e) {
        return e.statusCode() == 412 || e.statusCode() == 409;
    }

    /**
     * A server that ignores If-None-Match would let every writer "take" the lease, and one that ignores If-Match on a
     * delete would let a stale holder remove the next holder's lease: refuse to rely on either. The two probes are
     * independent (each must be refused whatever the other did: the lease exists, under another ETag than the probe's),
     * so they are sent at once: one round trip. When both are accepted the create is named (a server that ignores the
     * delete's condition may also have let the create in after it: refused either way).
     */
    private static void checkEnforced(S3Store store, String key, byte[] body, String table) {
        String what = violation(store, key, body);
        if (what == null) {
            return;
        }
        store.delete(List.of(key));
        throw Outcomes.unconditionalEndpoint(table, what, key);
    }

    private static void checkThread(Runnable r) {
        Thread t = new Thread(r, "wrangler-lease-check");
        t.setDaemon(true);
        t.start();
    }

    /** What the endpoint accepted that its precondition should have refused, or null when it refused both probes. */
    private static String violation(S3Store store, String key, byte[] body) {
        CompletableFuture<Boolean> deleteAccepted = CompletableFuture.supplyAsync(() -> accepted(
                () -> store.deleteIf(key, "\"00000000000000000000000000000000\"")), TableLease::checkThread);
        boolean createAccepted;
        try {
            createAccepted = accepted(() -> store.putIf(key, body, null));
        } finally {
            try {
                deleteAccepted.join();
            } catch (RuntimeException ignored) {
                // thrown below when it is read
            }
        }
        return createAccepted ? "a second conditional create (If-None-Match: *)"
                : Outcomes.joined(deleteAccepted) ? "a conditional delete (If-Match) with another ETag" : null;
    }

    /**
     * Waits for the check of conditional requests sent beside the first fence ({@link #acquireCheckingBeside}). An
     * endpoint that does not enforce them gets the lease step's refusal, after this holder's requests in flight are
     * answered and the lease object is removed; a check that S3 failed gets the lease step's failure. Nothing was written.
     */
    private void awaitEnforced() {
        CompletableFuture<String> check = enforced;
        if (check == null) {
            return;
        }
        String what;
        try {
            what = Outcomes.joined(check);
        } catch (SdkException e) {
            throw Outcomes.leaseFailed(table, key.substring(0, key.length() - NAME.length()), e);
        }
        if (what == null) {
            return;
        }
        synchronized (this) {
            if (!released) {
                stopRenewing(true);
                lost = true;
                released = true;
                store.delete(List.of(key));
            }
        }
        throw Outcomes.unconditionalEndpoint(table, what, key);
    }

    /** True when S3 accepted a request that its precondition should have refused; false when it refused it (412, 409). */
    private static boolean accepted(Runnable probe) {
        try {
            probe.run();
            return true;
        } catch (S3Exception e) {
            if (!conflict(e)) {
                throw e;
            }
            return false;
        }
    }

    /**
     * @param age less than the lease's true age: S3's clock when it answered less Last-Modified, both in whole seconds, less
     *     one second. Expired once it is over the time to live: 11 to 13 s after the last renewal for 10 s, a second more
     *     than the whole seconds require, kept as a margin for a server that rounds them otherwise.
     */
    private record Held(String owner, String token, String etag, Duration age, Duration ttl, boolean readable) {
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
        Instant modified = r.lastModified();
        Instant now = (r.date() != null ? r.date() : Instant.now()).plus(clockOffset);
        // Last-Modified and Date have second precision: count the lease as one second younger to be safe.
        Duration age = Duration.between(modified, now).minusSeconds(1);
        age = age.isNegative() ? Duration.ZERO : age;
        JsonNode json;
        try {
            json = JSON.readTree(r.content());
        } catch (IOException e) {
            json = null;
        }
        JsonNode ttl = json == null || !json.isObject() ? null : json.get("ttlMillis");
        JsonNode token = json == null || !json.isObject() ? null : json.get("token");
        if (ttl == null || !ttl.isIntegralNumber() || !ttl.canConvertToLong()) {
            // Not wrangler's lease (hand-written, damaged, cut short): it must not block the table forever. It is read as
            // a lease of the default time to live renewed when its object was last written, so it is taken over (with the
            // same compare-and-swap) once that object is older than that, as a crashed holder's would be.
            String why = json == null ? "it is not JSON" : !json.isObject() ? "it is not a JSON object"
                    : ttl == null ? "it has no ttlMillis" : "its ttlMillis " + ttl + " is not a whole number of milliseconds";
            return new Held("an unreadable lease (" + why + ")", null, r.etag(), age, UNREADABLE_TTL, false);
        }
        JsonNode owner = json.get("owner");
        return new Held(owner != null && owner.isTextual() ? owner.asText() : "an unnamed holder",
                token == null || token.isNull() ? null : token.asText(), r.etag(), age, Duration.ofMillis(ttl.asLong()), true);
    }

    /**
     * Sends one renewal on a thread of its own, unless {@link #RENEWALS_PER_TTL} are still in flight (each waits at most
     * its attempts' timeouts): a renewal stuck in the network delays neither the next renewal nor a fence (more than
     * one attempt's timeout: {@link #check}). Package-private so that a test can send one at a moment of its choosing.
     */
    void sendRenewal() {
        if (lost || released) {
            return;
        }
        if (inFlight.incrementAndGet() > RENEWALS_PER_TTL) {
            inFlight.decrementAndGet();
            Logs.COMMIT.log(Level.WARNING, () -> "The lease of " + table + " held by " + owner + " has " + RENEWALS_PER_TTL
                    + " renewals in flight, none answered; not sending another until one is.");
            return;
        }
        try {
            senders.execute(() -> {
                try {
                    renewQuietly();
                } finally {
                    inFlight.decrementAndGet();
                }
            });
        } catch (RejectedExecutionException e) {
            inFlight.decrementAndGet(); // closed meanwhile
        }
    }

    private void renewQuietly() {
        // Each of a fence and a renewal announces itself before it looks at the other, so at least one of them sees the other.
        renewing.incrementAndGet();
        try {
            if (fencing.get() > 0) {
                return; // a fence is renewing the lease now; a renewal beside it would only race it
            }
            renew();
        } catch (RuntimeException e) {
            // the next fencing check reports it
            if (released || ticker.isShutdown()) {
                return; // interrupted by close() or abandon()
            }
            if (e instanceof S3Exception s && conflict(s) && !lost) {
                // renew() passes a refusal on only after reading the lease back with this acquisition's token in it:
                // this holder's own renewals raced each other (one applied, its answer late); nothing is wrong
                Logs.COMMIT.log(Level.DEBUG, () -> "Renewals of the lease of " + table + " held by " + owner + " raced each "
                        + "other; it is still held, the next renewal goes out as planned");
                return;
            }
            Logs.COMMIT.log(Level.WARNING, () -> "Could not renew the lease of " + table + " held by " + owner + ": " + e.getMessage()
                    + (lost ? "" : "; trying again in " + ttl.toMillis() / RENEWALS_PER_TTL + " ms (it expires "
                    + ttl.toSeconds() + " s after its last renewal)"));
        } finally {
            if (renewing.decrementAndGet() == 0) {
                synchronized (renewing) {
                    renewing.notifyAll();
                }
            }
        }
    }

    /**
     * Renews with a compare-and-swap on the ETag this holder last learned, and returns once one was applied and answered
     * within half the time to live of being sent: the lease was this holder's when S3 applied it, and no other holder
     * can take it over before the time to live has passed since. Several renewals (and fences) may be in flight at once:
     * a refusal (412; 409 for two at once; 404) is read as a takeover only when the lease no longer holds this
     * acquisition's token (the token is its own: a renewal of the same holder that changed the ETag first is not a
     * takeover, and a renewal can never succeed once another holder wrote its own token). An answer that came later than
     * half the time to live proves nothing about now and is sent again.
     *
     * @return when ({@link System#nanoTime}) the swap that succeeded was sent
     */
    private long renew() {
        for (int round = 1; ; round++) {
            if (lost) {
                throw lost(null);
            }
            if (released) {
                throw new IllegalStateException("the lease of " + table + " was released");
            }
            String expected = etag.get();
            long sent = System.nanoTime();
            try {
                String next = store.putIf(key, body(owner, token, ttl, renewals.incrementAndGet()), expected);
                etag.compareAndSet(expected, next);
                long took = System.nanoTime() - sent;
                if (took < ttl.toNanos() / 2) {
                    Logs.COMMIT.log(Level.DEBUG, () -> "Renewed the lease of " + table + " held by " + owner);
                    return sent;
                }
                if (round >= RENEWALS_PER_TTL) {
                    throw SdkClientException.create("the renewals of the lease were answered " + took / 1_000_000 + " ms after "
                            + "they were sent, more than half its time to live (" + ttl.toMillis() + " ms)");
                }
            } catch (S3Exception e) {
                if (!conflict(e) && e.statusCode() != 404) {
                    throw e;
                }
                Held held = read(store, key, Duration.ZERO);
                if (held == null || !token.equals(held.token())) {
                    lost = true;
                    throw lost(e);
                }
                etag.compareAndSet(expected, held.etag());
                if (round >= RENEWALS_PER_TTL) {
                    throw e; // this holder's own requests kept racing each other: the next renewal or fence tries again
                }
            }
        }
    }

    /**
     * Fencing: renews now, proving the lease is still this holder's; called immediately before every destructive step.
     * It sends a compare-and-swap of its own (or takes another fence's, below), and is the proof only when that one succeeds. A renewal whose
     * request is in flight when the fence comes is let answer first, for at most one attempt's timeout: both would swap
     * on the same ETag, and when the renewal lands first the fence is refused and needs a read and a second swap (two
     * round trips more than the wait costs at most). No renewal is sent while a fence is (it renews). A renewal stuck
     * in the network delays a fence by at most that attempt's timeout, then the fence goes out as before. Fences of this
     * holder at once take turns ({@link #fenceTurn}), and one whose turn comes after another fence's swap that was sent
     * after it began succeeded takes that swap as its proof: the same proof its own would give (the lease was this
     * holder's after the fence began, and renewed then), without racing it, as long as that swap was sent less than
     * half the time to live ago (the rule of an own swap's answer): the fences whose turns came between may have failed
     * after any time, and a swap older than that proves nothing about now.
     *
     * @throws Lost when another holder has taken the lease over
     */
    void check() {
        long began = System.nanoTime();
        fencing.incrementAndGet();
        try {
            awaitRenewals();
            synchronized (fenceTurn) {
                if (lost) {
                    throw lost(null);
                }
                // the borrowed swap proves what this fence's own would only while it is under half the time to live old,
                // the rule renew() keeps for its own answers: fences that failed meanwhile may have held the turn for longer
                if (!fenced || fencedAt - began < 0 || System.nanoTime() - fencedAt >= ttl.toNanos() / 2) {
                    fencedAt = renew();
                    fenced = true;
                }
            }
        } finally {
            fencing.decrementAndGet();
            awaitEnforced();
        }
    }

    /** Waits until no renewal is sending, for at most one attempt's timeout. */
    private void awaitRenewals() {
        long deadline = System.nanoTime() + attemptTimeout(ttl).toNanos();
        synchronized (renewing) {
            long left;
            while (renewing.get() > 0 && (left = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(renewing, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return; // the fence goes out at once, as it did before it waited
                }
            }
        }
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
        // a check of conditional requests still in flight could otherwise re-create the lease after its release
        Besides.awaitQuietly(enforced);
        stopRenewing(true);
        synchronized (this) {
            if (released) {
                return;
            }
            released = true;
            if (!lost) {
                try {
                    store.deleteIf(key, etag.get());
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
        stopRenewing(false);
    }

    /**
     * Stops the renewals. With {@code settle} (a release) a renewal in flight is let finish first, for at most one
     * renewal interval: interrupted, it may still be applied by S3 with its answer lost, and the release's conditional
     * delete would then meet an ETag it never learned and need a read and a second delete (two round trips more than
     * the wait at most costs).
     */
    private void stopRenewing(boolean settle) {
        ticker.shutdownNow();
        if (!settle) {
            senders.shutdownNow();
            return;
        }
        senders.shutdown();
        try {
            if (!senders.awaitTermination(ttl.toMillis() / RENEWALS_PER_TTL, TimeUnit.MILLISECONDS)) {
                senders.shutdownNow();
            }
        } catch (InterruptedException e) {
            senders.shutdownNow();
            Thread.currentThread().interrupt();
        }
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
