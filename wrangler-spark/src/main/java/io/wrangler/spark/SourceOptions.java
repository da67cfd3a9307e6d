package io.wrangler.spark;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.wrangler.CommitMethod;
import io.wrangler.Compression;
import io.wrangler.InvalidWriteException;
import io.wrangler.RetryPolicy;
import io.wrangler.WriteMode;
import io.wrangler.WriteOptions;
import io.wrangler.WriteStep;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.glue.GlueTable;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.GlueClientBuilder;

/**
 * SourceOptions read the data source's string options (case-insensitive, as Spark passes them) into a write's settings;
 * a bad option is refused with an {@link InvalidWriteException} naming the table, before anything is written. The
 * option names are the fluent builder's methods (see docs/spark.md, "Options of the data source").
 */
final class SourceOptions {
    /**
     * Where every default of an option that is a {@link WriteOptions.Builder} method comes from: an absent string option
     * leaves the builder's default, declared once, in WriteOptions (OptionParityTest compares them).
     */
    private static final WriteOptions DEFAULTS = WriteOptions.defaults();

    final String uri;
    final Map<String, String> o;
    /** The Glue client {@link #glue} built, closed by {@link #close}; null without one. */
    private GlueClient glueClient;

    SourceOptions(String uri, Map<String, String> options) {
        this.uri = uri;
        Map<String, String> lower = new HashMap<>();
        options.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
        this.o = lower;
    }

    InvalidWriteException invalid(String what, String todo) {
        return new InvalidWriteException(uri, WriteStep.VALIDATE, "Cannot write " + uri + " (step: validate): " + what + ". " + todo);
    }

    String get(String name) {
        return o.get(name.toLowerCase(Locale.ROOT));
    }

    private long longOption(String name, long absent) {
        String v = get(name);
        if (v == null) {
            return absent;
        }
        try {
            long n = Long.parseLong(v.trim());
            if (n < 1) {
                throw invalid("the option " + name + " is " + v + ", which is not positive", "Give a positive number.");
            }
            return n;
        } catch (NumberFormatException e) {
            throw invalid("the option " + name + " is '" + v + "', which is not a whole number", "Give a number, such as 134217728.");
        }
    }

