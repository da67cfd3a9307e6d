package io.wrangler;

import java.time.LocalDate;
import java.util.List;

/**
 * Calls every entry point of the public API once, without an S3 client, and prints for each the type and message of
 * what it threw ({@code <entry> -> <simple class name>: <message>}), or {@code <entry> -> returned}. Run by
 * {@link MisconfigurationTest} in a JVM whose environment the test sets (no region, no credentials, no --add-opens).
 */
public final class MisconfiguredMain {
    record Row(LocalDate dt, long cents) {
    }

    public static void main(String[] args) {
        String table = "s3://no-such-bucket-wrangler/t/";
        attempt("write", () -> S3Parquet.write(List.of(new Row(LocalDate.of(2024, 1, 15), 100))).partitionBy("dt").to(table));
        attempt("recover", () -> S3Parquet.recover(table));
        attempt("compact", () -> S3Parquet.compact(table).run());
        attempt("read", () -> S3Parquet.read(table).open().close());
    }

    private interface Call {
        void run() throws Exception;
    }

    private static void attempt(String entry, Call call) {
        try {
            call.run();
            System.out.println(entry + " -> returned");
        } catch (Throwable t) {
            System.out.println(entry + " -> " + t.getClass().getSimpleName() + ": " + String.valueOf(t.getMessage()).replace('\n', ' '));
        }
    }
}
