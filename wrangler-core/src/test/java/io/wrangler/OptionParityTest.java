package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Every option of {@link WriteOptions} (found by reflection, so that a new one fails here until it is given a value) is
 * reachable through {@link WriteBuilder}: its setter of the same name and {@link WriteBuilder#options(java.util.function.Consumer)}
 * each give the write exactly the options {@link WriteOptions.Builder} makes. wrangler-spark's OptionParityTest does the
 * same for SparkWriteBuilder and the data source's string options.
 */
class OptionParityTest {
    private static final S3Client CLIENT = S3Client.builder().region(Region.US_EAST_1)
            .credentialsProvider(AnonymousCredentialsProvider.create()).build();

    /** A value other than the default for every setter of WriteOptions.Builder, by setter name. */
    static Map<String, Object[]> values() {
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
        v.put("leaseWait", new Object[] {Duration.ofSeconds(7)});
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

    /** The setters of WriteOptions.Builder, by name. */
    static Map<String, Method> setters() {
        return Arrays.stream(WriteOptions.Builder.class.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()) && !m.getName().equals("build"))
                .collect(Collectors.toMap(Method::getName, m -> m, (a, b) -> {
                    throw new AssertionError("WriteOptions.Builder has two setters named " + a.getName());
                }, TreeMap::new));
    }

    /** The options WriteOptions holds: its public getters. */
    static Set<String> options() {
        return Arrays.stream(WriteOptions.class.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()) && m.getParameterCount() == 0)
                .map(Method::getName).filter(n -> !Set.of("toBuilder", "toString", "hashCode").contains(n))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The options {@code setter} set to its value in {@link #values()}. */
    static WriteOptions expected(String setter) throws ReflectiveOperationException {
        WriteOptions.Builder b = WriteOptions.builder();
        setters().get(setter).invoke(b, values().get(setter));
        return b.build();
    }

    @Test
    void everyOptionHasASetterAndATestValueOtherThanItsDefault() throws ReflectiveOperationException {
        // buckets is set with bucketBy, as awswrangler's bucketing_info=(columns, n)
        Set<String> setOptions = new TreeSet<>(setters().keySet());
        setOptions.add("buckets");
        assertThat(options()).isEqualTo(setOptions);
        assertThat(values().keySet()).isEqualTo(setters().keySet());
        for (String setter : setters().keySet()) {
            assertThat(expected(setter)).as(setter).isNotEqualTo(WriteOptions.defaults());
        }
    }

    @Test
    void aWriteGivenNoOptionTakesEveryDefaultFromWriteOptionsAndTheEngineItsThreads() {
        assertThat(S3Parquet.write(List.of()).writeOptions()).isEqualTo(WriteOptions.defaults()).isEqualTo(WriteOptions.builder().build());
        assertThat(io.wrangler.commit.WriteSpec.Tuning.defaults().threads()).isEqualTo(WriteOptions.defaults().concurrency());
    }

    @Test
    void everyOptionReachesTheWriteThroughItsWriteBuilderSetterAndThroughOptionsConsumer() throws ReflectiveOperationException {
        SoftAssertions soft = new SoftAssertions();
        for (Map.Entry<String, Method> e : setters().entrySet()) {
            String name = e.getKey();
            Method setter = e.getValue();
            WriteOptions expected = expected(name);

            WriteBuilder bySetter = S3Parquet.write(List.of());
            Method same;
            try {
                same = WriteBuilder.class.getMethod(name, setter.getParameterTypes());
            } catch (NoSuchMethodException missing) {
                soft.fail("WriteBuilder has no " + name + Arrays.toString(setter.getParameterTypes()));
                continue;
            }
            same.invoke(bySetter, values().get(name));
            soft.assertThat(bySetter.writeOptions()).as(name + " through WriteBuilder." + name).isEqualTo(expected);

            WriteBuilder byConsumer = S3Parquet.write(List.of()).options(o -> {
                try {
                    setter.invoke(o, values().get(name));
                } catch (ReflectiveOperationException x) {
                    throw new AssertionError(x);
                }
            });
            soft.assertThat(byConsumer.writeOptions()).as(name + " through WriteBuilder.options(Consumer)").isEqualTo(expected);

            WriteBuilder shared = S3Parquet.write(List.of()).options(expected);
            soft.assertThat(shared.writeOptions()).as(name + " through WriteBuilder.options(WriteOptions)").isEqualTo(expected);
        }
        soft.assertAll();
    }
}
