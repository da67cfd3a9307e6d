package io.wrangler.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The BOM pins the versions the build uses: it has no parent (on purpose), so its properties are copies to keep equal. */
class BomVersionsTest {
    @Test
    void theBomPinsTheVersionsTheLibraryIsBuiltAndTestedWith() throws Exception {
        String parent = Files.readString(Path.of("../pom.xml"));
        String bom = Files.readString(Path.of("../wrangler-bom/pom.xml"));
        for (String property : List.of("awssdk.version", "arrow.version", "parquet.version", "snappy.version", "zstd.version",
                "s3mock.version", "duckdb.version")) {
            assertThat(value(bom, property)).as(property + " in wrangler-bom/pom.xml").isEqualTo(value(parent, property));
        }
        assertThat(bom).contains("<artifactId>bom</artifactId><version>${awssdk.version}</version><type>pom</type><scope>import</scope>",
                "<artifactId>arrow-bom</artifactId><version>${arrow.version}</version><type>pom</type><scope>import</scope>");
    }

    private static String value(String pom, String property) {
        Matcher m = Pattern.compile("<" + Pattern.quote(property) + ">([^<]+)</" + Pattern.quote(property) + ">").matcher(pom);
        assertThat(m.find()).as(property).isTrue();
        return m.group(1);
    }
}