    private boolean boolOption(String name, boolean absent) {
        String v = get(name);
        if (v == null) {
            return absent;
        }
        if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
            throw invalid("the option " + name + " is '" + v + "'", "Give true or false.");
        }
        return Boolean.parseBoolean(v);
    }

    /** The wrangler mode the option {@code writeMode} names, or null. */
    WriteMode writeMode() {
        String v = get("writeMode");
        if (v == null) {
            return null;
        }
        try {
            return WriteMode.valueOf(v.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw invalid("the option writeMode is '" + v + "'", "Give APPEND, OVERWRITE or OVERWRITE_PARTITIONS.");
        }
    }

    /** True when the option or the session asks for dynamic partition overwrite ({@code partitionOverwriteMode=dynamic}). */
    boolean dynamicOverwrite(String sessionValue) {
        String v = get("partitionOverwriteMode");
        return "dynamic".equalsIgnoreCase(v != null ? v : sessionValue);
    }

    Compression compression() {
        String v = get("compression");
        if (v == null) {
            return DEFAULTS.compression();
        }
        for (Compression c : Compression.values()) {
            if (c.name().equalsIgnoreCase(v) || (c == Compression.LZ4_RAW && (v.equalsIgnoreCase("lz4") || v.equalsIgnoreCase("lz4raw")))) {
                return c;
            }
        }
        throw invalid("the option compression is '" + v + "'", "Give snappy, zstd, gzip, lz4_raw or none.");
    }

    long maxRowsPerFile() {
        return longOption("maxRowsPerFile", DEFAULTS.maxRowsPerFile());
    }

    long targetFileSize() {
        return longOption("targetFileSize", DEFAULTS.targetFileSize());
    }

    String filenamePrefix() {
        String p = get("filenamePrefix");
        if (p == null) {
            return DEFAULTS.filenamePrefix();
        }
        if (p.startsWith("_") || p.startsWith(".")) {
            throw invalid("the option filenamePrefix '" + p + "' starts with '" + p.charAt(0) + "', which makes Hive, Spark, Athena and "
                    + "Trino skip the files as hidden", "Start it with a letter or digit.");
        }
        for (int i = 0; i < p.length(); i++) {
            char c = p.charAt(i);
            if (c == '/' || c < 0x20 || c == 0x7F) {
                throw invalid("the option filenamePrefix holds '/' or a control character", "Use letters, digits, '-' and '_'.");
            }
        }
        return p;
    }

    String sse() {
        String v = get("sse");
        if (v == null) {
            return null;
        }
        if (v.equalsIgnoreCase("AES256") || v.equalsIgnoreCase("s3")) {
            return "AES256";
        }
        if (v.equalsIgnoreCase("aws:kms") || v.equalsIgnoreCase("kms")) {
            return "aws:kms";
        }
        throw invalid("the option sse is '" + v + "'", "Give AES256 or aws:kms (with sseKmsKeyId).");
    }

    int concurrency() {
        return (int) Math.min(1024, longOption("concurrency", DEFAULTS.concurrency()));
    }

    int taskConcurrency() {
        return (int) Math.min(256, longOption("taskConcurrency", 8));
    }

    /** Rows a task hands its encoder at a time (8,192): the rows in flight per task are at most twice this. */
    int batchRows() {
        // 65,536: with many partitions interleaved a batch of 8,192 brought the encoder runs of a few dozen rows per file
        // (41 for the standard table's 200), and the task spent 2.8 times as long (BENCHMARKS.md, "Spark").
        return (int) Math.min(1 << 20, longOption("batchRows", 65_536));
    }

    int retryAttempts() {
        return (int) longOption("retryAttempts", DEFAULTS.retryPolicy().attempts());
    }

    long retryBaseMillis() {
        return longOption("retryBaseMillis", DEFAULTS.retryPolicy().base().toMillis());
    }

    long retryCapMillis() {
        return longOption("retryCapMillis", DEFAULTS.retryPolicy().cap().toMillis());
    }

    boolean lease() {
        return boolOption("lease", DEFAULTS.lease());
    }

    Duration leaseWait() {
        return Duration.ofSeconds(longOption("leaseWaitSeconds", DEFAULTS.leaseWait().toSeconds()));
    }

    /** {@code STAGE_AND_COPY} (default) or {@code DEFERRED_UPLOADS}, as {@code S3Parquet}'s {@code commitMethod}. */
    CommitMethod commitMethod() {
        String v = get("commitMethod");
        if (v == null) {
            return DEFAULTS.commitMethod();
        }
        try {
            return CommitMethod.valueOf(v.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw invalid("the option commitMethod is '" + v + "'", "Give STAGE_AND_COPY or DEFERRED_UPLOADS.");
        }
    }

    void checkUnsupported() {
        if (get("dtype") != null) {
            throw invalid("the option dtype is not supported by wrangler-spark yet", "Cast the columns in Spark before writing "
                    + "(the Glue types follow the DataFrame's), or remove the option.");
        }
        // options of WriteOptions a Spark write cannot honour: refused, never dropped
        if (get("spillDirectory") != null) {
            throw invalid("the option spillDirectory is not supported by wrangler-spark: each executor spills into its own temporary "
                    + "directory", "Remove the option.");
        }
        if (boolOption("timestampsAsInt96", DEFAULTS.timestampsAsInt96())) {
            throw invalid("the option timestampsAsInt96 is not supported by wrangler-spark: it writes timestamps as INT64 microseconds",
                    "Remove the option.");
        }
    }

    /**
     * The write's options as these string options give them (the partition and bucket columns as the catalog names them),
     * or an {@link InvalidWriteException} for a value WriteOptions refuses.
     */
    WriteOptions writeOptions(WriteMode mode, List<String> partitionBy, List<String> bucketBy, int buckets) {
        try {
            WriteOptions.Builder b = WriteOptions.builder().mode(mode).partitionBy(partitionBy.toArray(String[]::new))
                    .compression(compression()).maxRowsPerFile(maxRowsPerFile()).targetFileSize(targetFileSize())
                    .lease(lease()).leaseWait(leaseWait())
                    .encryption(TaskSettings.encryption(sse(), get("sseKmsKeyId")))
                    .acl(get("acl")).expectedBucketOwner(get("expectedBucketOwner"))
                    .retryPolicy(RetryPolicy.of(retryAttempts(), Duration.ofMillis(retryBaseMillis()), Duration.ofMillis(retryCapMillis())))
                    .concurrency(concurrency()).commitMethod(commitMethod()).filenamePrefix(filenamePrefix())
                    // Spark's timestamps hold microseconds: kept so that the options are the ones given, it changes no file
                    .preserveNanoseconds(boolOption("preserveNanoseconds", DEFAULTS.preserveNanoseconds()));
            if (!bucketBy.isEmpty()) {
                b.bucketBy(bucketBy, buckets);
            }
            layout(b);
            return b.build();
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage(), "Fix the option; nothing was written.");
        }
    }

    /** The file layout options (docs/writing.md, "File layout"), each left at WriteOptions' default when absent. */
    private void layout(WriteOptions.Builder b) {
        if (get("rowGroupSize") != null) {
            b.rowGroupSize(longOption("rowGroupSize", 0));
        }
        if (get("pageSize") != null) {
            b.pageSize((int) Math.min(Integer.MAX_VALUE, longOption("pageSize", 0)));
        }
        if (get("dictionaryEncoding") != null) {
            Map<String, Boolean> on = new LinkedHashMap<>();
            jsonMap("dictionaryEncoding", "{\"id\": false, \"country\": true}").forEach((c, v) -> {
                if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
                    throw invalid("the option dictionaryEncoding gives '" + v + "' for the column " + c, "Give true or false for each column.");
                }
                on.put(c, Boolean.parseBoolean(v));
            });
            b.dictionaryEncoding(on);
        }
        if (get("bloomFilters") != null) {
            b.bloomFilters(columnList("bloomFilters").toArray(String[]::new));
        }
        if (get("bloomFilterFpp") != null) {
            try {
                b.bloomFilterFpp(Double.parseDouble(get("bloomFilterFpp").trim()));
            } catch (NumberFormatException e) {
                throw invalid("the option bloomFilterFpp is '" + get("bloomFilterFpp") + "', which is not a number", "Give a number such as 0.01.");
            }
        }
        if (get("sortBy") != null) {
            b.sortBy(columnList("sortBy").toArray(String[]::new));
        }
        if (get("fileMetadata") != null) {
            b.fileMetadata(jsonMap("fileMetadata", "{\"source\": \"crm\"}"));
        }
        b.storageClass(get("storageClass"));
        if (get("tags") != null) {
            b.tags(jsonMap("tags", "{\"team\": \"risk\"}"));
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** {@code map} as the JSON object a map option holds. */
    static String json(Map<String, ?> map) {
        try {
            return JSON.writeValueAsString(map);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write " + map + " as JSON", e);
        }
    }

    /** The JSON object of strings (or booleans) the option {@code name} holds, in order. */
    private Map<String, String> jsonMap(String name, String example) {
        try {
            Map<String, Object> raw = JSON.readValue(get(name), new TypeReference<LinkedHashMap<String, Object>>() { });
            Map<String, String> out = new LinkedHashMap<>();
            raw.forEach((k, v) -> {
                if (!(v instanceof String) && !(v instanceof Boolean)) {
                    throw new IllegalArgumentException("the value of " + k + " is not a string");
                }
                out.put(k, v.toString());
            });
            return out;
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw invalid("the option " + name + " is '" + get(name) + "', which is not a JSON object of strings", "Give one such as "
                    + example + ".");
        }
    }

    /** The column names of a comma-separated option. */
    private List<String> columnList(String name) {
        List<String> out = new ArrayList<>();
        for (String c : get(name).split(",")) {
            if (c.trim().isEmpty()) {
                throw invalid("the option " + name + " is '" + get(name) + "', which names an empty column", "Give column names separated by commas.");
            }
            out.add(c.trim());
        }
        return out;
    }

    /** The bucket columns of the option {@code bucketBy} (comma-separated, as the DataFrame names them), or none. */
    List<String> bucketBy() {
        String v = get("bucketBy");
        if (v == null) {
            if (get("buckets") != null) {
                throw invalid("the option buckets is set without bucketBy", "Set bucketBy to the bucket columns, or remove buckets.");
            }
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (String c : v.split(",")) {
            if (c.trim().isEmpty()) {
                throw invalid("the option bucketBy is '" + v + "', which names an empty column", "Give column names separated by commas.");
            }
            out.add(c.trim());
        }
        return out;
    }

    /** The number of buckets (option {@code buckets}, required with {@code bucketBy}); 0 without bucketing. */
    int buckets() {
        if (bucketBy().isEmpty()) {
            return 0;
        }
        if (get("buckets") == null) {
            throw invalid("the option bucketBy is set without buckets", "Set buckets to the number of buckets, such as 16.");
        }
        long n = longOption("buckets", 0);
        if (n > Integer.MAX_VALUE) {
            throw invalid("the option buckets is " + n + ", over " + Integer.MAX_VALUE, "Give fewer buckets.");
        }
        return (int) n;
    }

    S3Settings s3() {
        try {
            return S3Settings.fromOptions(o);
        } catch (RuntimeException e) {
            throw invalid("the s3.* options are not usable (" + e.getMessage() + ")", "See docs/spark.md, 'Options of the data source'.");
        }
    }

    /**
     * The Glue table the {@code glue.*} options name ({@code glue.database} and {@code glue.table}, with {@code
     * glue.region}, {@code glue.endpoint}, {@code glue.catalogId}, {@code glue.description}, {@code glue.tableType},
     * {@code glue.sanitizeNames}, {@code glue.schemaEvolution}, {@code glue.catalogVersioning}, {@code
     * glue.registerPartitions}, {@code glue.createDatabase}, {@code glue.parameter.<name>}, {@code
     * glue.columnComment.<column>}), or null without {@code glue.table}.
     */
    CatalogTable glue() {
        String database = get("glue.database");
        String table = get("glue.table");
        if (database == null && table == null) {
            return null;
        }
        if (database == null || table == null) {
            throw invalid("only one of the options glue.database and glue.table is set", "Set both, or neither.");
        }
        GlueClientBuilder b = GlueClient.builder();
        if (get("glue.region") != null) {
            b.region(Region.of(get("glue.region")));
        } else if (get("s3.region") != null) {
            b.region(Region.of(get("s3.region")));
        }
        if (get("glue.endpoint") != null) {
            b.endpointOverride(URI.create(get("glue.endpoint")));
        }
        if (get("s3.accessKeyId") != null && get("glue.endpoint") != null) {
            // a local Glue next to a local S3: the same fixed credentials
            b.credentialsProvider(StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(get("s3.accessKeyId"), get("s3.secretAccessKey"))));
        }
        glueClient = b.build();
        GlueTable t = GlueCatalog.of(glueClient).table(database, table);
        if (get("glue.catalogId") != null) {
            t = t.catalogId(get("glue.catalogId"));
        }
        if (get("glue.description") != null) {
            t = t.description(get("glue.description"));
        }
        if (get("glue.tableType") != null) {
            t = t.tableType(get("glue.tableType"));
        }
        if (get("glue.sanitizeNames") != null) {
            t = t.sanitizeNames(boolOption("glue.sanitizeNames", true));
        }
        if (get("glue.schemaEvolution") != null) {
            t = t.schemaEvolution(boolOption("glue.schemaEvolution", true));
        }
        if (get("glue.catalogVersioning") != null) {
            t = t.catalogVersioning(boolOption("glue.catalogVersioning", false));
        }
        if (get("glue.registerPartitions") != null) {
            t = t.registerPartitions(boolOption("glue.registerPartitions", true));
        }
        if (get("glue.createDatabase") != null) {
            t = t.createDatabase(boolOption("glue.createDatabase", false));
        }
        Map<String, String> parameters = new LinkedHashMap<>();
        Map<String, String> comments = new LinkedHashMap<>();
        o.forEach((k, v) -> {
            if (k.startsWith("glue.parameter.")) {
                parameters.put(k.substring("glue.parameter.".length()), v);
            } else if (k.startsWith("glue.columncomment.")) {
                comments.put(k.substring("glue.columncomment.".length()), v);
            }
        });
        if (!parameters.isEmpty()) {
            t = t.parameters(parameters);
        }
        if (!comments.isEmpty()) {
            t = t.columnComments(comments);
        }
        return t;
    }

    /** Closes the Glue client the options made, if any (a catalog passed to the fluent builder is its caller's). */
    void close() {
        if (glueClient != null) {
            glueClient.close();
            glueClient = null;
        }
    }
}
