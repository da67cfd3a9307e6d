package io.wrangler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The public methods of the API that no larger test calls directly: what each answers, as its javadoc says. */
class SmallApiMethodsTest {

    @Test
    void partitionFilterAnswersWhatItFixesAndWhatPasses() {
        PartitionFilter f = PartitionFilter.in("DT", "2024-01-15", "").and(PartitionFilter.in("country", "DE", "FR"))
                .and(PartitionFilter.in("country", "FR", "RU"));
        assertEquals(Set.of("DT", "country"), f.fixedColumns());
        assertEquals(Set.of("FR"), f.fixedValues("country"));
        Set<String> dt = f.fixedValues("dt");                        // matched ignoring case
        assertEquals(2, dt.size());
        assertTrue(dt.contains("2024-01-15") && dt.contains(null));   // "" names the default partition, as null
        assertNull(f.fixedValues("region"));
        assertTrue(f.test(Map.of("dt", "2024-01-15", "country", "FR")));
        assertFalse(f.test(Map.of("dt", "2024-01-15", "country", "DE")));   // DE is not in both
        Map<String, String> defaultPartition = new HashMap<>();
        defaultPartition.put("dt", null);
        defaultPartition.put("country", "FR");
        assertTrue(f.test(defaultPartition));
        assertTrue(PartitionFilter.all().test(Map.of("dt", "x")));
        assertTrue(PartitionFilter.all().fixedColumns().isEmpty());
        PartitionFilter where = PartitionFilter.where(p -> p.get("COUNTRY").startsWith("D"));
        assertTrue(where.test(Map.of("country", "DE")));
        assertFalse(where.test(Map.of("country", "FR")));
        assertThrows(IllegalArgumentException.class, () -> PartitionFilter.in("dt"));
    }

    @Test
    void retryPolicyKeepsItsWaits() {
        RetryPolicy p = RetryPolicy.of(5, Duration.ofMillis(150), Duration.ofSeconds(3));
        assertEquals(Duration.ofMillis(150), p.base());
        assertEquals(Duration.ofSeconds(3), p.cap());
        assertTrue(RetryPolicy.defaults().cap().compareTo(RetryPolicy.defaults().base()) >= 0);
    }

    @Test
    void writeStepsAreLabelledAsMessagesShowThem() {
        assertEquals("publish", WriteStep.PUBLISH.label());
        assertEquals("validate", WriteStep.VALIDATE.toString());
        for (WriteStep s : WriteStep.values()) {
            assertEquals(s.name().toLowerCase(java.util.Locale.ROOT), s.label());
        }
    }
}
