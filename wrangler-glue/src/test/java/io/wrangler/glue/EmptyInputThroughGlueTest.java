package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Column;
import software.amazon.awssdk.services.glue.model.Table;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A write of no rows into a partitioned table that does not exist yet, through Glue: the table is registered with the
 * input's columns and partition keys and no partition, no data file is written, and a read through the catalog answers
 * an empty table with its columns. A second write of no rows changes nothing.
 */
class EmptyInputThroughGlueTest {
    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final String table = "s3://" + bucket + "/orders/";
    private final GlueClient glue = Lake.glue().client();
    private final S3Client s3 = Lake.s3().client();

    private WriteResult writeEmpty() {
        Schema schema = new Schema(List.of(new Field("orderId", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("amountCents", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("dt", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
            root.setRowCount(0);
            return S3Parquet.write(root).partitionBy("dt").mode(WriteMode.OVERWRITE_PARTITIONS)
                    .catalog(GlueCatalog.of(glue).table(db, "orders")).s3(s3).to(table);
        }
    }

    @Test
    void noRowsIntoANewPartitionedTableRegisterItEmptyWithItsColumns() throws Exception {
        WriteResult r = writeEmpty();

        assertThat(r.emptyInput()).isTrue();
        assertThat(r.paths()).isEmpty();
        assertThat(Lake.list(bucket, "orders/")).isEmpty();
        Table t = glue.getTable(b -> b.databaseName(db).name("orders")).table();
        assertThat(t.storageDescriptor().columns()).extracting(Column::name, Column::type)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("orderid", "string"),
                        org.assertj.core.groups.Tuple.tuple("amountcents", "bigint"));
        assertThat(t.partitionKeys()).extracting(Column::name).containsExactly("dt");
        assertThat(glue.getPartitions(b -> b.databaseName(db).tableName("orders")).partitions()).isEmpty();
        try (ArrowReader reader = S3Parquet.read(table).catalog(GlueCatalog.of(glue).table(db, "orders")).s3(s3).open()) {
            assertThat(reader.getVectorSchemaRoot().getSchema().getFields()).extracting(Field::getName)
                    .containsExactly("orderid", "amountcents", "dt");
            long rows = 0;
            while (reader.loadNextBatch()) {
                rows += reader.getVectorSchemaRoot().getRowCount();
            }
            assertThat(rows).isZero();
        }

        String version = glue.getTable(b -> b.databaseName(db).name("orders")).table().versionId();
        WriteResult again = writeEmpty();
        assertThat(again.emptyInput()).isTrue();
        assertThat(glue.getTable(b -> b.databaseName(db).name("orders")).table().versionId()).isEqualTo(version);
        assertThat(Lake.list(bucket, "orders/")).isEmpty();
    }
}
