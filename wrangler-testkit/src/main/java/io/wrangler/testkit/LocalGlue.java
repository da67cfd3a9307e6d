package io.wrangler.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;

/**
 * A LocalGlue is an AWS Glue Data Catalog endpoint on 127.0.0.1, speaking Glue's JSON 1.1 protocol to the real SDK
 * {@link GlueClient}, as pandas users use moto.
 *
 * <p>It keeps databases, tables, table versions and partitions in memory and enforces the real service's limits and
 * errors: names of 1 to 255 characters (stored lower case, as Glue does), BatchCreatePartition and
 * BatchUpdatePartition 1 to 100 entries, BatchDeletePartition at most 25, BatchGetPartition and GetPartitions pages
 * at most 1,000, expressions at most 2,048 characters; per-entry errors in batch responses; {@code VersionId}
 * compare-and-swap on UpdateTable (ConcurrentModificationException); a table version archived on each UpdateTable
 * unless {@code SkipArchive}; AlreadyExists and EntityNotFound. Faults can be injected per operation:
 * {@link #failNext}, {@link #failNextAfterApplying}, {@link #delay}. Every call is counted ({@link #calls}).
 *
 * <pre>{@code
 * try (LocalGlue glue = LocalGlue.start()) {
 *     glue.client().createDatabase(b -> b.databaseInput(d -> d.name("analytics")));
 *     ...
 * }
 * }</pre>
 */
