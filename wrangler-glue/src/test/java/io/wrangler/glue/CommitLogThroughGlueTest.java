package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.wrangler.S3Parquet;
import io.wrangler.WriteResult;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A write through a catalog sends its commit log entry after its catalog step, not beside the publish: it still records
 * the ETag S3 answered for every file the publish put in place, and an incremental read through the catalog carries it.
 */
class CommitLogThroughGlueTest {
    private final String bucket = Lake.fresh();
    private final String db = Lake.db(bucket);
    private final GlueClient glue = Lake.glue().client();
    private final S3Client s3 = Lake.s3().client();
    private final String table = "s3://" + bucket + "/events/";

    record Event(long id, String kind, String dt) {
    }

    /** The newest log entry: every file it adds records the ETag its object has (HEAD). */
    private void lastEntryRecordsEveryETag(String what) throws IOException {
        List<S3Object> log = s3.listObjectsV2(b -> b.bucket(bucket).prefix("events/_wrangler/log/")).contents();
        String last = log.get(log.size() - 1).key();
        JsonNode entry = new ObjectMapper().readTree(s3.getObjectAsBytes(b -> b.bucket(bucket).key(last)).asByteArray());
        assertThat(entry.get("added")).as(what).isNotEmpty();
        for (JsonNode a : entry.get("added")) {
            String key = a.get("key").asText();
            assertThat(a.get("eTag")).as(what + ": " + key + " in " + entry).isNotNull();
            assertThat(a.get("eTag").asText()).as(what + ": " + key).isEqualTo(s3.headObject(b -> b.bucket(bucket).key(key)).eTag());
        }
    }

    @Test
    void aWriteAndAMergeThroughGlueRecordTheETagOfEveryFileTheyAdd() throws IOException {
        GlueTable events = GlueCatalog.of(glue).table(db, "events").createDatabase(true);
        WriteResult first = S3Parquet.write(List.of(new Event(1, "a", "d1"), new Event(2, "a", "d2"))).partitionBy("dt")
                .catalog(events).s3(s3).to(table);
        lastEntryRecordsEveryETag("a write through Glue");
        S3Parquet.write(List.of(new Event(3, "a", "d3"))).partitionBy("dt").catalog(events).s3(s3).to(table);
        lastEntryRecordsEveryETag("an append through Glue");
        assertThat(S3Parquet.read(events).s3(s3).committedAfter(first.mark()).toList(Event.class)).containsExactly(new Event(3, "a", "d3"));
        S3Parquet.merge(List.of(new Event(1, "b", "d1"), new Event(4, "new", "d4"))).on("id").catalog(events).s3(s3).to(table);
        lastEntryRecordsEveryETag("a merge through Glue");
    }
}
