package io.wrangler.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Part sizes grow with the file, so that 10,000 parts hold any object S3 can (5 TiB), each part within S3's limits. */
class PartSizesTest {
    private static final long MIB = 1L << 20;

    @Test
    void tenThousandPartsHoldFiveTebibytesFromAnyBase() {
        for (long base : new long[] {5 * MIB, 8 * MIB, 16 * MIB, 64 * MIB}) {
            long total = 0;
            for (int part = 1; part <= PartSizes.MAX_PARTS; part++) {
                int size = PartSizes.size((int) base, part);
                assertThat(size).isBetween((int) (5 * MIB), PartSizes.MAX_PART);
                assertThat((long) size).isLessThanOrEqualTo(5L << 30);
                total += size;
            }
            assertThat(total).as("base %d", base).isGreaterThanOrEqualTo(PartSizes.MAX_OBJECT);
        }
    }

    @Test
    void smallFilesKeepTheBasePartSize() {
        assertThat(PartSizes.size((int) (8 * MIB), 1)).isEqualTo(8 * MIB);
        assertThat(PartSizes.size((int) (8 * MIB), 900)).isEqualTo(8 * MIB);
        assertThat(PartSizes.size((int) (8 * MIB), 901)).isEqualTo(16 * MIB);
        // The old fixed 8 MiB parts stopped at 78 GiB; now a 78 GiB file takes 3,161 parts, the last of 64 MiB.
        long bytes = 0;
        int part = 0;
        while (bytes < 78L << 30) {
            bytes += PartSizes.size((int) (8 * MIB), ++part);
        }
        assertThat(part).isEqualTo(3_161);
        assertThat(PartSizes.size((int) (8 * MIB), part)).isEqualTo(64 * MIB);
    }

    @Test
    void aFileBeyondWhatS3HoldsIsRefusedNamingTargetFileSize() {
        PartSizes.checkRoom("t/_tmp/w/dt=1/part-0.parquet", PartSizes.MAX_OBJECT - 10, 10);
        assertThatThrownBy(() -> PartSizes.checkRoom("t/_tmp/w/dt=1/part-0.parquet", PartSizes.MAX_OBJECT - 10, 11))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the file t/_tmp/w/dt=1/part-0.parquet would grow past 5 TiB, the largest object S3 holds: set "
                        + "targetFileSize (or maxRowsPerFile) to split each partition into files S3 can hold");
    }
}
