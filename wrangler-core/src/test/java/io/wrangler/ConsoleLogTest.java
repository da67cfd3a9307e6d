package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * wrangler's INFO lines reach the console by default in a program that embeds the testkit's LocalS3: a child JVM started
 * with no logging flag or configuration file (as a user's program, an example or JShell is) prints the lease wait.
 */
class ConsoleLogTest {
    @Test
    void aLeaseWaitIsPrintedOnTheConsoleWithNoLoggingFlag() throws IOException, InterruptedException {
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), LeaseWaitMain.class.getName())
                .redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).as("the child JVM ends").isTrue();
        assertThat(out).as("the child's console").contains("REFUSED", "DONE").doesNotContain("NOT REFUSED");
        assertThat(out).as("the child's console").containsPattern("INFO: .* waits for the lease of s3://lake/t/: .* holds it");
        // LocalS3 (Spring Boot, Tomcat, S3Mock) adds nothing to the console of a program that has no logging backend.
        assertThat(out.lines().filter(l -> l.contains("SLF4J") || l.contains("Commons Logging") || l.contains("logback")))
                .as("the child's console").isEmpty();
    }
}
