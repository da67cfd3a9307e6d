package io.wrangler.spark;

import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * ShadedJarIT's child: a Spark job on the class path a cluster gives it (Spark's own Arrow and parquet-java, wrangler-spark's
 * shaded jar), writing through SparkParquet to the parent's LocalS3, then reading the table back with Spark's own Parquet
 * reader, and through the wrangler data source (core's reader, relocated). Prints where Spark's Arrow and parquet-java come
 * from, the result, every row read, whether a Hadoop S3 connector is on the class path, and the rows the data source read.
 *
 * <p>Arguments: endpoint, bucket.
 */
public final class ShadedWriteMain {
    private ShadedWriteMain() {
    }

    public static void main(String[] args) throws Exception {
        String bucket = args[1];
        S3Settings s3 = S3Settings.defaults().endpoint(URI.create(args[0])).region("us-east-1").pathStyle(true)
                .staticCredentials("wrangler-local", "wrangler-local-secret", null).chunkedEncoding(false).checksumsWhenRequired(true);
        SparkSession spark = SparkSession.builder().master("local[2]").appName("shaded").config("spark.ui.enabled", "false")
                .config("spark.sql.session.timeZone", "UTC").config("spark.driver.host", "127.0.0.1").getOrCreate();
        spark.sparkContext().setLogLevel("ERROR");
        System.out.println("ARROW " + org.apache.arrow.vector.VectorSchemaRoot.class.getProtectionDomain().getCodeSource().getLocation());
        System.out.println("PARQUET " + org.apache.parquet.hadoop.ParquetFileReader.class.getProtectionDomain().getCodeSource().getLocation());
        WriteResult r = SparkParquet.write(spark.sql("SELECT id, CAST(id * 1.5 AS DECIMAL(10,2)) AS amount, "
                        + "TIMESTAMP'2026-10-01 12:00:00' + make_interval(0, 0, 0, 0, 0, 0, id) AS ts, array(id, id + 1) AS pair, "
                        + "CAST(id % 2 AS STRING) AS part FROM range(0, 6, 1, 3)"))
                .partitionBy("part").mode(WriteMode.OVERWRITE_PARTITIONS).s3(s3).to("s3://" + bucket + "/t/");
        System.out.println("RESULT rows=" + r.rows() + " partitions=" + r.partitions().size());
        Path dir = Files.createTempDirectory("shaded-read");
        S3Client client = s3.client();
        for (S3Object o : client.listObjectsV2Paginator(b -> b.bucket(bucket).prefix("t/")).contents()) {
            Path f = dir.resolve(o.key());
            Files.createDirectories(f.getParent());
            Files.write(f, client.getObjectAsBytes(b -> b.bucket(bucket).key(o.key())).asByteArray());
        }
        for (Row row : spark.read().parquet(dir.resolve("t").toString()).orderBy("id")
                .selectExpr("id", "CAST(amount AS STRING)", "CAST(ts AS STRING)", "to_json(pair)", "part").collectAsList()) {
            System.out.println("ROW " + row.mkString("|"));
        }
        // the same table through the wrangler data source: core's reader in each task, no Hadoop S3 connector on this class path
        System.out.println("S3A " + (ShadedWriteMain.class.getClassLoader().getResource("org/apache/hadoop/fs/s3a/S3AFileSystem.class") != null));
        for (Row row : spark.read().format("wrangler").option("s3.endpoint", args[0]).option("s3.region", "us-east-1")
                .option("s3.pathStyle", "true").option("s3.accessKeyId", "wrangler-local").option("s3.secretAccessKey", "wrangler-local-secret")
                .option("s3.chunkedEncoding", "false").option("s3.checksumsWhenRequired", "true").load("s3://" + bucket + "/t/")
                .where("part = '1' OR id < 3").orderBy("id")
                .selectExpr("id", "CAST(amount AS STRING)", "CAST(ts AS STRING)", "to_json(pair)", "part").collectAsList()) {
            System.out.println("READ " + row.mkString("|"));
        }
        spark.stop();
    }
}
