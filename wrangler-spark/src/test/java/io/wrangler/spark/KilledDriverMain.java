package io.wrangler.spark;

import io.wrangler.WriteMode;
import io.wrangler.commit.Step;
import io.wrangler.glue.GlueCatalog;
import java.net.URI;
import org.apache.spark.sql.SparkSession;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;

/**
 * Run by {@link KilledDriverTest} in its own JVM: a Spark driver (local[2]) writes {@link KilledDriverTest#SECOND} with
 * the Glue table as its catalog and, on reaching the given commit step, prints {@code AT <step> <n>} and waits there
 * until it is killed with SIGKILL. Args: S3 endpoint, table URI, mode, step, count, Glue endpoint, Glue table name.
 */
public final class KilledDriverMain {
    private KilledDriverMain() {
    }

    public static void main(String[] args) {
        Step target = Step.valueOf(args[3]);
        int count = Integer.parseInt(args[4]);
        // What the write needs and no more: no UI, no adaptive planning, expressions interpreted instead of compiled by
        // Janino (a driver that lives seconds never earns compiled code back).
        SparkSession spark = SparkSession.builder().master("local[2]").appName("killed-driver").config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1").config("spark.ui.showConsoleProgress", "false")
                .config("spark.sql.adaptive.enabled", "false").config("spark.sql.codegen.wholeStage", "false")
                .config("spark.sql.codegen.factoryMode", "NO_CODEGEN").getOrCreate();
        spark.sparkContext().setLogLevel("ERROR");
        S3Settings s3 = S3Settings.defaults().endpoint(URI.create(args[0])).region("us-east-1").pathStyle(true)
                .staticCredentials("wrangler-local", "wrangler-local-secret", null).chunkedEncoding(false).checksumsWhenRequired(true);
        GlueClient glue = GlueClient.builder().endpointOverride(URI.create(args[5])).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("wrangler-local", "wrangler-local-secret")))
                .build();
        KilledDriverTest.write(SparkParquet.write(spark.sql(KilledDriverTest.SECOND)), WriteMode.valueOf(args[2]))
                .catalog(KilledDriverTest.catalog(GlueCatalog.of(glue), args[6])).s3(s3)
                .hook((step, n) -> {
                    if (step == target && n == count) {
                        System.out.println("AT " + step + " " + n);
                        System.out.flush();
                        try {
                            Thread.sleep(Long.MAX_VALUE);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                })
                .to(args[1]);
        System.out.println("FINISHED without reaching " + target + " " + count);
    }
}
