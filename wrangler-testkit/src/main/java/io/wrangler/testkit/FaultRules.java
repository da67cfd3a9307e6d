package io.wrangler.testkit;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * FaultRules are the faults a test asked {@link FaultyS3} or {@link MemoryS3} to inject, and the count of requests per
 * operation they are matched against: the n-th request of an operation from the moment it was asked for
 * ({@link #failNth}), or every request of an operation whose key holds a given part ({@link #failWhereKeyContains}).
 * Thread-safe: each request is counted once, and an n-th rule fires for exactly one request.
 */
final class FaultRules {
    private final Map<String, Deque<Rule>> rules = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    /** {@code "<operation> <key part>"} to its fault. */
    private final Map<String, S3Fault> keyRules = new ConcurrentHashMap<>();

    private record Rule(int nth, S3Fault fault) {
    }

    /** Fails the {@code nth} (1 for the next) request of {@code operation} counted from now with {@code fault}. */
    void failNth(String operation, int nth, S3Fault fault) {
        int base = seen.computeIfAbsent(operation, k -> new AtomicInteger()).get();
        Deque<Rule> q = rules.computeIfAbsent(operation, k -> new ArrayDeque<>());
        synchronized (q) {
            q.add(new Rule(base + nth, fault));
        }
    }

    /** Fails the next {@code times} requests of {@code operation} with {@code fault}. */
    void failNext(String operation, int times, S3Fault fault) {
        for (int i = 1; i <= times; i++) {
            failNth(operation, i, fault);
        }
    }

    /** Fails every request of {@code operation} whose key holds {@code keyPart} with {@code fault}, until {@link #clearKeyFaults}. */
    void failWhereKeyContains(String operation, String keyPart, S3Fault fault) {
        keyRules.put(operation + " " + keyPart, fault);
    }

    /** Ends every {@link #failWhereKeyContains} rule. */
    void clearKeyFaults() {
        keyRules.clear();
    }

    /**
     * Counts one request of {@code operation} and returns the fault to inject into it, or null: the n-th rule of this
     * request if there is one (used up), else a key rule of the operation whose key part {@code holds} accepts.
     */
    S3Fault next(String operation, Predicate<String> holds) {
        int n = seen.computeIfAbsent(operation, k -> new AtomicInteger()).incrementAndGet();
        Deque<Rule> q = rules.get(operation);
        if (q != null) {
            synchronized (q) {
                for (Rule r : q) {
                    if (r.nth == n) {
                        q.remove(r);
                        return r.fault;
                    }
                }
            }
        }
        for (Map.Entry<String, S3Fault> e : keyRules.entrySet()) {
            int space = e.getKey().indexOf(' ');
            if (e.getKey().substring(0, space).equals(operation) && holds.test(e.getKey().substring(space + 1))) {
                return e.getValue();
            }
        }
        return null;
    }
}
