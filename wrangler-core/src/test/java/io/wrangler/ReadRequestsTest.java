package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;

/**
 * A partition filter keeps a read out of every other partition: it lists and GETs nothing there; a read of files small
 * enough fetches each with one GET.
 */
class ReadRequestsTest {
    /** Every GET (its key) and listing (prefix, delimiter) a client sends. */
    static final class Requests implements ExecutionInterceptor {
        final List<String> gets = Collections.synchronizedList(new ArrayList<>());
        final List<String> lists = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
            if (context.request() instanceof GetObjectRequest g) {
                gets.add(g.key());
            } else if (context.request() instanceof ListObjectsV2Request l) {
                lists.add(l.prefix() + (l.delimiter() == null ? "" : " (delimiter " + l.delimiter() + ")"));
            }
        }
    }

    @Test
    void filterOnLeadingColumnsListsAndOpensOnlyItsPartitions() throws Exception {
        String bucket = TestLake.bucket();
        List<LocalDate> days = List.of(LocalDate.of(2024, 1, 15), LocalDate.of(2024, 1, 16), LocalDate.of(2024, 1, 17));
        for (int run = 0; run < 2; run++) {
            S3Parquet.write(Orders.orders("r" + run, days, List.of("RU", "DE", "R"), 5)).partitionBy("dt", "country")
                    .s3(TestLake.s3().client()).to("s3://" + bucket + "/orders/");
        }
        Requests seen = new Requests();
        S3Client counting = TestLake.s3().newClient(b -> b.overrideConfiguration(c -> c.addExecutionInterceptor(seen)));
        Object expected = TestLake.query(bucket, "orders/", "SELECT sum(\"amountCents\")::BIGINT FROM t WHERE dt = DATE '2024-01-16' AND country = 'R'").get(0).get(0);

        long rows = 0;
        long amount = 0;
        try (ArrowReader r = S3Parquet.read("s3://" + bucket + "/orders/").s3(counting)
                .filter(PartitionFilter.in("dt", "2024-01-16").and(PartitionFilter.in("country", "R"))).open()) {
            while (r.loadNextBatch()) {
                var b = r.getVectorSchemaRoot();
                var v = (org.apache.arrow.vector.BigIntVector) b.getVector("amountCents");
                for (int i = 0; i < b.getRowCount(); i++) {
                    amount += v.get(i);
                    assertThat(b.getVector("country").getObject(i).toString()).isEqualTo("R");
                }
                rows += b.getRowCount();
            }
        }
        assertThat(rows).isEqualTo(10);
        assertThat(amount).isEqualTo(expected);
        // One GET a file: each file's last 64 KiB, which hold the whole of these small files; the first one's serves both
        // the schema and its decoding.
        assertThat(seen.gets).hasSize(2).doesNotHaveDuplicates().allMatch(k -> k.startsWith("orders/dt=2024-01-16/country=R/"));
        // The staging area's folders (writes in flight), one probe per level to learn the column names (the first entries only:
        // never the whole level), then the one partition's own folder ("country=R/", never "country=RU/").
        assertThat(seen.lists).containsExactly("orders/_tmp/ (delimiter /)", "orders/ (delimiter /)", "orders/dt=2024-01-16/ (delimiter /)",
                "orders/dt=2024-01-16/country=R/ (delimiter /)", "orders/dt=2024-01-16/country=R/");

        seen.gets.clear();
        seen.lists.clear();
        try (ArrowReader r = S3Parquet.read("s3://" + bucket + "/orders/").s3(counting)
                .filter(PartitionFilter.where(p -> p.get("country").equals("DE") && p.get("dt").equals("2024-01-15"))).open()) {
            rows = 0;
            while (r.loadNextBatch()) {
                rows += r.getVectorSchemaRoot().getRowCount();
            }
        }
        assertThat(rows).isEqualTo(10);
        assertThat(seen.gets).isNotEmpty().allMatch(k -> k.startsWith("orders/dt=2024-01-15/country=DE/"));
        assertThat(seen.lists.stream().filter(l -> !l.endsWith("(delimiter /)")))
                .containsExactly("orders/dt=2024-01-15/country=DE/");
        assertThat(seen.lists).startsWith("orders/_tmp/ (delimiter /)");
    }

    record Wide(int part, String text) {
    }

    /**
     * A read of a table of small files (more than the 16 KiB of a footer's GET, more files than are fetched ahead) sends
     * one GET a file: the whole file, fetched for its footer (the read's schema), is decoded from the same bytes. Before,
     * the files past the first eight took two: the footer, then the rest.
     */
    @Test
    void smallFilesAreFetchedWithOneGetEach() throws Exception {
        String bucket = TestLake.bucket();
        Random random = new Random(34);
        List<Wide> rows = new ArrayList<>();
        for (int i = 0; i < 12 * 600; i++) {
            StringBuilder text = new StringBuilder();
            for (int c = 0; c < 48; c++) {
                text.append((char) ('!' + random.nextInt(90)));
            }
            rows.add(new Wide(i % 12, text.toString()));
        }
        S3Parquet.write(rows).partitionBy("part").s3(TestLake.s3().client()).to("s3://" + bucket + "/wide/");
        assertThat(TestLake.s3().list(bucket, "wide/").entrySet().stream().filter(e -> e.getKey().endsWith(".parquet")))
                .hasSize(12).allMatch(e -> e.getValue() > 24 * 1024, "files of more than 24 KiB");
        List<String> gets = new CopyOnWriteArrayList<>();
        S3Client counting = TestLake.recordingGets(gets);
        List<String> texts = new ArrayList<>();
        try (ArrowReader r = S3Parquet.read("s3://" + bucket + "/wide/").s3(counting).open()) {
            while (r.loadNextBatch()) {
                VarCharVector v = (VarCharVector) r.getVectorSchemaRoot().getVector("text");
                for (int i = 0; i < r.getVectorSchemaRoot().getRowCount(); i++) {
                    texts.add(v.getObject(i).toString());
                }
            }
        }
        List<Object> expected = TestLake.query(bucket, "wide/", "SELECT text FROM t ORDER BY text").stream().map(row -> row.get(0)).toList();
        Collections.sort(texts);
        assertThat(texts).hasSize(rows.size()).isEqualTo(expected);
        assertThat(gets).hasSize(12).doesNotHaveDuplicates().allMatch(k -> k.startsWith("wide/part=") && k.endsWith(".parquet"));
    }
}
