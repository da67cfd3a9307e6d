package io.wrangler.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.MergeResult;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.testkit.MemoryS3;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The key scan keeps the rows that hold an input key for the rewrite up to a bound ({@link MergePlan#matchesKept});
 * past it, a file's rows are looked up again as it is rewritten. Both ways merge alike: the bound lowered so that no
 * file's rows, or only some files', are kept (h-merge6). Isolated: the bound is shared by every merge of the JVM.
 */
@org.junit.jupiter.api.parallel.Isolated
class MatchedRowsBoundTest {
    record Row(String id, long v, String p) {
    }

    private static List<String> mergedWithBound(long bound) {
        MemoryS3 mem = MemoryS3.start();
        S3Client s3 = mem.client();
        String bucket = "lake-bound-" + bound;
        mem.createBucket(bucket);
        String table = "s3://" + bucket + "/t/";
        S3Parquet.write(List.of(new Row("a", 1, "x"), new Row("b", 1, "x"), new Row("a", 2, "x"))).partitionBy("p").mode(WriteMode.APPEND)
                .s3(s3).to(table);
        S3Parquet.write(List.of(new Row("c", 1, "x"), new Row("d", 1, "x"), new Row("c", 3, "x"))).partitionBy("p").mode(WriteMode.APPEND)
                .s3(s3).to(table);
        S3Parquet.write(List.of(new Row("e", 1, "y"), new Row("f", 1, "y"))).partitionBy("p").mode(WriteMode.APPEND).s3(s3).to(table);
        long was = MergePlan.matchesKept;
        MergeResult r;
        try {
            MergePlan.matchesKept = bound;
            r = S3Parquet.merge(List.of(new Row("a", 9, "x"), new Row("d", 9, "x"), new Row("f", 9, "y"), new Row("g", 9, "y")))
                    .on("id").s3(s3).to(table);
        } finally {
            MergePlan.matchesKept = was;
        }
        assertThat(r.rowsUpdated()).isEqualTo(3);
        assertThat(r.rowsInserted()).isEqualTo(1);
        assertThat(r.filesRewritten()).hasSize(3);
        return S3Parquet.read(table).s3(s3).toList(Row.class).stream().map(x -> x.id() + x.v() + x.p()).sorted().toList();
    }

    @Test
    void aMergeMergesAlikeWithTheMatchedRowsKeptForNoFileSomeOrAll() {
        List<String> expected = List.of("a9x", "b1x", "c1x", "c3x", "d9x", "e1y", "f9y", "g9y");
        assertThat(mergedWithBound(0)).isEqualTo(expected); // every file's keys looked up again
        assertThat(mergedWithBound(4)).isEqualTo(expected); // some files' rows kept, others over the bound (the default: every other test)
    }
}
