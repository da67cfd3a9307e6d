package io.wrangler.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.wrangler.CommitMethod;
import io.wrangler.Compression;
import io.wrangler.Encryption;
import io.wrangler.InvalidWriteException;
import io.wrangler.RetryPolicy;
import io.wrangler.WriteMode;
import io.wrangler.WriteOptions;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Every option of {@link WriteOptions.Builder} (found by reflection: a new one fails here until it is classified) reaches
 * a Spark write's WriteOptions, through {@link SparkWriteBuilder#options(WriteOptions)}, through SparkWriteBuilder's
 * setter of the same name, and through the data source's string options ({@link SourceOptions}) those produce; or, for
 * the few a Spark write cannot honour, is refused by both with a message saying so. Never dropped.
 */
class OptionParityTest {
    private static final String URI = "s3://bucket/t/";
    private static final S3Client CLIENT = S3Client.builder().region(Region.US_EAST_1)
            .credentialsProvider(AnonymousCredentialsProvider.create()).build();

    /** A value other than the default for every setter of WriteOptions.Builder (as wrangler-core's OptionParityTest). */
    private static Map<String, Object[]> values() {
        Map<String, Object[]> v = new TreeMap<>();
        v.put("mode", new Object[] {WriteMode.OVERWRITE_PARTITIONS});
        v.put("partitionBy", new Object[] {new String[] {"dt", "country"}});
        v.put("compression", new Object[] {Compression.ZSTD});
        v.put("maxRowsPerFile", new Object[] {40L});
        v.put("targetFileSize", new Object[] {1L << 20});
        v.put("spillDirectory", new Object[] {Path.of("/spill")});
        v.put("commitMethod", new Object[] {CommitMethod.DEFERRED_UPLOADS});
        v.put("preserveNanoseconds", new Object[] {true});
        v.put("timestampsAsInt96", new Object[] {true});
        v.put("lease", new Object[] {false});
        v.put("leaseWait", new Object[] {Duration.ofSeconds(7)}); // whole seconds: the string option is leaseWaitSeconds
        v.put("encryption", new Object[] {Encryption.kms("key-1")});
        v.put("acl", new Object[] {"bucket-owner-full-control"});
        v.put("expectedBucketOwner", new Object[] {"123456789012"});
        v.put("retryPolicy", new Object[] {RetryPolicy.of(3, Duration.ofMillis(5), Duration.ofMillis(50))});
        v.put("concurrency", new Object[] {9});
        v.put("s3", new Object[] {CLIENT});
        v.put("dtype", new Object[] {Map.of("n", "bigint")});
        v.put("bucketBy", new Object[] {List.of("id"), 4});
        v.put("filenamePrefix", new Object[] {"job7-"});
        v.put("rowGroupSize", new Object[] {1L << 20});
        v.put("pageSize", new Object[] {64 * 1024});
        v.put("dictionaryEncoding", new Object[] {Map.of("id", false)});
        v.put("bloomFilters", new Object[] {new String[] {"id"}});
        v.put("bloomFilterFpp", new Object[] {0.05});
        v.put("sortBy", new Object[] {new String[] {"id", "dt"}});
        v.put("fileMetadata", new Object[] {Map.of("source", "crm")});
        v.put("storageClass", new Object[] {"STANDARD_IA"});
        v.put("tags", new Object[] {Map.of("team", "risk")});
        return v;
    }

    /**
     * The options a Spark write refuses: through options(WriteOptions), and as a string option (null: it has none; the
     * executors' S3 clients come from S3Settings, the s3.* options).
     */
    private static final Map<String, String[]> REFUSED = Map.of(
            "s3", new String[] {"Cannot write a DataFrame with these WriteOptions: they hold an S3 client, which cannot reach the executors; "
                    + "leave it out and give the write S3Settings with s3(...).", null, null},
            "spillDirectory", new String[] {"Cannot write a DataFrame with these WriteOptions: they name a spill directory (/spill), but each "
                    + "executor spills into its own temporary directory; leave it out.", "/spill", "Cannot write " + URI + " (step: validate): "
                    + "the option spillDirectory is not supported by wrangler-spark: each executor spills into its own temporary directory. "
                    + "Remove the option."},
            "dtype", new String[] {"Cannot write a DataFrame with these WriteOptions: they hold dtype {n=bigint}, which wrangler-spark does not "
                    + "support yet; cast the columns in Spark and leave it out.", "n:bigint", "Cannot write " + URI + " (step: validate): the "
                    + "option dtype is not supported by wrangler-spark yet. Cast the columns in Spark before writing (the Glue types follow "
                    + "the DataFrame's), or remove the option."},
            "timestampsAsInt96", new String[] {"Cannot write a DataFrame with these WriteOptions: they ask for timestampsAsInt96, which "
                    + "wrangler-spark does not write; leave it out.", "true", "Cannot write " + URI + " (step: validate): the option "
                    + "timestampsAsInt96 is not supported by wrangler-spark: it writes timestamps as INT64 microseconds. Remove the option."});

