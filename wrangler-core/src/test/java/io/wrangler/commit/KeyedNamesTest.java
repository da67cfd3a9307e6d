package io.wrangler.commit;

import static org.assertj.core.api.Assertions.assertThat;

import io.wrangler.layout.WriteIds;
import org.junit.jupiter.api.Test;

/** The names of files that record their rows' keys: marked, still giving back their write id, never a key's own by name. */
class KeyedNamesTest {
    private static final String KEYED = WriteIds.keyId("batch-a") + "-0123456789abcdef";
    private static final String PLAIN = "20241115T031500Z-9f3a1c2b7e6d5a40";

    @Test
    void aMarkedFileGivesBackItsWriteIdAndIsNeverTakenForAKeysOwnFile() {
        String compacted = "t/dt=1/part-00000-000-" + PLAIN + "_k.snappy.parquet";
        String rewritten = "t/dt=1/r0-part-00000-000-" + KEYED + "_k_bucket-00003.zstd.parquet";
        String own = "t/dt=1/part-00000-000-" + KEYED + ".snappy.parquet";
        assertThat(WriteIds.ofFile(compacted)).isEqualTo(PLAIN);
        assertThat(WriteIds.ofFile(rewritten)).isEqualTo(KEYED);
        assertThat(WriteIds.marked(compacted)).isTrue();
        assertThat(WriteIds.marked(rewritten)).isTrue();
        assertThat(WriteIds.marked(own)).isFalse();
        assertThat(WriteIds.carriesKey(own, WriteIds.keyId("batch-a"))).isTrue();
        assertThat(WriteIds.carriesKey(rewritten, WriteIds.keyId("batch-a"))).isFalse();
        assertThat(KeyedFiles.keyOf(own)).isEqualTo(WriteIds.keyId("batch-a"));
        assertThat(KeyedFiles.keyOf(rewritten)).isNull();
        assertThat(KeyedFiles.keyOf(compacted)).isNull();
        // A rewrite keeps its file's bucket.
        assertThat(KeyedRewrite.bucketOf(rewritten)).isEqualTo("_bucket-00003");
        assertThat(KeyedRewrite.bucketOf(compacted)).isEmpty();
    }
}
