package io.wrangler.glue;

import io.wrangler.CatalogException;
import io.wrangler.RetryPolicy;
import io.wrangler.WriteStep;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.catalog.SdkRetries;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.BatchCreatePartitionResponse;
import software.amazon.awssdk.services.glue.model.BatchDeletePartitionResponse;
import software.amazon.awssdk.services.glue.model.EntityNotFoundException;
import software.amazon.awssdk.services.glue.model.ErrorDetail;
import software.amazon.awssdk.services.glue.model.PartitionError;
import software.amazon.awssdk.services.glue.model.PartitionInput;
import software.amazon.awssdk.services.glue.model.PartitionValueList;
import software.amazon.awssdk.services.glue.model.StorageDescriptor;
import software.amazon.awssdk.services.glue.model.Table;

/**
 * The catalog changes of register, repair and drop table on one Glue table, outside a write: partitions added with the
 * table's own storage definition (BatchCreatePartition, at most 100 a call), partitions removed (BatchDeletePartition, at
 * most 25 a call), the table deleted (DeleteTable). Each call is fenced right before every attempt and retried with the
 * table's strategy ({@link SdkRetries#fenced}), as a write's catalog step is; per-entry errors are read, an entry that
 * already is as wanted (registered, or gone) counting as done, so every operation is idempotent.
 */
final class GlueTableOps {
    static final int MAX_CREATE = 100;
    static final int MAX_DELETE = 25;

    private final GlueClient glue;
    private final String catalogId;
    private final String database;
    private final String name;
    private final RetryPolicy retry;

    GlueTableOps(GlueClient glue, String catalogId, String database, String name, RetryPolicy retry) {
        this.glue = glue;
        this.catalogId = catalogId;
        this.database = database;
        this.name = name;
        this.retry = retry;
    }

    private String qualified() {
        return database + "." + name;
    }

    void addPartitions(List<PartitionEntry> partitions, Runnable fence) {
        if (partitions.isEmpty()) {
            return;
        }
        Table t = call("read the Glue table " + qualified(), () -> glue.getTable(b -> b.overrideConfiguration(SdkRetries.override(Retry.strategy(retry)))
                .catalogId(catalogId).databaseName(database).name(name)).table());
        StorageDescriptor sd = t.storageDescriptor();
        List<PartitionInput> inputs = new ArrayList<>();
        for (PartitionEntry e : partitions) {
            StorageDescriptor at = sd.toBuilder().location(e.location()).build();
            inputs.add(PartitionInput.builder().values(glueValues(e)).storageDescriptor(at).parameters(Map.of()).build());
        }
        for (int from = 0; from < inputs.size(); from += MAX_CREATE) {
            List<PartitionInput> chunk = inputs.subList(from, Math.min(inputs.size(), from + MAX_CREATE));
            BatchCreatePartitionResponse r = change(fence, "register partitions in " + qualified(), () -> glue.batchCreatePartition(b -> b
                    .overrideConfiguration(SdkRetries.once()).catalogId(catalogId).databaseName(database).tableName(name).partitionInputList(chunk)));
            for (PartitionError e : r.errors()) {
                if (!"AlreadyExistsException".equals(code(e.errorDetail()))) {
                    throw partitionError("register", e.partitionValues(), e.errorDetail());
                }
            }
        }
    }

    void removePartitions(List<PartitionEntry> partitions, Runnable fence) {
        List<PartitionValueList> remove = partitions.stream().map(e -> PartitionValueList.builder().values(glueValues(e)).build()).toList();
        for (int from = 0; from < remove.size(); from += MAX_DELETE) {
            List<PartitionValueList> chunk = remove.subList(from, Math.min(remove.size(), from + MAX_DELETE));
            BatchDeletePartitionResponse r = change(fence, "remove partitions of " + qualified(), () -> glue.batchDeletePartition(b -> b
                    .overrideConfiguration(SdkRetries.once()).catalogId(catalogId).databaseName(database).tableName(name).partitionsToDelete(chunk)));
            for (PartitionError e : r.errors()) {
                if (!"EntityNotFoundException".equals(code(e.errorDetail()))) {
                    throw partitionError("remove", e.partitionValues(), e.errorDetail());
                }
            }
        }
    }

    boolean dropTable(Runnable fence) {
        try {
            change(fence, "delete the Glue table " + qualified(), () -> glue.deleteTable(b -> b.overrideConfiguration(SdkRetries.once())
                    .catalogId(catalogId).databaseName(database).name(name)));
            return true;
        } catch (CatalogException e) {
            if (e.getCause() instanceof EntityNotFoundException) {
                return false; // gone already (a rerun, or our own call whose answer was lost)
            }
            throw e;
        }
    }

    private static List<String> glueValues(PartitionEntry e) {
        return e.values().stream().map(v -> v == null ? PartitionEntry.DEFAULT_PARTITION : v).toList();
    }

    private static String code(ErrorDetail d) {
        return d == null ? null : d.errorCode();
    }

    private CatalogException partitionError(String verb, List<String> values, ErrorDetail d) {
        return new CatalogException(null, WriteStep.CATALOG, "Cannot " + verb + " the partition " + values + " of the Glue table " + qualified()
                + ": Glue answered " + code(d) + " (" + (d == null ? "" : d.errorMessage()) + ")", null);
    }

    /** A call that changes the catalog, fenced right before every attempt (see GlueTable's catalog step). */
    private <T> T change(Runnable fence, String doing, Supplier<T> call) {
        Runnable fenced = () -> {
            try {
                fence.run();
            } catch (SdkException e) {
                throw new FenceFailed(e);
            }
        };
        try {
            return call(doing, () -> SdkRetries.fenced(Retry.strategy(retry), fenced, call));
        } catch (FenceFailed e) {
            throw e.cause;
        }
    }

    /** Carries a fence's own S3 failure out of a Glue call's failure handling. */
    private static final class FenceFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient SdkException cause;

        FenceFailed(SdkException cause) {
            super(null, cause, false, false);
            this.cause = cause;
        }
    }

    private <T> T call(String doing, Supplier<T> call) {
        try {
            return call.get();
        } catch (SdkException e) {
            throw new CatalogException(null, WriteStep.CATALOG, "Cannot " + doing + ": " + GlueTable.glueError(e), e);
        }
    }
}
