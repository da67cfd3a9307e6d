package io.wrangler.glue;

import java.text.Normalizer;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * GlueNames sanitizes names to what Athena accepts, as awswrangler's {@code sanitize_column_name} does: accents dropped,
 * runs of characters other than {@code [A-Za-z0-9_]} to {@code _}, CamelCase to snake_case, lower case.
 */
final class GlueNames {
    private static final Pattern MARKS = Pattern.compile("\\p{M}+");
    private static final Pattern OTHERS = Pattern.compile("[^A-Za-z0-9_]+");
    private static final Pattern CAMEL = Pattern.compile("([a-z0-9])([A-Z])");

    private GlueNames() {
    }

    /** {@code "Cámël Casë"} becomes {@code "camel_case"}, {@code "amountCents"} becomes {@code "amount_cents"}. */
    static String sanitize(String name) {
        String plain = MARKS.matcher(Normalizer.normalize(name, Normalizer.Form.NFKD)).replaceAll("");
        String underscored = OTHERS.matcher(plain).replaceAll("_");
        return CAMEL.matcher(underscored).replaceAll("$1_$2").toLowerCase(Locale.ROOT);
    }
}
