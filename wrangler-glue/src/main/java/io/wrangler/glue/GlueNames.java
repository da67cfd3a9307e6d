package io.wrangler.glue;

import java.text.Normalizer;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * GlueNames sanitizes names to what Athena accepts, exactly as awswrangler 3.x's {@code sanitize_column_name} and
 * {@code sanitize_table_name} do: the name is decomposed (Unicode NFD) and its non-spacing marks (category Mn) dropped,
 * every run of characters other than {@code [A-Za-z0-9_]} becomes one {@code _}, and the result is lower-cased.
 *
 * <p>There is no CamelCase split: awswrangler 1.x and 2.x split {@code amountCents} into {@code amount_cents}, 3.0
 * dropped that, and a table shared with awswrangler 3 must get the names it gives ({@code amountcents}). Only top-level
 * column names are sanitized; struct field names are kept as given, as awswrangler keeps them.
 */
final class GlueNames {
    private static final Pattern NON_SPACING_MARKS = Pattern.compile("\\p{Mn}+");
    private static final Pattern OTHERS = Pattern.compile("[^A-Za-z0-9_]+");

    private GlueNames() {
    }

    /** {@code "Cámël Casë"} becomes {@code "camel_case"}, {@code "amountCents"} becomes {@code "amountcents"}. */
    static String sanitize(String name) {
        // NFD, not NFKD: awswrangler keeps compatibility characters (a ligature, a superscript two) and then replaces them by '_'.
        String plain = NON_SPACING_MARKS.matcher(Normalizer.normalize(name, Normalizer.Form.NFD)).replaceAll("");
        // After the replacement only ASCII is left, so lower-casing cannot depend on the locale or on Unicode's special cases.
        return OTHERS.matcher(plain).replaceAll("_").toLowerCase(Locale.ROOT);
    }
}
