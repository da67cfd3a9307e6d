package io.wrangler.layout;

import io.wrangler.staging.StagedFile;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wrangler.Compression;
import io.wrangler.WriteMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The manifest is what recovery trusts when the writer is gone: it reads back exactly as written, in every state;
 * manifests of wrangler 0.1 (format 1, written once at the commit point) read as COMMITTED; a newer format is refused
 * (recovery must not guess at a record it cannot read), and fields it does not know are ignored.
 */
class ManifestTest {
    /** A manifest with every field set (the old files only past STARTED), built as the commit builds it. */
    private static Manifest manifest(Manifest.State state) {
        Manifest committed = MANIFEST.committed(List.of("dt", "country"),
                List.of(new Manifest.Partition("dt=2024-01-15/country=RU/", List.of("2024-01-15", "RU"), 10, 1000),
                        new Manifest.Partition("dt=2024-01-15/country=__HIVE_DEFAULT_PARTITION__/", Arrays.asList("2024-01-15", null), 2, 200)),
                List.of(new StagedFile("dt=2024-01-15/country=RU/", "t/_tmp/w/a.parquet", "t/dt=2024-01-15/country=RU/a.parquet",
                        1000, 10, "upload-1", List.of("\"e1\"", "\"e2\""))),
                "{}", new Manifest.Bucketing(List.of("user_id"), 8));
        return state == Manifest.State.STARTED ? committed.in(state)
                : committed.replacing(List.of("t/dt=2024-01-15/country=RU/old.parquet")).in(state);
    }

    /** Started once, so that every manifest of the tests shares its createdAt. */
    private static final Manifest MANIFEST = Manifest.started("20240115T000000Z-0123456789abcdef", "s3://b/t/",
            WriteMode.OVERWRITE_PARTITIONS, null, Compression.ZSTD, new Manifest.Requests("aws:kms", "key-1", null, "123456789012"))
            .cataloged("glue:analytics.orders");

    @Test
    void theFactoriesSetWhatTheyNameAndKeepTheRest() {
        Manifest started = Manifest.started("20240115T000000Z-0123456789abcdef", "s3://b/t/", WriteMode.APPEND, "k-a-0123456789ab",
                Compression.SNAPPY, null);
        assertThat(started.format()).isEqualTo(Manifest.FORMAT);
        assertThat(started.state()).isEqualTo(Manifest.State.STARTED);
        assertThat(started.files()).isEmpty();
        assertThat(started.catalog()).isNull();
        assertThat(started.replaces()).isNull();
        Manifest committed = started.cataloged("glue:db.t").committed(List.of("dt"), List.of(), List.of(), "{}", null);
        assertThat(committed.state()).isEqualTo(Manifest.State.COMMITTED);
        assertThat(committed.catalog()).isEqualTo("glue:db.t");
        assertThat(committed.partitionColumns()).containsExactly("dt");
        assertThat(committed.createdAt()).isEqualTo(started.createdAt());
        assertThat(committed.keyId()).isEqualTo("k-a-0123456789ab");
        assertThat(committed.compression()).isEqualTo(Compression.SNAPPY);
    }

    @Test
    void everyStateReadsBackExactly() throws IOException {
        for (Manifest.State state : Manifest.State.values()) {
            Manifest m = manifest(state);
            assertThat(Manifest.fromJson(m.toJson())).as(state.name()).isEqualTo(m);
        }
    }

    @Test
    void aManifestOfWrangler01ReadsAsCommittedAndKeyedByItsWriteId() throws IOException {
        String json = new String(manifest(Manifest.State.STARTED).toJson(), StandardCharsets.UTF_8)
                .replace("\"format\" : 2", "\"format\" : 1")
                .replace("20240115T000000Z-0123456789abcdef", "k-nightly-0123456789abcdef");
        Manifest m = Manifest.fromJson(json.getBytes(StandardCharsets.UTF_8));
        assertThat(m.state()).isEqualTo(Manifest.State.COMMITTED);
        assertThat(m.keyId()).isEqualTo("k-nightly-0123456789abcdef");
        assertThat(m.replaces()).isNull(); // recovery lists the partitions again
        assertThat(m.files()).isEqualTo(manifest(Manifest.State.STARTED).files());
    }

    @Test
    void aNewerFormatIsRefusedAndUnknownFieldsAreIgnored() throws IOException {
        String json = new String(manifest(Manifest.State.COMMITTED).toJson(), StandardCharsets.UTF_8);
        assertThatThrownBy(() -> Manifest.fromJson(json.replace("\"format\" : 2", "\"format\" : 3").getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IOException.class).hasMessageContaining("manifest format 3").hasMessageContaining("upgrade wrangler");
        Manifest withExtra = Manifest.fromJson(json.replaceFirst("\\{", "{ \"addedLater\" : [1, 2],").getBytes(StandardCharsets.UTF_8));
        assertThat(withExtra).isEqualTo(manifest(Manifest.State.COMMITTED));
    }
}
