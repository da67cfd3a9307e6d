package io.wrangler.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A FaultyS3 is a proxy on 127.0.0.1 in front of a {@link LocalS3} that injects faults into chosen requests and records
 * every request it sees, so that tests can prove what a writer does when S3 misbehaves, and what it sends.
 *
 * <p>Requests are told apart by S3 operation (PutObject, UploadPart, CreateMultipartUpload, CompleteMultipartUpload,
 * AbortMultipartUpload, CopyObject, UploadPartCopy, DeleteObjects, DeleteObject, ListObjectsV2, ListMultipartUploads,
 * GetObject, HeadObject, HeadBucket). {@link #failNth} fails the n-th request of an operation from now on;
 * {@link #ignoreConditionalWrites} makes the server behave like one that does not enforce {@code If-None-Match}.
 */
public final class FaultyS3 implements AutoCloseable {
    private static final Set<String> NOT_FORWARDED = Set.of("host", "content-length", "connection", "expect", "upgrade",
            "transfer-encoding", "keep-alive");

    private final LocalS3 target;
    private final HttpServer server;
    private final ExecutorService executor;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Map<String, Deque<Rule>> rules = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    /** {@code "<operation> <key part>"} to its fault. */
    private final Map<String, S3Fault> keyRules = new ConcurrentHashMap<>();
    private final List<Request> log = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean ignoreConditionalWrites;
    private volatile Duration timeoutDelay = Duration.ofSeconds(3);

    /** One request as the proxy received it. */
    public record Request(String operation, String method, String path, String query, Map<String, String> headers) {
    }

    private record Rule(int nth, S3Fault fault) {
    }

    private FaultyS3(LocalS3 target, HttpServer server, ExecutorService executor) {
        this.target = target;
        this.server = server;
        this.executor = executor;
    }

    /** Starts a proxy to {@code target} on a random port of 127.0.0.1. */
    public static FaultyS3 start(LocalS3 target) {
        try {
            HttpServer server = LoopbackHttp.create();
            ExecutorService executor = Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "faulty-s3");
                t.setDaemon(true);
                return t;
            });
            server.setExecutor(executor);
            FaultyS3 proxy = new FaultyS3(target, server, executor);
            server.createContext("/", proxy::handle);
            server.start();
            return proxy;
        } catch (IOException e) {
            throw new IllegalStateException("Cannot start FaultyS3 on 127.0.0.1", e);
        }
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /**
     * A client of the proxy: the SDK's standard retries (up to {@code attempts} attempts) and each attempt given up after
     * {@code attemptTimeout}. The caller closes it.
     */
    public S3Client client(int attempts, Duration attemptTimeout) {
        return S3Client.builder().endpointOverride(endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("faulty", "faulty-secret")))
                .forcePathStyle(true)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(ClientOverrideConfiguration.builder().apiCallAttemptTimeout(attemptTimeout)
                        .retryStrategy(b -> b.maxAttempts(attempts)).build())
                .httpClientBuilder(ApacheHttpClient.builder().maxConnections(64))
                .build();
    }

    /** Fails the {@code nth} (1 for the next) request of {@code operation} counted from now with {@code fault}. */
    public void failNth(String operation, int nth, S3Fault fault) {
        int base = seen.computeIfAbsent(operation, k -> new AtomicInteger()).get();
        Deque<Rule> q = rules.computeIfAbsent(operation, k -> new ArrayDeque<>());
        synchronized (q) {
            q.add(new Rule(base + nth, fault));
        }
    }

    /** Fails the next {@code times} requests of {@code operation} with {@code fault}. */
    public void failNext(String operation, int times, S3Fault fault) {
        for (int i = 1; i <= times; i++) {
            failNth(operation, i, fault);
        }
    }

    /**
     * Fails every request of {@code operation} whose key holds {@code keyPart} with {@code fault}, until
     * {@link #clearKeyFaults}: the requests of one writer (a task attempt, by its file names) cut off from S3.
     */
    public void failWhereKeyContains(String operation, String keyPart, S3Fault fault) {
        keyRules.put(operation + " " + keyPart, fault);
    }

    /** Ends every {@link #failWhereKeyContains} rule. */
    public void clearKeyFaults() {
        keyRules.clear();
    }

    /** Drops If-None-Match and If-Match before passing requests on: a server that does not enforce conditional writes. */
    public void ignoreConditionalWrites(boolean ignore) {
        this.ignoreConditionalWrites = ignore;
    }

    /** How long a {@link S3Fault#TIMEOUT} holds a request (default 3 s). */
    public void timeoutDelay(Duration delay) {
        this.timeoutDelay = delay;
    }

    /** Every request seen so far. */
    public List<Request> requests() {
        synchronized (log) {
            return List.copyOf(log);
        }
    }

    /** Forgets the requests seen so far. */
    public void clearRequests() {
        log.clear();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    // ---- proxying ----

    static String operation(String method, String path, String query, Map<String, String> headers) {
        Set<String> q = new HashSet<>();
        if (query != null) {
            for (String p : query.split("&")) {
                q.add(p.contains("=") ? p.substring(0, p.indexOf('=')) : p);
            }
        }
        boolean bucketOnly = path.indexOf('/', 1) < 0 || path.indexOf('/', 1) == path.length() - 1;
        boolean copy = headers.containsKey("x-amz-copy-source");
        return switch (method) {
            case "PUT" -> q.contains("partNumber") ? (copy ? "UploadPartCopy" : "UploadPart") : copy ? "CopyObject"
                    : bucketOnly ? "CreateBucket" : "PutObject";
            case "POST" -> q.contains("uploads") ? "CreateMultipartUpload" : q.contains("uploadId") ? "CompleteMultipartUpload"
                    : q.contains("delete") ? "DeleteObjects" : "Post";
            case "DELETE" -> q.contains("uploadId") ? "AbortMultipartUpload" : "DeleteObject";
            case "HEAD" -> bucketOnly ? "HeadBucket" : "HeadObject";
            case "GET" -> bucketOnly ? (q.contains("uploads") ? "ListMultipartUploads" : q.contains("list-type") ? "ListObjectsV2"
                    : path.equals("/") ? "ListBuckets" : "ListObjects") : "GetObject";
            default -> method;
        };
    }

    private void handle(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        URI uri = exchange.getRequestURI();
        Map<String, String> headers = new TreeMap<>();
        exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), String.join(",", v)));
        String op = operation(method, uri.getRawPath(), uri.getRawQuery(), headers);
        log.add(new Request(op, method, uri.getRawPath(), uri.getRawQuery(), Map.copyOf(headers)));
        int n = seen.computeIfAbsent(op, k -> new AtomicInteger()).incrementAndGet();
        S3Fault fault = null;
        Deque<Rule> q = rules.get(op);
        if (q != null) {
            synchronized (q) {
                for (Rule r : q) {
                    if (r.nth == n) {
                        fault = r.fault;
                        q.remove(r);
                        break;
                    }
                }
            }
        }
        if (fault == null) {
            for (Map.Entry<String, S3Fault> e : keyRules.entrySet()) {
                int space = e.getKey().indexOf(' ');
                if (e.getKey().substring(0, space).equals(op) && uri.getRawPath().contains(e.getKey().substring(space + 1))) {
                    fault = e.getValue();
                    break;
                }
            }
        }
        byte[] body = exchange.getRequestBody().readAllBytes();
        try {
            if (fault != null && fault != S3Fault.APPLIED_RESPONSE_LOST && fault != S3Fault.BODY_CUT_SHORT) {
                inject(exchange, fault);
                return;
            }
            HttpResponse<byte[]> answer = forward(method, uri, headers, body);
            if (fault == S3Fault.APPLIED_RESPONSE_LOST) {
                exchange.close();
                return;
            }
            answer.headers().map().forEach((k, v) -> {
                if (!NOT_FORWARDED.contains(k.toLowerCase(Locale.ROOT)) && !k.startsWith(":")) {
                    exchange.getResponseHeaders().put(k, v);
                }
            });
            byte[] out = answer.body();
            if (fault == S3Fault.BODY_CUT_SHORT && out.length > 1) {
                exchange.sendResponseHeaders(answer.statusCode(), out.length);
                exchange.getResponseBody().write(out, 0, out.length / 2);
                exchange.getResponseBody().flush();
                exchange.close();
                return;
            }
            boolean noBody = method.equals("HEAD") || answer.statusCode() == 204 || answer.statusCode() == 304;
            if (noBody) {
                answer.headers().firstValue("content-length").ifPresent(l -> exchange.getResponseHeaders().set("Content-Length", l));
            }
            exchange.sendResponseHeaders(answer.statusCode(), noBody ? -1 : out.length == 0 ? -1 : out.length);
            if (!noBody && out.length > 0) {
                try (OutputStream os = exchange.getResponseBody()) {
                    os.write(out);
                }
            }
            exchange.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exchange.close();
        }
    }

    private HttpResponse<byte[]> forward(String method, URI uri, Map<String, String> headers, byte[] body) throws IOException, InterruptedException {
        URI to = URI.create(target.endpoint() + uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()));
        HttpRequest.Builder req = HttpRequest.newBuilder(to).method(method,
                body.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach((k, v) -> {
            if (NOT_FORWARDED.contains(k)) {
                return;
            }
            if (ignoreConditionalWrites && (k.equals("if-none-match") || k.equals("if-match"))) {
                return;
            }
            try {
                req.header(k, v);
            } catch (IllegalArgumentException restricted) {
                // a header the JDK client sets itself
            }
        });
        return http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private void inject(HttpExchange exchange, S3Fault fault) throws IOException, InterruptedException {
        switch (fault) {
            case INTERNAL_ERROR -> error(exchange, 500, "InternalError", "We encountered an internal error. Please try again.");
            case INTERNAL_ERROR_IN_200 -> error(exchange, 200, "InternalError", "We encountered an internal error. Please try again.");
            case SLOW_DOWN -> error(exchange, 503, "SlowDown", "Please reduce your request rate.");
            case ACCESS_DENIED -> error(exchange, 403, "AccessDenied", "Access Denied");
            case CONNECTION_RESET -> exchange.close();
            case TIMEOUT -> {
                Thread.sleep(timeoutDelay.toMillis());
                exchange.close();
            }
            default -> throw new IllegalStateException(fault.name());
        }
    }

    private static void error(HttpExchange exchange, int status, String code, String message) throws IOException {
        byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>" + message
                + "</Message><RequestId>faulty-" + System.nanoTime() + "</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/xml");
        exchange.getResponseHeaders().set("x-amz-request-id", "faulty-" + System.nanoTime());
        exchange.sendResponseHeaders(status, xml.length);
        try (OutputStream os = exchange.getResponseBody()) {
            os.write(xml);
        }
        exchange.close();
    }
}
