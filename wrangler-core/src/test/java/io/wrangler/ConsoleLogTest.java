package io.wrangler;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * wrangler's INFO lines reach the console by default in a program that embeds the testkit's LocalS3: a child JVM started
 * with no logging flag or configuration file (as a user's program, an example or JShell is) prints the lease wait.
 */
class ConsoleLogTest {
    @Test
    void aLeaseWaitIsPrintedOnTheConsoleWithNoLoggingFlag() throws IOException, InterruptedException {
        String out = ChildJvm.of(LeaseWaitMain.class).classPath(System.getProperty("java.class.path"))
                .jvmArgs("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC").run(600).output();
        assertThat(out).as("the child's console").contains("REFUSED", "DONE").doesNotContain("NOT REFUSED");
        assertThat(out).as("the child's console").containsPattern("INFO: .* waits for the lease of s3://lake/t/: .* holds it");
        // LocalS3 (Spring Boot, Tomcat, S3Mock) adds nothing to the console of a program that has no logging backend.
        assertThat(out.lines().filter(l -> l.contains("SLF4J") || l.contains("Commons Logging") || l.contains("logback")))
                .as("the child's console").isEmpty();
    }
}
