package io.wrangler;

import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.TableLayout;
import io.wrangler.input.HiveTypes;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableReader;
import io.wrangler.storage.RequestOptions;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;

/**
 * A ReadBuilder is a read of one table, being configured; {@link #open()} lists the table and returns its rows as a
 * stream of Arrow batches.
 *
 * <pre>{@code
 * try (ArrowReader r = S3Parquet.read("s3://bucket/marts/orders/")
 *         .columns("order_id", "amount", "dt")
 *         .filter(PartitionFilter.in("dt", "2024-01-15"))
 *         .open()) {
 *     while (r.loadNextBatch()) {
 *         VectorSchemaRoot batch = r.getVectorSchemaRoot();
 *     }
 * }
 * }</pre>
 *
 * <p>What a read sees: the files listed when it is opened, less those of writes in flight (their manifests under
 * {@code _tmp/} say which): a write is seen whole or not at all, as long as it does not change state between the read's
 * look at {@code _tmp/} and its listing of the files (a reader holds no lease). Whether a committed overwrite shows as
 * before or after is decided once over everything the read covers (the whole table, or every partition the filter
 * admits, one the overwrite emptied included). A file deleted after the listing, or a manifest that cannot be fetched,
 * fails the read with a {@link ReadException}; rerun it. Not thread-safe; each {@code open()} is a new read.
 */
