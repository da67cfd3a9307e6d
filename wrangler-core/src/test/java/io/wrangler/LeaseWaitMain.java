package io.wrangler;

import io.wrangler.commit.Step;
import io.wrangler.testkit.LocalS3;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@link ConsoleLogTest} in its own JVM with no logging flag or file, as a user's program: starts the embedded
 * LocalS3 (whose Spring Boot used to take over java.util.logging), holds a table's lease with one write paused after its
 * start, and makes a second write wait for that lease and give up. Prints {@code REFUSED} and {@code DONE} on stdout;
 * what it logs goes wherever the JVM's default logging sends it.
 */
public final class LeaseWaitMain {
    private LeaseWaitMain() {
    }

    public static void main(String[] args) throws Exception {
        List<Orders.Order> rows = Orders.orders("w", List.of(LocalDate.of(2024, 1, 15)), List.of("RU"), 2);
        try (LocalS3 s3 = LocalS3.start()) {
            s3.createBucket("lake");
            String table = "s3://lake/t/";
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread first = new Thread(() -> S3Parquet.write(rows).partitionBy("dt").s3(s3.client()).stepHook((step, n) -> {
                if (step == Step.STARTED) {
                    holding.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }).to(table));
            first.start();
            if (!holding.await(120, TimeUnit.SECONDS)) {
                throw new AssertionError("the first write never reached STARTED");
            }
            try {
                S3Parquet.write(rows).partitionBy("dt").s3(s3.client()).leaseWait(Duration.ofSeconds(2)).to(table);
                System.out.println("NOT REFUSED");
            } catch (CommitConflictException e) {
                System.out.println("REFUSED");
            }
            release.countDown();
            first.join();
        }
        System.out.println("DONE");
    }
}
