package io.wrangler.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A date partition value read from its digits is the date {@code LocalDate.parse} gives, and what it refuses is refused alike. */
class PartitionDatesTest {
    @Test
    void digitsGiveTheDateParseGives() {
        for (String text : List.of("2025-01-01", "2024-02-29", "2023-12-31", "0001-01-01", "9999-12-31", "2025-04-30", "1970-01-01")) {
            assertThat(PartitionColumns.date(text)).as(text).isEqualTo(LocalDate.parse(text));
        }
    }

    @Test
    void whatParseRefusesIsRefusedWithItsMessage() {
        for (String text : List.of("2023-02-29", "2025-13-01", "2025-00-10", "2025-04-31", "2025-1-01", "2025-01-0x", "+2025-01-01x")) {
            String expected = null;
            try {
                LocalDate.parse(text);
            } catch (DateTimeParseException e) {
                expected = e.getMessage();
            }
            assertThat(expected).as(text).isNotNull();
            assertThatThrownBy(() -> PartitionColumns.date(text)).as(text).isInstanceOf(DateTimeParseException.class).hasMessage(expected);
        }
    }
}
