package consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.wrangler.S3Parquet;
import io.wrangler.glue.GlueCatalog;
import io.wrangler.testkit.LocalGlue;
import io.wrangler.testkit.LocalS3;
import java.io.File;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** docs/spark.md's "Your own project": a DataFrame written with format("wrangler") to a local S3 and Glue, read back with core and with format("wrangler"). */
class SparkConsumerTest {
    record Sale(long id, String country, long cents) {
    }

    @Test
    void aDataFrameWrittenToALocalEndpointReadsBackThroughGlue() {
        // LocalS3 before Spark: its Tomcat sets the JVM's URL stream handler factory, which fails once Spark has set it.
        try (LocalS3 s3 = LocalS3.start(); LocalGlue glue = LocalGlue.start()) {
            s3.createBucket("lake");
            glue.client().createDatabase(b -> b.databaseInput(d -> d.name("shop")));
            SparkSession spark = SparkSession.builder().master("local[2]").config("spark.ui.enabled", "false")
                    .config("spark.driver.host", "127.0.0.1").getOrCreate();
            try {
                spark.sql("SELECT id, IF(id % 2 = 0, 'DE', 'RU') AS country, id * 100 AS cents FROM range(0, 6)")
                        .write().format("wrangler").mode("append").partitionBy("country")
                        .option("s3.endpoint", s3.endpoint().toString()).option("s3.region", "us-east-1").option("s3.pathStyle", "true")
                        .option("s3.accessKeyId", "local").option("s3.secretAccessKey", "local")
                        .option("s3.chunkedEncoding", "false").option("s3.checksumsWhenRequired", "true")
                        .option("glue.endpoint", glue.endpoint().toString()).option("glue.database", "shop").option("glue.table", "sales")
                        .save("s3://lake/sales/");
                // and back through the data source, by the Glue table: core's reader in the tasks, no Hadoop S3 connector
                List<String> rows = spark.read().format("wrangler")
                        .option("s3.endpoint", s3.endpoint().toString()).option("s3.region", "us-east-1").option("s3.pathStyle", "true")
                        .option("s3.accessKeyId", "local").option("s3.secretAccessKey", "local")
                        .option("s3.chunkedEncoding", "false").option("s3.checksumsWhenRequired", "true")
                        .option("glue.endpoint", glue.endpoint().toString()).option("glue.database", "shop").option("glue.table", "sales")
                        .load().where("country = 'RU'").orderBy("id").collectAsList().stream().map(r -> r.mkString("|")).toList();
                assertEquals(List.of("1|100|RU", "3|300|RU", "5|500|RU"), rows);
            } finally {
                spark.stop();
            }
            List<Sale> back = S3Parquet.read(GlueCatalog.of(glue.client()).table("shop", "sales")).s3(s3.client()).toList(Sale.class);
            back = back.stream().sorted(Comparator.comparingLong(Sale::id)).toList();
            assertEquals(List.of(new Sale(0, "DE", 0), new Sale(1, "RU", 100), new Sale(2, "DE", 200), new Sale(3, "RU", 300),
                    new Sale(4, "DE", 400), new Sale(5, "RU", 500)), back);
        }
        // One SLF4J provider (Spark's Log4j 2): the testkit and the BOM's S3Mock bring no logback beside it.
        List<String> logging = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(p -> p.substring(p.lastIndexOf(File.separatorChar) + 1))
                .filter(j -> j.startsWith("logback-") || j.startsWith("log4j-to-slf4j") || j.startsWith("slf4j-simple")).toList();
        assertEquals(List.of(), logging);
    }
}
