package io.wrangler;

import io.wrangler.commit.Step;
import java.net.URI;
import java.time.LocalDate;
import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Run by {@link KilledWriterTest} in its own JVM: writes {@link KilledWriterTest#SECOND} and, on reaching the given
 * step, prints {@code AT <step> <n>} and stops there until it is killed with SIGKILL. Args: endpoint, table URI, mode,
 * step, count, commit method.
 */
public final class CrashWriterMain {
    private CrashWriterMain() {
    }

    public static void main(String[] args) throws Exception {
        Step target = Step.valueOf(args[3]);
        int count = Integer.parseInt(args[4]);
        try (S3Client s3 = S3Client.builder().endpointOverride(URI.create(args[0])).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b")))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build()) {
            KilledWriterTest.write(S3Parquet.write(KilledWriterTest.SECOND), WriteMode.valueOf(args[2]))
                    .commitMethod(CommitMethod.valueOf(args[5]))
                    .stepHook((step, n) -> {
                        if (step == target && n == count) {
                            System.out.println("AT " + step + " " + n);
                            System.out.flush();
                            try {
                                Thread.sleep(Long.MAX_VALUE);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    })
                    .s3(s3).to(args[1]);
        }
        System.out.println("FINISHED without reaching " + target + " " + count);
    }

    static List<LocalDate> days() {
        return List.of(LocalDate.of(2024, 1, 16), LocalDate.of(2024, 1, 17));
    }
}
