package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The write and read paths run on wrangler-core's runtime class path, which holds no Hadoop class. */
class WritesWithoutHadoopTest {
    @Test
    void writesAndReadsEveryCodecWithNoHadoopClassOnTheClassPath() throws Exception {
        assertThat(ChildJvm.runtimeClassPath()).doesNotContain("hadoop-client").doesNotContain("hadoop-common");
        String bucket = TestLake.bucket();
        String output = ChildJvm.of(NoHadoopMain.class, TestLake.s3().endpoint().toString(), bucket).run(600).succeeded().output();
        assertThat(output).contains("written without hadoop");

        assertThat(TestLake.query(bucket, "nohadoop/", "SELECT country, count(*), count(DISTINCT split_part(\"orderId\", '-', 1)) FROM t GROUP BY ALL ORDER BY ALL"))
                .containsExactly(List.of("DE", 50L, 5L), List.of("RU", 50L, 5L));
        Object sum = TestLake.query(bucket, "nohadoop/", "SELECT sum(\"amountCents\")::BIGINT FROM t").get(0).get(0);
        assertThat(output).contains("read without hadoop: 100 rows, amountCents " + sum);
    }
}
