package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.Compression;
import io.wrangler.WriteMode;
import io.wrangler.catalog.CatalogCommit;
import io.wrangler.catalog.PartitionEntry;
import io.wrangler.catalog.TableDefinition;
import io.wrangler.testkit.GlueFault;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * One owner of retries for Glue: the SDK retries each Glue call as the table's {@link io.wrangler.RetryPolicy} says,
 * and nothing retries on top, whatever retries the caller's client was built with (they used to multiply: 8 of
 * wrangler's x the client's 3). A change is fenced before each of those attempts, and a fence's own failure is passed
 * on as it is, as for S3.
 */
class GlueRetriesTest {
    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final String location = "s3://" + bucket + "/t/";
    /** A client with the SDK's standard retries, 3 attempts, as a user builds one. */
    private final GlueClient threeAttempts = GlueClient.builder().endpointOverride(Lake.glue().endpoint()).region(Region.US_EAST_1)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("wrangler-local", "wrangler-local-secret")))
            .overrideConfiguration(o -> o.retryStrategy(b -> b.maxAttempts(3))).build();

    @AfterEach
    void close() {
        threeAttempts.close();
    }

    private static Field f(String name, ArrowType type) {
        return new Field(name, FieldType.nullable(type), null);
    }

    private TableDefinition definition() {
        return new TableDefinition(location, List.of(f("a", new ArrowType.Int(64, true))), List.of(f("dt", ArrowType.Utf8.INSTANCE)),
                WriteMode.APPEND, Compression.SNAPPY);
    }

    private GlueTable table() {
        return GlueCatalog.of(threeAttempts).table(db, "t").retry(3, Duration.ofMillis(1), Duration.ofMillis(2));
    }

    @Test
    void aReadThatKeepsFailingIsSentThePolicysAttemptsNotTimesTheClientsRetries() {
        int before = Lake.glue().calls("GetTable");
        Lake.glue().failNext("GetTable", 3, GlueFault.THROTTLING);

        assertThatThrownBy(() -> table().columnTypes(location, WriteMode.APPEND)).isInstanceOf(io.wrangler.CatalogException.class)
                .hasMessage("Cannot read the Glue table " + db + ".t for " + location + " (step: validate): Glue answered "
                        + "ThrottlingException (Rate exceeded). Check the IAM permissions (glue:GetDatabase, glue:GetTable) and the client's "
                        + "region; nothing was written.");
        assertThat(Lake.glue().calls("GetTable") - before).as("the policy's 3 attempts, not 3 x the client's 3").isEqualTo(3);
    }

    @Test
    void aChangeThatKeepsFailingIsFencedBeforeEachOfThePolicysAttemptsAndSentOnceEach() {
        table().prepare(definition()).commit(List.of());
        CatalogCommit commit = table().prepare(definition());
        AtomicInteger fences = new AtomicInteger();
        int before = Lake.glue().calls("BatchCreatePartition");
        Lake.glue().failNext("BatchCreatePartition", 3, GlueFault.INTERNAL_SERVICE);

        assertThatThrownBy(() -> commit.commit(List.of(new PartitionEntry(List.of("2024-01-15"), location + "dt=2024-01-15/")),
                fences::incrementAndGet)).isInstanceOf(io.wrangler.CatalogException.class)
                .hasMessage("Cannot register partitions in " + db + ".t for " + location + " (step: catalog): Glue answered "
                        + "InternalServiceException (An internal service error occurred). The data is published and the write's manifest "
                        + "kept: fix the cause and rerun the write, or run S3Parquet.recover with this Glue table.");
        assertThat(Lake.glue().calls("BatchCreatePartition") - before).as("the policy's 3 attempts, each sent once").isEqualTo(3);
        assertThat(fences).as("a fence before each attempt").hasValue(3);
    }

    @Test
    void aFencesOwnTransientFailureIsPassedOnAsItIsNotRetried() {
        table().prepare(definition()).commit(List.of());
        CatalogCommit commit = table().prepare(definition());
        AtomicInteger fences = new AtomicInteger();
        S3Exception slowDown = (S3Exception) S3Exception.builder().statusCode(503).message("Please reduce your request rate.")
                .awsErrorDetails(AwsErrorDetails.builder().errorCode("SlowDown").build()).build();
        int before = Lake.glue().calls("BatchCreatePartition");

        assertThatThrownBy(() -> commit.commit(List.of(new PartitionEntry(List.of("2024-01-15"), location + "dt=2024-01-15/")), () -> {
            fences.incrementAndGet();
            throw slowDown;
        })).isSameAs(slowDown);
        assertThat(fences).hasValue(1);
        assertThat(Lake.glue().calls("BatchCreatePartition") - before).isZero();
    }
}
