package io.wrangler.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/**
 * A KeyProxy stands on 127.0.0.1 in front of S3Mock and keeps every object key encoded on the server ({@link KeyCodec}),
 * so that LocalS3 accepts every key AWS S3 accepts (any UTF-8, up to 1,024 bytes) and no key can break a later request.
 *
 * <p>Keys are encoded where a request carries them (the path, {@code x-amz-copy-source}, the listing parameters
 * {@code prefix}, {@code start-after}, {@code marker}, {@code key-marker}, the keys of a DeleteObjects body) and decoded
 * where an answer carries them (the XML of listings, multipart uploads, batch deletes and errors), URL-encoded again when
 * the request asked for {@code encoding-type=url}, else escaped as AWS does (control characters as character
 * references, which XML 1.0 parsers refuse: list such keys with {@code encoding-type=url}, on AWS as here). A key longer than 1,024 bytes is refused with {@code KeyTooLongError},
 * as AWS does. Only {@code /} works as a listing delimiter (the only one S3 clients commonly use). Bodies of objects pass
 * through as streams.
 *
 * <p>With a {@link NetworkProfile} it also answers as S3 over a network does: the status line of each answer waits until
 * the profile's first-byte delay for that type of request has passed since the request's body was received, bodies in
 * both directions flow at the profile's rate, and at most the profile's number of requests are served at once.
 */
final class KeyProxy implements AutoCloseable {
    private static final Set<String> NOT_FORWARDED = Set.of("host", "content-length", "connection", "expect", "upgrade",
            "transfer-encoding", "keep-alive");
    private static final Set<String> KEY_PARAMETERS = Set.of("prefix", "start-after", "marker", "key-marker");
    private static final Pattern RESPONSE_KEYS = Pattern.compile(
            "<(Key|Prefix|StartAfter|Marker|NextMarker|KeyMarker|NextKeyMarker)>(.*?)</\\1>", Pattern.DOTALL);
    private static final Pattern REQUEST_KEYS = Pattern.compile("<Key>(.*?)</Key>", Pattern.DOTALL);
    private static final int MAX_KEY_BYTES = 1024;
    private static final int STRIPES = 256;

    private final URI target;
    private final HttpServer server;
    private final ExecutorService executor;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final NetworkProfile profile;
    private final Semaphore slots;
    /**
     * S3Mock checks a request's precondition (If-None-Match, If-Match) and then stores or deletes, with no lock between:
     * eight racing creates of one key all succeed there, where AWS S3 lets exactly one through. And a GET racing a
     * DELETE of its key can have its headers sent and its body never (the file went), where S3 answers the whole object
     * or 404. Every request is therefore served under its keys' locks (stripes of these, by the key's hash): the write
     * lock of a key it changes, the read lock of a key it reads, until its answer is sent. Each is then atomic against
     * the others on the same key, as on S3.
     */
    private final ReentrantReadWriteLock[] stripes = new ReentrantReadWriteLock[STRIPES];

