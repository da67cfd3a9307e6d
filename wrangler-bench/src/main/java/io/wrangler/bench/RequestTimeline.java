package io.wrangler.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * Records every S3 request a client makes: operation, key, calling thread, body bytes each way, and its start and end
 * (from the SDK's beforeExecution to afterExecution or onExecutionFailure, so a request retried counts once, retries
 * and backoff included).
 */
final class RequestTimeline implements ExecutionInterceptor {
    /** One request. Times in nanoseconds of {@link System#nanoTime()}. */
    static final class Request {
        final String op;
        final String key;
        final String thread;
        final long start;
        volatile long end;
        volatile long sent;
        volatile long received;

        Request(String op, String key, String thread, long start) {
            this.op = op;
            this.key = key;
            this.thread = thread;
            this.start = start;
        }

        /** An upload of a data file (its PUT, or a multipart upload's requests). */
        boolean dataUpload() {
            return key != null && key.endsWith(".parquet") && !key.contains("/_wrangler") && (op.equals("PutObject")
                    || op.equals("UploadPart") || op.equals("CreateMultipartUpload"));
        }
    }

    private static final ExecutionAttribute<Request> REQUEST = new ExecutionAttribute<>("wrangler.bench.request");
    private final ConcurrentLinkedQueue<Request> requests = new ConcurrentLinkedQueue<>();

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        String key = context.request().getValueForField("Key", String.class).orElse(null);
        Request r = new Request(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME), key, Thread.currentThread().getName(),
                System.nanoTime());
        attributes.putAttribute(REQUEST, r);
        requests.add(r);
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        Request r = attributes.getAttribute(REQUEST);
        context.httpRequest().firstMatchingHeader("Content-Length").ifPresent(l -> r.sent += Long.parseLong(l.trim()));
    }

    @Override
    public void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
        Request r = attributes.getAttribute(REQUEST);
        if (!r.op.startsWith("Head")) {
            context.httpResponse().firstMatchingHeader("Content-Length").ifPresent(l -> r.received += Long.parseLong(l.trim()));
        }
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        attributes.getAttribute(REQUEST).end = System.nanoTime();
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        Request r = attributes.getAttribute(REQUEST);
        if (r != null) {
            r.end = System.nanoTime();
        }
    }

    /** Records a request made without the SDK's pipeline ({@link SimS3}). */
    void add(Request r) {
        requests.add(r);
    }

    void reset() {
        requests.clear();
    }

    /** The requests recorded since the last reset, by start time. */
    List<Request> requests() {
        List<Request> out = new ArrayList<>(requests);
        out.sort(Comparator.comparingLong(r -> r.start));
        return out;
    }

    static Map<String, Integer> byOp(List<Request> rs) {
        Map<String, Integer> out = new TreeMap<>();
        rs.forEach(r -> out.merge(r.op, 1, Integer::sum));
        return out;
    }

    /**
     * The requests during which no other request of the write was in flight: each is a round trip the write waited for
     * alone, whatever the number of connections. Found by a sweep over the requests in start order: a request is alone
     * if it starts after every earlier one has ended and ends before the next one starts.
     */
    static List<Request> alone(List<Request> byStart) {
        List<Request> out = new ArrayList<>();
        long maxEndBefore = Long.MIN_VALUE;
        for (int i = 0; i < byStart.size(); i++) {
            Request r = byStart.get(i);
            boolean clearBefore = r.start >= maxEndBefore;
            boolean clearAfter = i + 1 == byStart.size() || byStart.get(i + 1).start >= r.end;
            if (clearBefore && clearAfter) {
                out.add(r);
            }
            maxEndBefore = Math.max(maxEndBefore, r.end);
        }
        return out;
    }

    /**
     * The longest chain of requests each of which starts after the one before it ended (by number of requests), whatever
     * their threads: the sequential round trips a run of the write could not have overlapped as it ran. Dynamic
     * programming over the requests by start time: the chain ending with r is one longer than the longest ending with a
     * request that ended before r started.
     */
    static List<Request> longestChain(List<Request> byStart) {
        int n = byStart.size();
        if (n == 0) {
            return List.of();
        }
        Integer[] byEnd = new Integer[n];
        for (int i = 0; i < n; i++) {
            byEnd[i] = i;
        }
        Arrays.sort(byEnd, Comparator.comparingLong(i -> byStart.get(i).end));
        int[] length = new int[n];
        int[] previous = new int[n];
        int best = -1;        // the longest chain among requests ended so far (index into byStart)
        int e = 0;
        for (int i = 0; i < n; i++) {
            Request r = byStart.get(i);
            while (e < n && byStart.get(byEnd[e]).end <= r.start) {
                int j = byEnd[e++];
                if (best < 0 || length[j] > length[best]) {
                    best = j;
                }
            }
            length[i] = best < 0 ? 1 : length[best] + 1;
            previous[i] = best;
        }
        int last = 0;
        for (int i = 1; i < n; i++) {
            if (length[i] > length[last]) {
                last = i;
            }
        }
        List<Request> chain = new ArrayList<>();
        for (int i = last; i >= 0; i = previous[i]) {
            chain.add(0, byStart.get(i));
        }
        return chain;
    }

    /**
     * The chain one request a line: its start and end in units of {@code delay} after the first request's start, its
     * operation and its key (or a listing's prefix) below {@code root}.
     */
    static String trace(List<Request> chain, long first, long delayNanos, String root) {
        StringBuilder out = new StringBuilder();
        for (Request r : chain) {
            String key = r.key == null ? "" : r.key.startsWith(root) ? r.key.substring(root.length()) : r.key;
            out.append(String.format("    %5.2f-%5.2f %-28s %s%n", (r.start - first) / (double) delayNanos, (r.end - first) / (double) delayNanos,
                    r.op, key));
        }
        return out.toString();
    }

    /** Operations in order, consecutive repeats folded: "PutObject, ListObjectsV2 x3, ...". */
    static String runs(List<Request> rs) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < rs.size(); ) {
            int j = i;
            while (j < rs.size() && rs.get(j).op.equals(rs.get(i).op)) {
                j++;
            }
            out.add(rs.get(i).op + (j - i > 1 ? " x" + (j - i) : ""));
            i = j;
        }
        return out.toString();
    }
}
