package io.wrangler.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DailyOrdersTest {
    @Test
    void rerunOfOneDayReplacesOnlyThatDaysPartitions(@TempDir Path folder) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            DailyOrders.main(new String[] {folder.toString()});
            DailyOrders.main(new String[] {folder.toString()}); // a second run on the same lake changes nothing
        } finally {
            System.setOut(original);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        String secondRun = text.substring(text.lastIndexOf("1. Nightly load"));
        for (String day : new String[] {"2024-01-14", "2024-01-16"}) {
            for (String country : new String[] {"DE", "RU", "US"}) {
                assertThat(secondRun).contains("dt=" + day + "/country=" + country + "      4 rows    40.00 ->  4 rows    40.00  unchanged");
            }
        }
        for (String country : new String[] {"DE", "RU", "US"}) {
            assertThat(secondRun).contains("dt=2024-01-15/country=" + country + "      4 rows    40.00 ->  2 rows    50.00  replaced");
        }
        assertThat(secondRun).contains("9 data files, 0 objects under _tmp/");
        assertThat(secondRun).containsPattern("progress reported: 36 rows encoded, 9 files staged, \\d+ bytes uploaded, 9/9 partitions published");
        try (var files = Files.walk(folder.resolve("orders"))) {
            assertThat(files.filter(p -> p.toString().endsWith(".parquet")).count()).isEqualTo(9);
        }
    }
}