    private KeyProxy(URI target, HttpServer server, ExecutorService executor, NetworkProfile profile) {
        this.target = target;
        this.server = server;
        this.executor = executor;
        this.profile = profile;
        this.slots = profile.maxConcurrentRequests() == 0 ? null : new Semaphore(profile.maxConcurrentRequests(), true);
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ReentrantReadWriteLock();
        }
    }

    /**
     * The locks to hold while a request that changes {@code written} and reads {@code read} (keys of {@code bucket}) is
     * served: the write lock of each written key's stripe, the read lock of each other read key's, in ascending stripe
     * order so that no two requests can wait on each other.
     */
    private List<Lock> locks(String bucket, List<String> written, List<String> read) {
        TreeMap<Integer, Boolean> at = new TreeMap<>();
        for (String k : read) {
            at.put(stripe(bucket, k), false);
        }
        for (String k : written) {
            at.put(stripe(bucket, k), true);
        }
        List<Lock> locks = new ArrayList<>();
        at.forEach((i, write) -> locks.add(write ? stripes[i].writeLock() : stripes[i].readLock()));
        return locks;
    }

    private static int stripe(String bucket, String key) {
        return Math.floorMod((bucket + "/" + key).hashCode(), STRIPES);
    }

    static KeyProxy start(URI target) {
        return start(target, NetworkProfile.none());
    }

    static KeyProxy start(URI target, NetworkProfile profile) {
        try {
            HttpServer server = LoopbackHttp.create();
            ExecutorService executor = Executors.newCachedThreadPool(r -> {
                Thread t = new Thread(r, "local-s3-keys");
                t.setDaemon(true);
                return t;
            });
            server.setExecutor(executor);
            KeyProxy proxy = new KeyProxy(target, server, executor, profile);
            server.createContext("/", exchange -> {
                boolean slot = false;
                try {
                    if (proxy.slots != null) {
                        proxy.slots.acquire();
                        slot = true;
                    }
                    proxy.handle(exchange);
                } catch (IOException | RuntimeException e) {
                    exchange.close();
                    throw e;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    exchange.close();
                } finally {
                    if (slot) {
                        proxy.slots.release();
                    }
                }
            });
            server.start();
            return proxy;
        } catch (IOException e) {
            throw new IllegalStateException("Cannot start LocalS3's key proxy on 127.0.0.1", e);
        }
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException, InterruptedException {
        long arrived = System.nanoTime();
        String method = exchange.getRequestMethod();
        URI uri = exchange.getRequestURI();
        Map<String, String> headers = new TreeMap<>();
        exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), String.join(",", v)));
        long firstByte = profile.firstByte(type(method, uri, headers)).toNanos();
        long rate = profile.bytesPerSecond();
        ThrottledInput requestBody = new ThrottledInput(exchange.getRequestBody(), rate, arrived);

        String rawPath = uri.getRawPath();
        int slash = rawPath.indexOf('/', 1);
        String path = rawPath;
        boolean objectRequest = slash > 0 && slash < rawPath.length() - 1;
        String bucket = slash > 0 ? rawPath.substring(1, slash) : rawPath.substring(1);
        List<String> changed = new ArrayList<>();
        if (objectRequest) {
            String key = percentDecode(rawPath.substring(slash + 1));
            changed.add(key);
            if (key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
                drain(requestBody);
                waitUntil(requestBody.done() + firstByte);
                error(exchange, 400, "KeyTooLongError", "Your key is too long");
                return;
            }
            path = rawPath.substring(0, slash + 1) + KeyCodec.encode(key);
        }
        List<String> query = new ArrayList<>();
        boolean urlEncoded = false;
        boolean deleteObjects = false;
        boolean upload = false;
        if (uri.getRawQuery() != null) {
            for (String p : uri.getRawQuery().split("&")) {
                int eq = p.indexOf('=');
                String name = eq < 0 ? p : p.substring(0, eq);
                if (name.equals("encoding-type")) {
                    urlEncoded = true;
                }
                if (name.equals("delete")) {
                    deleteObjects = true;
                }
                if (name.equals("uploadId")) {
                    upload = true;
                }
                if (eq >= 0 && KEY_PARAMETERS.contains(name)) {
                    p = name + "=" + KeyCodec.encode(percentDecode(p.substring(eq + 1)));
                }
                query.add(p);
            }
        }
        String copySource = headers.get("x-amz-copy-source");
        if (copySource != null) {
            String source = copySource.startsWith("/") ? copySource.substring(1) : copySource;
            String version = "";
            int q = source.indexOf('?');
            if (q >= 0) {
                version = source.substring(q);
                source = source.substring(0, q);
            }
            int s = source.indexOf('/');
            headers.put("x-amz-copy-source", source.substring(0, s + 1) + KeyCodec.encode(percentDecode(source.substring(s + 1))) + version);
        }

        HttpRequest.BodyPublisher body;
        String length = headers.get("content-length");
        boolean quiet = false;
        if (deleteObjects) {
            byte[] bytes = requestBody.readAllBytes();
            quiet = new String(bytes, StandardCharsets.UTF_8).contains("<Quiet>true</Quiet>");
            byte[] rewritten = rewrite(REQUEST_KEYS, new String(bytes, StandardCharsets.UTF_8), m -> {
                String key = xmlUnescape(m.group(1));
                changed.add(key);
                return "<Key>" + KeyCodec.encode(key) + "</Key>";
            }).getBytes(StandardCharsets.UTF_8);
            rechecksum(headers, rewritten);
            body = HttpRequest.BodyPublishers.ofByteArray(rewritten);
        } else if (length != null && !headers.containsKey("transfer-encoding")) {
            long n = Long.parseLong(length.trim());
            body = n == 0 ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofInputStream(() -> requestBody), n);
        } else {
            byte[] bytes = requestBody.readAllBytes();
            body = bytes.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(bytes);
        }

        URI to = URI.create(target + path + (query.isEmpty() ? "" : "?" + String.join("&", query)));
        HttpRequest.Builder req = HttpRequest.newBuilder(to).method(method, body);
        headers.forEach((k, v) -> {
            if (!NOT_FORWARDED.contains(k)) {
                try {
                    req.header(k, v);
                } catch (IllegalArgumentException restricted) {
                    // a header the JDK client sets itself
                }
            }
        });
        // What changes a key: a PUT (object or copy) or DELETE of it, the completion of its multipart upload (POST with
        // uploadId), a batch delete; not a part upload or an abort. What reads one: a GET or HEAD of it, a copy's source.
        boolean changes = (method.equals("PUT") || method.equals("DELETE")) && objectRequest && !upload
                || method.equals("POST") && (objectRequest && upload || deleteObjects);
        boolean reads = (method.equals("GET") || method.equals("HEAD")) && objectRequest;
        List<String> read = new ArrayList<>();
        if (reads) {
            read.addAll(changed);
        }
        if (copySource != null) {
            String source = copySource.startsWith("/") ? copySource.substring(1) : copySource;
            int q = source.indexOf('?');
            source = q >= 0 ? source.substring(0, q) : source;
            int s = source.indexOf('/');
            if (s > 0 && source.substring(0, s).equals(bucket)) {
                read.add(percentDecode(source.substring(s + 1)));
            }
        }
        List<Lock> held = locks(bucket, changes ? changed : List.of(), read);
        held.forEach(Lock::lock);
        try {
            forward(exchange, req.build(), method, objectRequest, urlEncoded, quiet, requestBody, firstByte, rate);
        } finally {
            for (int i = held.size() - 1; i >= 0; i--) {
                held.get(i).unlock();
            }
        }
    }

    private void forward(HttpExchange exchange, HttpRequest request, String method, boolean objectRequest, boolean urlEncoded,
                         boolean quiet, ThrottledInput requestBody, long firstByte, long rate) throws IOException, InterruptedException {
        HttpResponse<InputStream> answer = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        answer.headers().map().forEach((k, v) -> {
            if (!NOT_FORWARDED.contains(k.toLowerCase(Locale.ROOT)) && !k.startsWith(":")) {
                exchange.getResponseHeaders().put(k, v);
            }
        });
        boolean noBody = method.equals("HEAD") || answer.statusCode() == 204 || answer.statusCode() == 304;
        try (InputStream in = answer.body()) {
            if (noBody) {
                waitUntil(requestBody.done() + firstByte);
                answer.headers().firstValue("content-length").ifPresent(l -> exchange.getResponseHeaders().set("Content-Length", l));
                exchange.sendResponseHeaders(answer.statusCode(), -1);
                exchange.close();
                return;
            }
            boolean objectData = method.equals("GET") && objectRequest && answer.statusCode() < 300;
            String type = answer.headers().firstValue("content-type").orElse("");
            if (!objectData && type.contains("xml")) {
                boolean encodedAnswer = urlEncoded;
                String xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                if (quiet) {
                    // S3 answers a quiet batch delete with its errors only; S3Mock lists every deleted key too.
                    xml = xml.replaceAll("(?s)<Deleted>.*?</Deleted>", "");
                }
                byte[] out = rewrite(RESPONSE_KEYS, xml, m -> {
                    String text = encodedAnswer ? percentDecode(m.group(2)) : xmlUnescape(m.group(2));
                    String key = KeyCodec.decode(text);
                    String shown = encodedAnswer ? URLEncoder.encode(key, StandardCharsets.UTF_8) : xmlEscape(key);
                    return "<" + m.group(1) + ">" + shown + "</" + m.group(1) + ">";
                }).getBytes(StandardCharsets.UTF_8);
                waitUntil(requestBody.done() + firstByte);
                exchange.sendResponseHeaders(answer.statusCode(), out.length == 0 ? -1 : out.length);
                try (OutputStream os = new ThrottledOutput(exchange.getResponseBody(), rate)) {
                    os.write(out);
                }
            } else {
                long n = answer.headers().firstValueAsLong("content-length").orElse(-1);
                waitUntil(requestBody.done() + firstByte);
                exchange.sendResponseHeaders(answer.statusCode(), n == 0 ? -1 : n < 0 ? 0 : n);
                if (n != 0) {
                    try (OutputStream os = new ThrottledOutput(exchange.getResponseBody(), rate)) {
                        in.transferTo(os);
                    }
                }
            }
        }
        exchange.close();
    }

    private static void drain(InputStream body) throws IOException {
        try (InputStream in = body) {
            in.transferTo(OutputStream.nullOutputStream());
        }
    }

    /** The type of an S3 request, by its method, query and headers, for the profile's first-byte delays. */
    static NetworkProfile.RequestType type(String method, URI uri, Map<String, String> headers) {
        Set<String> params = new HashSet<>();
        if (uri.getRawQuery() != null) {
            for (String p : uri.getRawQuery().split("&")) {
                int eq = p.indexOf('=');
                params.add(eq < 0 ? p : p.substring(0, eq));
            }
        }
        String rawPath = uri.getRawPath();
        int slash = rawPath.indexOf('/', 1);
        boolean object = slash > 0 && slash < rawPath.length() - 1;
        boolean upload = params.contains("uploadId");
        return switch (method) {
            case "HEAD" -> NetworkProfile.RequestType.HEAD;
            case "GET" -> object ? (upload ? NetworkProfile.RequestType.LIST : NetworkProfile.RequestType.GET)
                    : params.isEmpty() || params.contains("list-type") || params.contains("uploads") || params.contains("prefix")
                            || params.contains("delimiter") || params.contains("marker") || params.contains("max-keys")
                            ? NetworkProfile.RequestType.LIST : NetworkProfile.RequestType.OTHER;
            case "PUT" -> !object ? NetworkProfile.RequestType.OTHER
                    : headers.containsKey("x-amz-copy-source") ? NetworkProfile.RequestType.COPY
                    : upload ? NetworkProfile.RequestType.UPLOAD_PART : NetworkProfile.RequestType.PUT;
            case "POST" -> params.contains("delete") ? NetworkProfile.RequestType.DELETE
                    : params.contains("uploads") ? NetworkProfile.RequestType.CREATE_MULTIPART
                    : upload ? NetworkProfile.RequestType.COMPLETE_MULTIPART : NetworkProfile.RequestType.OTHER;
            case "DELETE" -> object ? NetworkProfile.RequestType.DELETE : NetworkProfile.RequestType.OTHER;
            default -> NetworkProfile.RequestType.OTHER;
        };
    }

    private static void waitUntil(long deadline) {
        for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /** Bytes at most {@code rate} per second since the first one, in slices small enough to keep the rate smooth. */
    private static final class Pace {
        private static final int SLICE = 64 * 1024;
        private final long rate;
        private long start = -1;
        private long bytes;

        Pace(long rate) {
            this.rate = rate;
        }

        int slice(int len) {
            return rate == 0 ? len : Math.min(len, SLICE);
        }

        void spent(int n) {
            if (rate == 0 || n <= 0) {
                return;
            }
            if (start < 0) {
                start = System.nanoTime();
            }
            bytes += n;
            waitUntil(start + (long) (bytes * 1e9 / rate));
        }
    }

    /** A request body read at most at the profile's rate, remembering when its last byte came. */
    private static final class ThrottledInput extends InputStream {
        private final InputStream in;
        private final Pace pace;
        private volatile long done;

        ThrottledInput(InputStream in, long rate, long arrived) {
            this.in = in;
            this.pace = new Pace(rate);
            this.done = arrived;
        }

        /** When the body's last byte was read so far (the request's arrival if it had none). */
        long done() {
            return done;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, pace.slice(len));
            pace.spent(n);
            done = System.nanoTime();
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** A response body written at most at the profile's rate. */
    private static final class ThrottledOutput extends OutputStream {
        private final OutputStream out;
        private final Pace pace;

        ThrottledOutput(OutputStream out, long rate) {
            this.out = out;
            this.pace = new Pace(rate);
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                int n = pace.slice(len);
                out.write(b, off, n);
                pace.spent(n);
                off += n;
                len -= n;
            }
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }

    private static void error(HttpExchange exchange, int status, String code, String message) throws IOException {
        byte[] xml = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>" + message
                + "</Message><RequestId>local-" + System.nanoTime() + "</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/xml");
        exchange.sendResponseHeaders(status, xml.length);
        try (OutputStream os = exchange.getResponseBody()) {
            os.write(xml);
        }
        exchange.close();
    }

    /** Content-MD5 and the x-amz-checksum headers of a body that was rewritten, computed anew. */
    private static void rechecksum(Map<String, String> headers, byte[] body) {
        try {
            if (headers.containsKey("content-md5")) {
                headers.put("content-md5", Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(body)));
            }
            for (String name : List.copyOf(headers.keySet())) {
                if (!name.startsWith("x-amz-checksum-") || name.equals("x-amz-checksum-algorithm")) {
                    continue;
                }
                String value = switch (name.substring("x-amz-checksum-".length())) {
                    case "crc32" -> crc(new CRC32(), body);
                    case "crc32c" -> crc(new CRC32C(), body);
                    case "sha1" -> Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1").digest(body));
                    case "sha256" -> Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256").digest(body));
                    default -> null;
                };
                if (value == null) {
                    headers.remove(name);
                } else {
                    headers.put(name, value);
                }
            }
            if (headers.containsKey("x-amz-content-sha256")) {
                headers.put("x-amz-content-sha256", "UNSIGNED-PAYLOAD");
            }
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String crc(Checksum checksum, byte[] body) {
        checksum.update(body, 0, body.length);
        long v = checksum.getValue();
        return Base64.getEncoder().encodeToString(new byte[] {(byte) (v >> 24), (byte) (v >> 16), (byte) (v >> 8), (byte) v});
    }

    private static String rewrite(Pattern pattern, String text, Function<Matcher, String> replacement) {
        Matcher m = pattern.matcher(text);
        StringBuilder sb = new StringBuilder(text.length());
        while (m.find()) {
            m.appendReplacement(sb, Matcher.quoteReplacement(replacement.apply(m)));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    /** %XX sequences to the UTF-8 bytes they stand for; {@code +} stays (in paths and S3's encoded keys it is a plus). */
    static String percentDecode(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length() && Character.digit(s.charAt(i + 1), 16) >= 0 && Character.digit(s.charAt(i + 2), 16) >= 0) {
                out.write(Integer.parseInt(s.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                if (Character.isHighSurrogate(c) && i + 1 < s.length()) {
                    b = s.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
                    i++;
                }
                out.write(b, 0, b.length);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String xmlUnescape(String s) {
        if (s.indexOf('&') < 0) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            int end = c == '&' ? s.indexOf(';', i) : -1;
            if (end < 0) {
                sb.append(c);
                continue;
            }
            String entity = s.substring(i + 1, end);
            switch (entity) {
                case "amp" -> sb.append('&');
                case "lt" -> sb.append('<');
                case "gt" -> sb.append('>');
                case "quot" -> sb.append('"');
                case "apos" -> sb.append('\'');
                default -> {
                    if (entity.startsWith("#x") || entity.startsWith("#X")) {
                        sb.appendCodePoint(Integer.parseInt(entity.substring(2), 16));
                    } else if (entity.startsWith("#")) {
                        sb.appendCodePoint(Integer.parseInt(entity.substring(1)));
                    } else {
                        sb.append(c);
                        continue;
                    }
                }
            }
            i = end;
        }
        return sb.toString();
    }

    private static String xmlEscape(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&apos;");
                default -> {
                    if (c < 0x20) {
                        // As AWS answers; XML 1.0 parsers (the SDK's included) refuse the references below 0x20 other
                        // than tab, newline and return, which is why clients list such keys with encoding-type=url.
                        sb.append("&#x").append(Integer.toHexString(c).toUpperCase(Locale.ROOT)).append(';');
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
