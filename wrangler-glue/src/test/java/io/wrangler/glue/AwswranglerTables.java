package io.wrangler.glue;

import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.glue.model.PartitionInput;
import software.amazon.awssdk.services.glue.model.SerDeInfo;
import software.amazon.awssdk.services.glue.model.StorageDescriptor;

/**
 * Tables and partitions registered as awswrangler 3.17.1 registers them (reference/awswrangler-3-behaviour.md): the
 * table with {@code projection.enabled=false} and {@code CrawlerSchemaDeserializerVersion=1.0}, partitions without
 * Parameters, at the unescaped location awswrangler writes them to.
 */
final class AwswranglerTables {
    private AwswranglerTables() {
    }

    static StorageDescriptor storage(String location, List<Column> columns) {
        return StorageDescriptor.builder().columns(columns).location(location).inputFormat(GlueTable.INPUT_FORMAT)
                .outputFormat(GlueTable.OUTPUT_FORMAT).compressed(true).numberOfBuckets(-1).bucketColumns(List.of())
                .serdeInfo(SerDeInfo.builder().serializationLibrary(GlueTable.SERDE).parameters(Map.of("serialization.format", "1")).build())
                .storedAsSubDirectories(false).sortColumns(List.of())
                .parameters(Map.of("CrawlerSchemaDeserializerVersion", "1.0", "classification", "parquet", "compressionType", "snappy",
                        "typeOfData", "file"))
                .build();
    }

    static void create(GlueClient glue, String db, String name, String location, List<Column> columns, List<Column> keys) {
        glue.createTable(b -> b.databaseName(db).tableInput(t -> t.name(name).tableType("EXTERNAL_TABLE").partitionKeys(keys)
                .parameters(Map.of("classification", "parquet", "compressionType", "snappy", "typeOfData", "file", "projection.enabled", "false"))
                .storageDescriptor(storage(location, columns))));
    }

    static void partition(GlueClient glue, String db, String name, List<String> values, String location, List<Column> columns) {
        glue.createPartition(b -> b.databaseName(db).tableName(name)
                .partitionInput(PartitionInput.builder().values(values).storageDescriptor(storage(location, columns)).build()));
    }
}
