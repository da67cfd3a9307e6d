package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every entry point of the public API, called as a newcomer would call it on a misconfigured machine, throws a
 * {@link WranglerException} that says what to set, before any request. Each case runs {@link MisconfiguredMain} in a JVM
 * of its own whose environment the test controls: no AWS variables, no profile files, EC2 metadata off (so nothing
 * leaves the machine), and an endpoint on a closed loopback port as a last guard.
 */
class MisconfigurationTest {

    @Test
    void withoutARegionEveryEntryPointSaysWhatToSet() throws Exception {
        Map<String, String> out = run(true, List.of());
        assertThat(out).containsOnlyKeys("write", "recover", "compact", "read");
        out.forEach((entry, result) -> {
            String verb = entry.equals("recover") ? "recover" : entry;
            assertThat(result).as(entry)
                    .startsWith("InvalidWriteException: Cannot " + verb + " s3://no-such-bucket-wrangler/t/ (step: validate): no S3 client "
                            + "was given and the AWS SDK could not make its default one (")
                    .contains("Set a region (the AWS_REGION environment variable, the aws.region system property or a profile's region in "
                            + "~/.aws/config)")
                    .endsWith("or give a client with .s3(S3Client). Nothing was touched.");
        });
    }

    @Test
    void withoutCredentialsEveryEntryPointThrowsAWranglerException() throws Exception {
        Map<String, String> out = run(true, List.of("-Daws.region=us-east-1"));
        assertThat(out).containsOnlyKeys("write", "recover", "compact", "read");
        out.forEach((entry, result) -> {
            String type = result.substring(0, result.indexOf(':'));
            assertThat(type).as(entry).isIn("InvalidWriteException", "StorageException", "ReadException", "CommitStateUnknownException",
                    "CommitConflictException");
            assertThat(result).as(entry).contains("Unable to load credentials");
        });
    }

    @Test
    void withoutAddOpensAWriteAndACompactionNameTheFlagBeforeAnyRequest() throws Exception {
        Map<String, String> out = run(false, List.of("-Daws.region=us-east-1"));
        for (String entry : List.of("write", "compact")) {
            assertThat(out.get(entry)).as(entry)
                    .startsWith("InvalidWriteException: Cannot " + entry + " s3://no-such-bucket-wrangler/t/ (step: validate): Apache Arrow "
                            + "cannot use direct memory in this JVM (")
                    .contains("Start the JVM with --add-opens=java.base/java.nio=ALL-UNNAMED")
                    .endsWith("Nothing was touched; rerunning without the flag cannot help.");
        }
    }

    /** Runs {@link MisconfiguredMain} with {@code jvmArgs} (and Arrow's --add-opens or not) and a clean environment; its lines by entry point. */
    private static Map<String, String> run(boolean addOpens, List<String> jvmArgs) throws Exception {
        ChildJvm child = ChildJvm.of(MisconfiguredMain.class);
        if (!addOpens) {
            child.withoutAddOpens();
        }
        String output = child.jvmArgs(jvmArgs.toArray(String[]::new))
                .jvmArgs("-Daws.disableEc2Metadata=true", "-Daws.configFile=/nonexistent/config",
                        "-Daws.sharedCredentialsFile=/nonexistent/credentials", "-Daws.endpointUrl=http://127.0.0.1:9")
                .environment(env -> {
                    env.keySet().removeIf(k -> k.startsWith("AWS_"));
                    env.put("AWS_EC2_METADATA_DISABLED", "true");
                }).run(600).output();
        Map<String, String> byEntry = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            int arrow = line.indexOf(" -> ");
            if (arrow > 0 && List.of("write", "recover", "compact", "read").contains(line.substring(0, arrow))) {
                byEntry.put(line.substring(0, arrow), line.substring(arrow + 4));
            }
        }
        assertThat(byEntry).as("the child printed:%n%s", output).isNotEmpty();
        return byEntry;
    }
}