    /** Reachable through options(WriteOptions) and the string options, without a setter of their own on SparkWriteBuilder. */
    private static final Set<String> NO_SETTER = Set.of("preserveNanoseconds"); // Spark's timestamps hold microseconds

    private static Map<String, Method> setters() {
        return Arrays.stream(WriteOptions.Builder.class.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()) && !m.getName().equals("build"))
                .collect(Collectors.toMap(Method::getName, m -> m, (a, b) -> a, TreeMap::new));
    }

    /** The WriteOptions the driver of the Spark write makes of what {@code b} hands the data source. */
    private static WriteOptions sparkWriteOptions(SparkWriteBuilder b) {
        SourceOptions o = new SourceOptions(URI, b.sourceOptions());
        o.checkUnsupported();
        return o.writeOptions(o.writeMode(), b.partitionColumns(), o.bucketBy(), o.buckets());
    }

    @Test
    void absentOptionsTakeTheDefaultsOfWriteOptions() {
        // the string options declare no default of their own: each absent one is WriteOptions.builder()'s
        SourceOptions none = new SourceOptions(URI, Map.of());
        assertThat(none.writeOptions(WriteMode.APPEND, List.of(), List.of(), 0)).isEqualTo(WriteOptions.defaults());
        assertThat(none.concurrency()).isEqualTo(WriteOptions.defaults().concurrency());
        assertThat(none.leaseWait()).isEqualTo(WriteOptions.defaults().leaseWait());
        assertThat(none.commitMethod()).isEqualTo(WriteOptions.defaults().commitMethod());
        assertThat(sparkWriteOptions(SparkParquet.write(SparkLake.spark().emptyDataFrame()))).isEqualTo(WriteOptions.defaults());
    }

    @Test
    void everyOptionReachesTheSparkWriteOrIsRefusedNeverDropped() throws ReflectiveOperationException {
        assertThat(values().keySet()).isEqualTo(setters().keySet());
        Dataset<Row> df = SparkLake.spark().emptyDataFrame();
        SoftAssertions soft = new SoftAssertions();
        for (Map.Entry<String, Method> e : setters().entrySet()) {
            String name = e.getKey();
            Method setter = e.getValue();
            WriteOptions.Builder eb = WriteOptions.builder();
            setter.invoke(eb, values().get(name));
            WriteOptions expected = eb.build();
            String[] refused = REFUSED.get(name);
            if (refused != null) {
                soft.assertThat(catchThrowable(() -> SparkParquet.write(df).options(expected))).as(name)
                        .isInstanceOf(IllegalArgumentException.class).hasMessage(refused[0]);
                if (refused[1] != null) {
                    SourceOptions o = new SourceOptions(URI, Map.of(name, refused[1]));
                    soft.assertThat(catchThrowable(o::checkUnsupported)).as(name + " as a string option")
                            .isInstanceOf(InvalidWriteException.class).hasMessage(refused[2]);
                }
                continue;
            }
            soft.assertThat(sparkWriteOptions(SparkParquet.write(df).options(expected))).as(name + " through options(WriteOptions)")
                    .isEqualTo(expected);
            if (NO_SETTER.contains(name)) {
                continue;
            }
            Method same;
            try {
                same = SparkWriteBuilder.class.getMethod(name, setter.getParameterTypes());
            } catch (NoSuchMethodException missing) {
                soft.fail("SparkWriteBuilder has no " + name + Arrays.toString(setter.getParameterTypes()));
                continue;
            }
            SparkWriteBuilder b = SparkParquet.write(df);
            same.invoke(b, values().get(name));
            soft.assertThat(sparkWriteOptions(b)).as(name + " through SparkWriteBuilder." + name).isEqualTo(expected);
        }
        // every option at once, as a job shares them
        WriteOptions all = WriteOptions.builder().mode(WriteMode.OVERWRITE_PARTITIONS).partitionBy("dt").compression(Compression.GZIP)
                .maxRowsPerFile(40).targetFileSize(1L << 20).commitMethod(CommitMethod.DEFERRED_UPLOADS).preserveNanoseconds(true)
                .lease(false).leaseWait(Duration.ofSeconds(7)).encryption(Encryption.sseS3()).acl("private").expectedBucketOwner("1")
                .retryPolicy(RetryPolicy.of(2, Duration.ofMillis(3), Duration.ofMillis(4))).concurrency(3).bucketBy(List.of("id"), 4)
                .filenamePrefix("p-").rowGroupSize(1L << 20).pageSize(8192).dictionaryEncoding(Map.of("id", true, "n", false))
                .bloomFilters("id", "n").bloomFilterFpp(0.001).sortBy("n", "id").fileMetadata(Map.of("a", "1", "b", "x=y,z"))
                .storageClass("INTELLIGENT_TIERING").tags(Map.of("team", "risk", "cost center", "a+b=c")).build();
        soft.assertThat(sparkWriteOptions(SparkParquet.write(df).options(all))).as("every option at once").isEqualTo(all);
        soft.assertAll();
    }
}
