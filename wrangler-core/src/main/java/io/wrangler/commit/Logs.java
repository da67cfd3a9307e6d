package io.wrangler.commit;

/**
 * The commit protocol's log: {@code System.Logger} named {@code io.wrangler.commit} (java.util.logging unless the
 * application binds System.Logger to SLF4J or Log4j). INFO: a wait on another holder's lease, a takeover of an expired
 * one, a recovery rolling an interrupted write back or forward; WARNING: a failure that was suppressed (a cleanup, a
 * release, a renewal); DEBUG: each renewal of the lease.
 */
final class Logs {
    static final System.Logger COMMIT = System.getLogger("io.wrangler.commit");

    private Logs() {
    }
}
