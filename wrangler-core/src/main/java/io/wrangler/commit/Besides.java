package io.wrangler.commit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The threads a {@link Transaction} runs beside its own (its early listing, its staged copies' removal): a step that
 * sends its requests on the write's pool and waits for them must not take a pool thread itself (with few threads the
 * pool would wait for itself). They are the write's: it does not end while they run ({@link #stop}).
 */
final class Besides {
    private final List<Thread> threads = Collections.synchronizedList(new ArrayList<>());

    /** Runs {@code step} on a thread of its own. */
    <T> CompletableFuture<T> run(Supplier<T> step) {
        return CompletableFuture.supplyAsync(step, r -> {
            Thread t = new Thread(r, "wrangler-io-beside");
            t.setDaemon(true);
            threads.add(t);
            t.start();
        });
    }

    /**
     * Waits for the threads started, before the pool they send on is shut down; with {@code interrupt} (a crash: an
     * Error) they are interrupted first, so that they stop at their next request instead of finishing.
     */
    void stop(boolean interrupt) {
        List<Thread> started;
        synchronized (threads) {
            started = List.copyOf(threads);
        }
        if (interrupt) {
            started.forEach(Thread::interrupt);
        }
        for (Thread t : started) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Lets a read still running finish before the write cleans up or lists again; its outcome no longer matters. */
    static void awaitQuietly(CompletableFuture<?> f) {
        if (f != null) {
            try {
                f.join();
            } catch (RuntimeException ignored) {
                // a listing whose result is not used
            }
        }
    }
}