public final class ReadBuilder {
    /**
     * Files decoded at once, each on a thread of its own (batches still come in file order): the machine's cores, at
     * most 4. Each holds its row group and two decoded batches.
     */
    private static final int READ_THREADS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));

    private final String uri;
    private S3Client s3;
    private List<String> columns;
    private PartitionFilter filter = PartitionFilter.all();
    private CatalogTable catalog;
    private BufferAllocator allocator;
    private int batchRows = 65_536;
    private RetryPolicy retry = RetryPolicy.defaults();
    private String expectedBucketOwner;

    ReadBuilder(String uri) {
        this.uri = Objects.requireNonNull(uri, "uri");
    }

    /** The S3 client to use; by default the SDK's default client. */
    public ReadBuilder s3(S3Client client) {
        this.s3 = Objects.requireNonNull(client, "client");
        return this;
    }

    /**
     * Reads only these columns (data or partition columns), in this order; all by default. Only their bytes are fetched.
     * Names are matched case-insensitively, as the table's columns are (Hive, Glue and Athena's rule).
     */
    public ReadBuilder columns(String... names) {
        for (String n : names) {
            Objects.requireNonNull(n, "column");
        }
        if (names.length == 0) {
            throw new IllegalArgumentException("columns() needs at least one column");
        }
        Set<String> seen = new HashSet<>();
        for (String n : names) {
            if (!seen.add(n.toLowerCase(Locale.ROOT))) {
                throw new ReadException(uri, "Cannot read " + uri + ": the column '" + n + "' is selected twice. Select each column "
                        + "once.", null);
            }
        }
        this.columns = List.of(names);
        return this;
    }

    /** Reads only the partitions that pass {@code filter}; nothing of the others is listed or opened. */
    public ReadBuilder filter(PartitionFilter filter) {
        this.filter = Objects.requireNonNull(filter, "filter");
        return this;
    }

    /**
     * Reads the partitions this catalog table registers, each from its Location, with the partition columns typed as the
     * catalog types them, and the data columns in the catalog's order and spelling (then any column only the files hold;
     * a column only the catalog declares reads as nulls). Without a catalog the partitions are the table's Hive folders,
     * their columns' types are inferred from the folder names, and the data columns are the union of the files' (see the
     * README).
     */
    public ReadBuilder catalog(CatalogTable table) {
        this.catalog = Objects.requireNonNull(table, "catalog table");
        return this;
    }

    /** The allocator of the batches; by default one the reader owns and closes with itself. */
    public ReadBuilder allocator(BufferAllocator allocator) {
        this.allocator = Objects.requireNonNull(allocator, "allocator");
        return this;
    }

    /** The most rows a batch holds (65,536 by default). A batch never spans two files. */
    public ReadBuilder batchRows(int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("batchRows must be at least 1, got " + rows);
        }
        this.batchRows = rows;
        return this;
    }

    /**
     * How each of the read's S3 requests (listings, GETs) is retried: the same policy type as a write's and a Glue
     * table's ({@link RetryPolicy#defaults()} unless set). A read changes nothing, so a request that fails after its
     * retries fails the read, and rerunning it is safe.
     */
    public ReadBuilder retryPolicy(RetryPolicy policy) {
        this.retry = Objects.requireNonNull(policy, "retry policy");
        return this;
    }

    /**
     * The account that must own the bucket (S3's {@code x-amz-expected-bucket-owner}): a request to a bucket of another
     * account fails with 403 instead of reading its objects. Null (the default) checks nothing.
     */
    public ReadBuilder expectedBucketOwner(String accountId) {
        this.expectedBucketOwner = accountId;
        return this;
    }

    /**
     * The data columns a catalog declares (its columns less its partition keys), in its order, each typed as the catalog
     * types it, or null where wrangler does not read the type ({@code varchar(10)}).
     */
    static Map<String, Field> dataColumns(TableLayout layout) {
        Set<String> keys = new HashSet<>();
        layout.partitionColumns().forEach(c -> keys.add(c.toLowerCase(Locale.ROOT)));
        Map<String, Field> out = new LinkedHashMap<>();
        layout.types().forEach((name, hive) -> {
            if (!keys.contains(name.toLowerCase(Locale.ROOT))) {
                Field f;
                try {
                    f = hive == null ? null : HiveTypes.parse(name, hive);
                } catch (IllegalArgumentException unknown) {
                    f = null;
                }
                out.put(name, f);
            }
        });
        return out;
    }

    /**
     * Lists the table and reads every file's footer for the schema (the union of the files' columns, or the catalog's);
     * the rows are read batch by batch by the returned reader, which the caller closes.
     *
     * @throws InvalidWriteException the URI is not {@code s3://bucket/prefix}
     * @throws InvalidReadException no object lies under the prefix (no table there), or the filter names a column that is
     *     not a partition column
     * @throws ReadException S3 or the catalog failed (a write's manifest that cannot be fetched or parsed too: retry), a
     *     column is unknown, or the table's folders are not Hive folders
     */
    public ArrowReader open() {
        S3Location location = S3Location.parse(uri, null, "read");
        String table = location.uri();
        S3Client client = s3 != null ? s3 : S3Parquet.defaultClient("read", table);
        Map<String, S3Store> stores = new HashMap<>();
        RequestOptions options = RequestOptions.of(Encryption.none(), null, expectedBucketOwner, retry);
        S3Store store = new S3Store(client, location.bucket(), options);
        stores.put(location.bucket(), store);
        TableFiles.Listing listing;
        Map<String, Field> partitionTypes = new HashMap<>();
        Map<String, Field> catalogColumns = null;
        try {
            if (catalog != null) {
                TableLayout layout;
                try {
                    layout = catalog.layout();
                } catch (CatalogException e) {
                    throw new ReadException(table, "Cannot read " + table + ": " + e.getMessage(), e);
                }
                if (layout == null) {
                    throw new ReadException(table, "Cannot read " + table + " through " + catalog.describe() + ": the catalog has no "
                            + "such table. Read it without catalog(...), or write it with this catalog first.", null);
                }
                listing = new TableFiles(store, location).list(layout, filter,
                        b -> stores.computeIfAbsent(b, k -> new S3Store(client, k, options)));
                catalogColumns = dataColumns(layout);
                for (String c : layout.partitionColumns()) {
                    String hive = layout.types().get(c);
                    try {
                        partitionTypes.put(c, HiveTypes.parse(c, hive));
                    } catch (IllegalArgumentException unknown) {
                        // a type wrangler does not write (varchar(10)): inferred from the values instead
                    }
                }
            } else {
                listing = new TableFiles(store, location).list(filter);
            }
        } catch (NoSuchBucketException e) {
            throw new ReadException(table, "Cannot read " + table + ": the bucket " + location.bucket() + " does not exist (or not in "
                    + "this client's region and endpoint). Check the table's URI.", e);
        } catch (SdkException e) {
            throw new ReadException(table, "Cannot read " + table + ": listing the table failed: " + e.getMessage()
                    + ". Check the credentials and s3:ListBucket, then read again.", e);
        }
        BufferAllocator owned = allocator == null ? new RootAllocator() : null;
        TableReader reader = new TableReader(allocator != null ? allocator : owned, owned, client, options, table, listing,
                partitionTypes, columns, batchRows).threads(READ_THREADS);
        if (catalogColumns != null) {
            reader.catalogColumns(catalogColumns);
        }
        try {
            reader.schema();
        } catch (RuntimeException e) {
            try {
                reader.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return reader;
    }
}
