package io.wrangler.glue;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GlueNamesTest {
    /**
     * Expected values computed with awswrangler 3.17.1's rule (catalog/_utils.py {@code _sanitize_name}: NFD, drop category
     * Mn, {@code [^A-Za-z0-9_]+} to '_', lower) in Python 3.11.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "Cámël Casë|camel_case",
        "MyNewColumn|mynewcolumn",
        "amountCents|amountcents",
        "Order-Date|order_date",
        "price (EUR)|price_eur_",
        "already_fine_1|already_fine_1",
        "c-2|c_2",
        "Par|par",
        "\ufb01le|_le",                 // a ligature is not decomposed (NFD, not NFKD)
        "x\u00b2|x_",                   // nor a superscript two
        "\uff21\uff42\uff43|_",         // nor full-width letters
        "stra\u00dfe|stra_e",
        "\u0130stanbul|istanbul",       // I with dot above: the dot is a mark
        "\u0391\u0392\u0393|_",
        "a\u20ddb|a_b",                 // an enclosing mark (Me) is not dropped, only Mn
        "\u0915\u094d\u0937\u093f|_",   // a spacing mark (Mc) is not dropped either
        "na\u00efve__caf\u00e9|naive__cafe",
        "__x__|__x__",
        "emoji\ud83d\ude00col|emoji_col",
        "a\u0301\u0302b|ab",
        "\u00c5NGSTR\u00d6M|angstrom",
        "1st|1st",
    })
    void sanitizesAsAwswrangler3Does(String name, String expected) {
        assertThat(GlueNames.sanitize(name)).isEqualTo(expected);
    }

    @Test
    void camelCaseIsNotSplit() {
        assertThat(GlueNames.sanitize("orderId")).isEqualTo("orderid");
        assertThat(GlueNames.sanitize("HTTPStatusCode")).isEqualTo("httpstatuscode");
    }
}