public final class LocalGlue implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_NAME = 255;

    private final HttpServer server;
    private final ExecutorService executor;
    private final GlueClient client;
    private final Map<String, Database> databases = new TreeMap<>();
    private final Map<String, Deque<Fault>> faults = new ConcurrentHashMap<>();
    private final Map<String, Duration> delays = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    private final List<String> log = Collections.synchronizedList(new ArrayList<>());

    private record Fault(GlueFault fault, boolean afterApplying) {
    }

    private static final class Database {
        ObjectNode definition;
        final Map<String, Table> tables = new TreeMap<>();
    }

    private static final class Table {
        ObjectNode definition;
        int version;
        final List<ObjectNode> versions = new ArrayList<>();
        final Map<List<String>, ObjectNode> partitions = new LinkedHashMap<>();
    }

    /** A Glue error answered to the client. */
    private static final class GlueError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final String type;
        final int status;

        GlueError(String type, int status, String message) {
            super(message);
            this.type = type;
            this.status = status;
        }
    }

    private final Path file;

    private LocalGlue(HttpServer server, ExecutorService executor, Path file) {
        this.server = server;
        this.executor = executor;
        this.file = file;
        this.client = newClient();
        if (file != null && Files.exists(file)) {
            load();
        }
    }

    /** Starts an endpoint on a random port of 127.0.0.1 whose catalog lives in memory. */
    public static LocalGlue start() {
        return start(null);
    }

    /**
     * Starts an endpoint whose catalog is kept in {@code file} (JSON, written after every change): a LocalGlue started
     * again on the same file sees the same databases, tables and partitions.
     */
    public static LocalGlue fileBacked(Path file) {
        return start(file.toAbsolutePath());
    }

    private static LocalGlue start(Path file) {
        try {
            HttpServer server = LoopbackHttp.create();
            ExecutorService executor = Executors.newFixedThreadPool(4, r -> {
                Thread t = new Thread(r, "local-glue");
                t.setDaemon(true);
                return t;
            });
            server.setExecutor(executor);
            LocalGlue glue = new LocalGlue(server, executor, file);
            server.createContext("/", glue::handle);
            server.start();
            return glue;
        } catch (IOException e) {
            throw new IllegalStateException("Cannot start LocalGlue on 127.0.0.1", e);
        }
    }

    /** {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** A shared client for this endpoint with the SDK's retries turned off, so that tests see every fault. Do not close it. */
    public GlueClient client() {
        return client;
    }

    /** A new client for this endpoint (no SDK retries), owned by the caller. */
    public GlueClient newClient() {
        return GlueClient.builder().endpointOverride(endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("wrangler-local", "wrangler-local-secret")))
                .overrideConfiguration(ClientOverrideConfiguration.builder().retryStrategy(RetryMode.STANDARD)
                        .retryStrategy(b -> b.maxAttempts(1)).build())
                .httpClientBuilder(ApacheHttpClient.builder())
                .build();
    }

    /** Answers the next {@code times} calls of {@code operation} (such as {@code "UpdateTable"}) with {@code fault}, without applying them. */
    public void failNext(String operation, int times, GlueFault fault) {
        enqueue(operation, 0, times, new Fault(fault, false));
    }

    /** Drops every fault queued and not yet met (by {@link #failNext}, {@link #failNth}, {@link #failNextAfterApplying}). */
    public void clearFaults() {
        faults.clear();
    }

    /** Answers the {@code nth} call of {@code operation} from now on (1 for the next) with {@code fault}, letting the others through. */
    public void failNth(String operation, int nth, GlueFault fault) {
        enqueue(operation, nth - 1, 1, new Fault(fault, false));
    }

    /** Applies the next {@code times} calls of {@code operation}, then answers them with {@code fault}: a lost response. */
    public void failNextAfterApplying(String operation, int times, GlueFault fault) {
        enqueue(operation, 0, times, new Fault(fault, true));
    }

    /** Queues {@code skip} calls that go through, then {@code times} faulty ones. */
    private void enqueue(String operation, int skip, int times, Fault fault) {
        Deque<Fault> q = faults.computeIfAbsent(operation, k -> new ArrayDeque<>());
        synchronized (q) {
            for (int i = 0; i < skip; i++) {
                q.add(new Fault(null, false));
            }
            for (int i = 0; i < times; i++) {
                q.add(fault);
            }
        }
    }

    /** Delays every answer to {@code operation} by {@code delay} (zero to stop). */
    public void delay(String operation, Duration delay) {
        delays.put(operation, delay);
    }

    /** How many calls of {@code operation} arrived, faults included. */
    public int calls(String operation) {
        AtomicInteger n = calls.get(operation);
        return n == null ? 0 : n.get();
    }

    /** Every operation called, in order. */
    public List<String> callLog() {
        synchronized (log) {
            return List.copyOf(log);
        }
    }

    @Override
    public void close() {
        client.close();
        server.stop(0);
        executor.shutdownNow();
    }

    // ---- persistence ----

    private void save() {
        ObjectNode root = JSON.createObjectNode();
        databases.forEach((name, d) -> {
            ObjectNode db = root.putObject(name);
            db.set("definition", d.definition);
            ObjectNode tables = db.putObject("tables");
            d.tables.forEach((tn, t) -> {
                ObjectNode tj = tables.putObject(tn);
                tj.set("definition", t.definition);
                tj.put("version", t.version);
                tj.putArray("versions").addAll(t.versions);
                ArrayNode parts = tj.putArray("partitions");
                t.partitions.values().forEach(parts::add);
            });
        });
        try {
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            JSON.writerWithDefaultPrettyPrinter().writeValue(tmp.toFile(), root);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new IllegalStateException("LocalGlue cannot save its catalog to " + file, e);
        }
    }

    private void load() {
        try {
            JsonNode root = JSON.readTree(file.toFile());
            root.fields().forEachRemaining(db -> {
                Database d = new Database();
                d.definition = (ObjectNode) db.getValue().get("definition");
                db.getValue().get("tables").fields().forEachRemaining(te -> {
                    Table t = new Table();
                    t.definition = (ObjectNode) te.getValue().get("definition");
                    t.version = te.getValue().get("version").asInt();
                    te.getValue().get("versions").forEach(v -> t.versions.add((ObjectNode) v));
                    te.getValue().get("partitions").forEach(p -> t.partitions.put(values(p.get("Values")), (ObjectNode) p));
                    d.tables.put(te.getKey(), t);
                });
                databases.put(db.getKey(), d);
            });
        } catch (IOException e) {
            throw new IllegalStateException("LocalGlue cannot read its catalog from " + file, e);
        }
    }

    // ---- HTTP ----

    private void handle(HttpExchange exchange) throws IOException {
        String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
        String operation = target == null ? "" : target.substring(target.indexOf('.') + 1);
        calls.computeIfAbsent(operation, k -> new AtomicInteger()).incrementAndGet();
        log.add(operation);
        byte[] body = exchange.getRequestBody().readAllBytes();
        int status = 200;
        JsonNode response;
        try {
            Duration d = delays.get(operation);
            if (d != null && !d.isZero()) {
                Thread.sleep(d.toMillis());
            }
            Fault fault = nextFault(operation);
            if (fault != null && fault.fault == null) {
                fault = null; // a placeholder of failNth: this call goes through
            }
            if (fault != null && !fault.afterApplying) {
                throw new GlueError(fault.fault.type, fault.fault.status, fault.fault.message);
            }
            JsonNode request = body.length == 0 ? JSON.createObjectNode() : JSON.readTree(body);
            synchronized (this) {
                response = dispatch(operation, request);
                if (file != null && !operation.startsWith("Get") && !operation.startsWith("BatchGet")) {
                    save();
                }
            }
            if (fault != null) {
                throw new GlueError(fault.fault.type, fault.fault.status, fault.fault.message);
            }
        } catch (GlueError e) {
            status = e.status;
            ObjectNode err = JSON.createObjectNode();
            err.put("__type", e.type);
            err.put("Message", e.getMessage());
            response = err;
            exchange.getResponseHeaders().add("x-amzn-ErrorType", e.type);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (RuntimeException e) {
            status = 400;
            ObjectNode err = JSON.createObjectNode();
            err.put("__type", "InvalidInputException");
            err.put("Message", String.valueOf(e.getMessage()));
            response = err;
            exchange.getResponseHeaders().add("x-amzn-ErrorType", "InvalidInputException");
        }
        byte[] out = JSON.writeValueAsBytes(response);
        exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.1");
        exchange.getResponseHeaders().add("x-amzn-RequestId", UUID.randomUUID().toString());
        exchange.sendResponseHeaders(status, out.length);
        try (OutputStream os = exchange.getResponseBody()) {
            os.write(out);
        }
    }

    private Fault nextFault(String operation) {
        Deque<Fault> q = faults.get(operation);
        if (q == null) {
            return null;
        }
        synchronized (q) {
            return q.poll();
        }
    }

    private JsonNode dispatch(String op, JsonNode r) {
        return switch (op) {
            case "CreateDatabase" -> createDatabase(r);
            case "GetDatabase" -> wrap("Database", database(text(r, "Name")).definition);
            case "GetDatabases" -> getDatabases(r);
            case "DeleteDatabase" -> deleteDatabase(r);
            case "CreateTable" -> createTable(r);
            case "GetTable" -> wrap("Table", table(r, "Name").definition);
            case "GetTables" -> getTables(r);
            case "UpdateTable" -> updateTable(r);
            case "DeleteTable" -> deleteTable(r);
            case "GetTableVersions" -> getTableVersions(r);
            case "BatchCreatePartition" -> batchCreatePartition(r);
            case "BatchDeletePartition" -> batchDeletePartition(r);
            case "BatchUpdatePartition" -> batchUpdatePartition(r);
            case "BatchGetPartition" -> batchGetPartition(r);
            case "GetPartitions" -> getPartitions(r);
            case "GetPartition" -> wrap("Partition", partition(table(r, "TableName"), values(r.get("PartitionValues"))));
            case "CreatePartition" -> createPartition(r);
            case "DeletePartition" -> deletePartition(r);
            default -> throw new GlueError("UnknownOperationException", 400, "LocalGlue does not implement " + op);
        };
    }

    // ---- validation helpers ----

    private static GlueError invalid(String message) {
        return new GlueError("InvalidInputException", 400, message);
    }

    private static String text(JsonNode r, String field) {
        JsonNode v = r.get(field);
        if (v == null || v.isNull() || !v.isTextual()) {
            throw invalid("1 validation error detected: Value null at '" + field + "' failed to satisfy constraint: Member must not be null");
        }
        return v.asText();
    }

    private static String name(JsonNode r, String field) {
        String n = text(r, field);
        if (n.isEmpty() || n.length() > MAX_NAME || n.contains("\n")) {
            throw invalid("1 validation error detected: Value '" + n + "' at '" + field
                    + "' failed to satisfy constraint: Member must have length between 1 and 255 and be a single-line string");
        }
        return n.toLowerCase(Locale.ROOT);
    }

    private static void checkSize(String field, JsonNode list, int min, int max) {
        int n = list == null ? 0 : list.size();
        if (n < min || n > max) {
            throw invalid("1 validation error detected: Value at '" + field + "' failed to satisfy constraint: Member must have length "
                    + (min == 0 ? "less than or equal to " + max : "between " + min + " and " + max));
        }
    }

    private static int maxResults(JsonNode r, int max) {
        JsonNode m = r.get("MaxResults");
        if (m == null) {
            return max;
        }
        if (m.asInt() < 1 || m.asInt() > max) {
            throw invalid("1 validation error detected: Value '" + m.asInt() + "' at 'maxResults' failed to satisfy constraint: "
                    + "Member must have value between 1 and " + max);
        }
        return m.asInt();
    }

    private static int token(JsonNode r) {
        JsonNode t = r.get("NextToken");
        return t == null || t.isNull() ? 0 : Integer.parseInt(t.asText());
    }

    /** One page of {@code all} as the response field {@code field}, with a NextToken when more remain. */
    private static ObjectNode page(List<? extends JsonNode> all, JsonNode r, int maxPage, String field) {
        int max = maxResults(r, maxPage);
        int from = token(r);
        ObjectNode out = JSON.createObjectNode();
        ArrayNode list = out.putArray(field);
        for (int i = from; i < Math.min(all.size(), from + max); i++) {
            list.add(all.get(i).deepCopy());
        }
        if (from + max < all.size()) {
            out.put("NextToken", String.valueOf(from + max));
        }
        return out;
    }

    private static ObjectNode wrap(String field, JsonNode value) {
        ObjectNode o = JSON.createObjectNode();
        o.set(field, value.deepCopy());
        return o;
    }

    private static double now() {
        return System.currentTimeMillis() / 1000.0;
    }

    private static List<String> values(JsonNode list) {
        List<String> out = new ArrayList<>();
        if (list != null) {
            list.forEach(v -> out.add(v.asText()));
        }
        return out;
    }

    private Database database(String name) {
        Database d = databases.get(name.toLowerCase(Locale.ROOT));
        if (d == null) {
            throw new GlueError("EntityNotFoundException", 400, "Database " + name + " not found.");
        }
        return d;
    }

    private Table table(JsonNode r, String nameField) {
        Database d = database(text(r, "DatabaseName"));
        String name = text(r, nameField).toLowerCase(Locale.ROOT);
        Table t = d.tables.get(name);
        if (t == null) {
            throw new GlueError("EntityNotFoundException", 400, "Table " + name + " not found.");
        }
        return t;
    }

    private static ObjectNode partition(Table t, List<String> values) {
        ObjectNode p = t.partitions.get(values);
        if (p == null) {
            throw new GlueError("EntityNotFoundException", 400, "Partition not found.");
        }
        return p;
    }

    private static Map<String, String> keyTypes(Table t) {
        Map<String, String> out = new LinkedHashMap<>();
        JsonNode keys = t.definition.get("PartitionKeys");
        if (keys != null) {
            keys.forEach(k -> out.put(k.get("Name").asText(), k.has("Type") ? k.get("Type").asText().toLowerCase(Locale.ROOT) : "string"));
        }
        return out;
    }

    // ---- databases ----

    private JsonNode createDatabase(JsonNode r) {
        JsonNode input = r.get("DatabaseInput");
        if (input == null) {
            throw invalid("DatabaseInput is required");
        }
        String n = name(input, "Name");
        if (databases.containsKey(n)) {
            throw new GlueError("AlreadyExistsException", 400, "Database already exists.");
        }
        Database d = new Database();
        ObjectNode def = input.deepCopy();
        def.put("Name", n);
        def.put("CreateTime", now());
        def.put("CatalogId", "123456789012");
        d.definition = def;
        databases.put(n, d);
        return JSON.createObjectNode();
    }

    private JsonNode getDatabases(JsonNode r) {
        return page(databases.values().stream().map(d -> d.definition).toList(), r, 100, "DatabaseList");
    }

    private JsonNode deleteDatabase(JsonNode r) {
        String n = text(r, "Name").toLowerCase(Locale.ROOT);
        database(n);
        databases.remove(n);
        return JSON.createObjectNode();
    }

    // ---- tables ----

    private static void checkTableInput(JsonNode input) {
        name(input, "Name");
        JsonNode sd = input.get("StorageDescriptor");
        for (JsonNode cols : new JsonNode[] {sd == null ? null : sd.get("Columns"), input.get("PartitionKeys")}) {
            if (cols == null) {
                continue;
            }
            for (JsonNode c : cols) {
                name(c, "Name");
                if (c.has("Type") && c.get("Type").asText().length() > 131_072) {
                    throw invalid("Column type longer than 131072 characters");
                }
            }
        }
    }

    private ObjectNode storedTable(JsonNode input, String database, Table existing) {
        ObjectNode def = input.deepCopy();
        def.put("Name", input.get("Name").asText().toLowerCase(Locale.ROOT));
        def.put("DatabaseName", database);
        def.put("CatalogId", "123456789012");
        def.put("CreateTime", existing == null ? now() : existing.definition.get("CreateTime").asDouble());
        def.put("UpdateTime", now());
        def.put("IsRegisteredWithLakeFormation", false);
        if (!def.has("TableType")) {
            def.putNull("TableType");
            def.remove("TableType");
        }
        return def;
    }

    private JsonNode createTable(JsonNode r) {
        Database d = database(text(r, "DatabaseName"));
        JsonNode input = r.get("TableInput");
        if (input == null) {
            throw invalid("TableInput is required");
        }
        checkTableInput(input);
        String n = input.get("Name").asText().toLowerCase(Locale.ROOT);
        if (d.tables.containsKey(n)) {
            throw new GlueError("AlreadyExistsException", 400, "Table already exists.");
        }
        Table t = new Table();
        t.version = 0;
        t.definition = storedTable(input, d.definition.get("Name").asText(), null);
        t.definition.put("VersionId", "0");
        d.tables.put(n, t);
        return JSON.createObjectNode();
    }

    private JsonNode getTables(JsonNode r) {
        Database d = database(text(r, "DatabaseName"));
        return page(d.tables.values().stream().map(t -> t.definition).toList(), r, 100, "TableList");
    }

    private JsonNode updateTable(JsonNode r) {
        JsonNode input = r.get("TableInput");
        if (input == null) {
            throw invalid("TableInput is required");
        }
        checkTableInput(input);
        ObjectNode req = ((ObjectNode) r).deepCopy();
        req.put("Name", input.get("Name").asText());
        Table t = table(req, "Name");
        JsonNode versionId = r.get("VersionId");
        if (versionId != null && !versionId.isNull() && !versionId.asText().equals(String.valueOf(t.version))) {
            throw new GlueError("ConcurrentModificationException", 400, "Update table failed due to concurrent modifications: version "
                    + versionId.asText() + " is not the current version " + t.version + ".");
        }
        boolean skipArchive = r.has("SkipArchive") && r.get("SkipArchive").asBoolean();
        if (!skipArchive) {
            t.versions.add(t.definition.deepCopy());
        }
        t.version++;
        t.definition = storedTable(input, t.definition.get("DatabaseName").asText(), t);
        t.definition.put("VersionId", String.valueOf(t.version));
        return JSON.createObjectNode();
    }

    private JsonNode deleteTable(JsonNode r) {
        Database d = database(text(r, "DatabaseName"));
        table(r, "Name");
        d.tables.remove(text(r, "Name").toLowerCase(Locale.ROOT));
        return JSON.createObjectNode();
    }

    private JsonNode getTableVersions(JsonNode r) {
        Table t = table(r, "TableName");
        List<ObjectNode> all = new ArrayList<>();
        List<ObjectNode> newestFirst = new ArrayList<>(t.versions);
        newestFirst.add(t.definition);
        Collections.reverse(newestFirst);
        for (ObjectNode table : newestFirst) {
            ObjectNode v = JSON.createObjectNode();
            v.set("Table", table);
            v.put("VersionId", table.get("VersionId").asText());
            all.add(v);
        }
        return page(all, r, 100, "TableVersions");
    }

    // ---- partitions ----

    private static ObjectNode error(String field, List<String> values, String code, String message) {
        ObjectNode e = JSON.createObjectNode();
        ArrayNode vs = e.putArray(field);
        values.forEach(vs::add);
        ObjectNode detail = e.putObject("ErrorDetail");
        detail.put("ErrorCode", code);
        detail.put("ErrorMessage", message);
        return e;
    }

    private ObjectNode storedPartition(Table t, JsonNode input) {
        ObjectNode p = input.deepCopy();
        p.put("DatabaseName", t.definition.get("DatabaseName").asText());
        p.put("TableName", t.definition.get("Name").asText());
        p.put("CreationTime", now());
        return p;
    }

    private String checkValues(Table t, List<String> values) {
        int keys = keyTypes(t).size();
        if (values.size() != keys) {
            return "The number of partition values (" + values.size() + ") does not match the number of partition keys (" + keys + ").";
        }
        return null;
    }

    private JsonNode batchCreatePartition(JsonNode r) {
        Table t = table(r, "TableName");
        JsonNode list = r.get("PartitionInputList");
        checkSize("partitionInputList", list, 1, 100);
        ObjectNode out = JSON.createObjectNode();
        ArrayNode errors = out.putArray("Errors");
        for (JsonNode input : list) {
            List<String> values = values(input.get("Values"));
            String bad = checkValues(t, values);
            if (bad != null) {
                errors.add(error("PartitionValues", values, "InvalidInputException", bad));
            } else if (t.partitions.containsKey(values)) {
                errors.add(error("PartitionValues", values, "AlreadyExistsException", "Partition already exists."));
            } else {
                t.partitions.put(values, storedPartition(t, input));
            }
        }
        return out;
    }

    private JsonNode createPartition(JsonNode r) {
        Table t = table(r, "TableName");
        JsonNode input = r.get("PartitionInput");
        List<String> values = values(input.get("Values"));
        String bad = checkValues(t, values);
        if (bad != null) {
            throw invalid(bad);
        }
        if (t.partitions.containsKey(values)) {
            throw new GlueError("AlreadyExistsException", 400, "Partition already exists.");
        }
        t.partitions.put(values, storedPartition(t, input));
        return JSON.createObjectNode();
    }

    private JsonNode deletePartition(JsonNode r) {
        Table t = table(r, "TableName");
        List<String> values = values(r.get("PartitionValues"));
        partition(t, values);
        t.partitions.remove(values);
        return JSON.createObjectNode();
    }

    private JsonNode batchDeletePartition(JsonNode r) {
        Table t = table(r, "TableName");
        JsonNode list = r.get("PartitionsToDelete");
        checkSize("partitionsToDelete", list, 0, 25);
        ObjectNode out = JSON.createObjectNode();
        ArrayNode errors = out.putArray("Errors");
        for (JsonNode p : list) {
            List<String> values = values(p.get("Values"));
            if (t.partitions.remove(values) == null) {
                errors.add(error("PartitionValues", values, "EntityNotFoundException", "Partition not found."));
            }
        }
        return out;
    }

    private JsonNode batchUpdatePartition(JsonNode r) {
        Table t = table(r, "TableName");
        JsonNode list = r.get("Entries");
        checkSize("entries", list, 1, 100);
        ObjectNode out = JSON.createObjectNode();
        ArrayNode errors = out.putArray("Errors");
        for (JsonNode e : list) {
            List<String> values = values(e.get("PartitionValueList"));
            ObjectNode existing = t.partitions.get(values);
            if (existing == null) {
                errors.add(error("PartitionValueList", values, "EntityNotFoundException", "Partition not found."));
                continue;
            }
            ObjectNode updated = storedPartition(t, e.get("PartitionInput"));
            updated.put("CreationTime", existing.get("CreationTime").asDouble());
            List<String> newValues = values(updated.get("Values"));
            t.partitions.remove(values);
            t.partitions.put(newValues.isEmpty() ? values : newValues, updated);
        }
        return out;
    }

    private JsonNode batchGetPartition(JsonNode r) {
        Table t = table(r, "TableName");
        JsonNode list = r.get("PartitionsToGet");
        checkSize("partitionsToGet", list, 1, 1000);
        ObjectNode out = JSON.createObjectNode();
        ArrayNode found = out.putArray("Partitions");
        out.putArray("UnprocessedKeys");
        for (JsonNode p : list) {
            ObjectNode stored = t.partitions.get(values(p.get("Values")));
            if (stored != null) {
                found.add(stored.deepCopy());
            }
        }
        return out;
    }

    private JsonNode getPartitions(JsonNode r) {
        Table t = table(r, "TableName");
        maxResults(r, 1000);
        String expression = r.has("Expression") && !r.get("Expression").isNull() ? r.get("Expression").asText() : null;
        if (expression != null && expression.length() > 2048) {
            throw invalid("1 validation error detected: Value at 'expression' failed to satisfy constraint: Member must have length less than or equal to 2048");
        }
        GlueExpression.Node filter = expression == null || expression.isBlank() ? null : GlueExpression.parse(expression);
        Map<String, String> types = keyTypes(t);
        List<String> names = new ArrayList<>(types.keySet());
        List<ObjectNode> matching = new ArrayList<>();
        for (Map.Entry<List<String>, ObjectNode> e : t.partitions.entrySet()) {
            if (filter != null) {
                Map<String, String> values = new HashMap<>();
                for (int i = 0; i < names.size(); i++) {
                    values.put(names.get(i), e.getKey().get(i));
                }
                if (!filter.test(values, types)) {
                    continue;
                }
            }
            matching.add(e.getValue());
        }
        JsonNode segment = r.get("Segment");
        if (segment != null && !segment.isNull()) {
            int number = segment.get("SegmentNumber").asInt();
            int total = segment.get("TotalSegments").asInt();
            if (total < 1 || total > 10 || number < 0 || number >= total) {
                throw invalid("Invalid segment " + number + " of " + total);
            }
            List<ObjectNode> mine = new ArrayList<>();
            for (int i = 0; i < matching.size(); i++) {
                if (i % total == number) {
                    mine.add(matching.get(i));
                }
            }
            matching = mine;
        }
        return page(matching, r, 1000, "Partitions");
    }
}
