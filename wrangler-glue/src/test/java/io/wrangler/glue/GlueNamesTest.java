package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GlueNamesTest {
    @Test
    void sanitizesAsAwswranglerDoes() {
        assertThat(GlueNames.sanitize("Cámël Casë")).isEqualTo("camel_case");
        assertThat(GlueNames.sanitize("MyNewColumn")).isEqualTo("my_new_column");
        assertThat(GlueNames.sanitize("amountCents")).isEqualTo("amount_cents");
        assertThat(GlueNames.sanitize("Order-Date")).isEqualTo("order_date");
        assertThat(GlueNames.sanitize("price (EUR)")).isEqualTo("price_eur_");
        assertThat(GlueNames.sanitize("already_fine_1")).isEqualTo("already_fine_1");
    }
}
