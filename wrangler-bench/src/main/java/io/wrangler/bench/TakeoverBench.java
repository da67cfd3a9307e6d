package io.wrangler.bench;

import io.wrangler.Progress;
import io.wrangler.S3Parquet;
import io.wrangler.WriteMode;
import io.wrangler.WriteResult;
import io.wrangler.testkit.LocalS3;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The time a crashed writer keeps its table from the next one: a writer in a child JVM, with the default options, stops
 * mid-write (two files staged, the table's lease held and renewed) and is killed with SIGKILL; this JVM then reruns the
 * write at once, and the figure is the time from the kill to the moment the rerun starts staging (its first rows
 * encoded: the lease taken over and the killed write rolled back). The lease's age at the kill is printed beside it (S3's
 * clock, whole seconds): the rerun waits the lease's time to live less that age, plus up to two seconds of Last-Modified
 * rounding and a poll.
 *
 * <p>Arguments: repetitions (default 3). Run by {@code ./bench.sh --takeover}.
 */
public final class TakeoverBench {
    private TakeoverBench() {
    }

    /** System.nanoTime() of the current run's kill; 0 between runs. */
    private static final AtomicLong KILLED = new AtomicLong();
    /** Held here: java.util.logging keeps its loggers weakly, with their level and handler. */
    private static final Logger LOG = Logger.getLogger("io.wrangler.commit");

    /** One row of the bench's table. */
    public record Row(LocalDate dt, String country, long id, String tag) {
    }

    static List<Row> rows(String tag) {
        List<Row> out = new ArrayList<>();
        for (int d = 0; d < 4; d++) {
            for (int i = 0; i < 25; i++) {
                out.add(new Row(LocalDate.of(2024, 1, 15 + d), i % 2 == 0 ? "RU" : "DE", d * 100L + i, tag));
            }
        }
        return out;
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            child(args[1], args[2]);
            return;
        }
        int reps = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        System.out.printf("# takeover bench: a writer killed (SIGKILL) mid-write in a child JVM, the rerun in this one, default options, "
                + "%d repetitions, load %s%n", reps, Bench.load());
        List<Double> seconds = new ArrayList<>();
        try (LocalS3 local = LocalS3.start()) {
            local.createBucket("bench");
            // What the rerun logs (io.wrangler.commit, INFO: its wait, its takeover, its recovery), stamped with the seconds
            // since the kill, on a handler of its own instead of the console.
            Logger log = LOG;
            log.setUseParentHandlers(false);
            log.setLevel(Level.INFO);
            log.addHandler(new Handler() {
                @Override
                public void publish(LogRecord r) {
                    long k = KILLED.get();
                    System.out.printf("  %s%s %s%n", k == 0 ? "" : String.format("+%.2f s ", (System.nanoTime() - k) / 1e9), r.getLevel(),
                            r.getMessage());
                }

                @Override
                public void flush() {
                }

                @Override
                public void close() {
                }
            });
            // The rerun's JVM is warm (one write before): what is measured is the wait for the lease and the recovery, not
            // class loading and the JIT of a JVM's first write.
            S3Parquet.write(rows("warm-up")).partitionBy("dt", "country").maxRowsPerFile(10).s3(local.client()).to("s3://bench/warm-up/");
            for (int rep = 0; rep < reps; rep++) {
                String table = "s3://bench/takeover" + rep + "/";
                Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                        TakeoverBench.class.getName(), "--child", local.endpoint().toString(), table).redirectErrorStream(true).start();
                String reached = null;
                BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
                for (String line; (line = out.readLine()) != null; ) {
                    if (line.startsWith("HOLDING")) {
                        reached = line;
                        break;
                    }
                    System.out.println("  child: " + line);
                }
                if (reached == null) {
                    throw new IllegalStateException("the child writer ended without staging: exit " + child.waitFor());
                }
                long age = leaseAge(local.client(), "takeover" + rep + "/_tmp/_lease.json");
                long killed = System.nanoTime();
                KILLED.set(killed);
                child.destroyForcibly(); // SIGKILL
                if (!child.waitFor(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the child writer did not die within 30 s of SIGKILL");
                }
                AtomicLong staging = new AtomicLong();
                WriteResult r = S3Parquet.write(rows("rerun")).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS)
                        .maxRowsPerFile(10).s3(local.client()).progress(new Progress() {
                            @Override
                            public void rowsEncoded(long total) {
                                staging.compareAndSet(0, System.nanoTime());
                            }
                        }).to(table);
                long done = System.nanoTime();
                KILLED.set(0);
                if (r.recovered().rolledBack().size() != 1 || r.rows() != 100) {
                    throw new IllegalStateException("the rerun did not roll the killed write back: " + r.recovered() + ", " + r.rows() + " rows");
                }
                double s = (staging.get() - killed) / 1e9;
                seconds.add(s);
                System.out.printf("run %d: kill -> rerun staging %.2f s (rerun done %.2f s after the kill); lease age at the kill %d s; "
                        + "rolled back %s%n", rep + 1, s, (done - killed) / 1e9, age, r.recovered().rolledBack());
            }
        }
        List<Double> sorted = new ArrayList<>(seconds);
        sorted.sort(null);
        System.out.printf("median kill -> rerun staging: %.2f s over %d runs %s; load %s%n", sorted.get(sorted.size() / 2), sorted.size(),
                seconds, Bench.load());
    }

    /** Seconds since the lease object was last written, on S3's clock (Date of the answer less Last-Modified). */
    private static long leaseAge(S3Client s3, String key) {
        var r = s3.getObjectAsBytes(b -> b.bucket("bench").key(key));
        Instant date = r.response().sdkHttpResponse().firstMatchingHeader("Date")
                .map(h -> ZonedDateTime.parse(h, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant()).orElse(Instant.now());
        return Duration.between(r.response().lastModified(), date).toSeconds();
    }

    /** The killed writer: stages two files, says HOLDING, and stops there (its lease renewed in the background) until killed. */
    private static void child(String endpoint, String table) throws Exception {
        try (S3Client s3 = S3Client.builder().endpointOverride(URI.create(endpoint)).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build()) {
            S3Parquet.write(rows("killed")).partitionBy("dt", "country").mode(WriteMode.OVERWRITE_PARTITIONS).maxRowsPerFile(10).s3(s3)
                    .progress(new Progress() {
                        @Override
                        public void filesStaged(int total) {
                            if (total == 2) {
                                System.out.println("HOLDING the lease of " + table + ", 2 files staged");
                                System.out.flush();
                                try {
                                    Thread.sleep(Long.MAX_VALUE);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            }
                        }
                    }).to(table);
        }
        System.out.println("FINISHED without stopping");
    }
}
