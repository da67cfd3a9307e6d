package io.wrangler.glue;

import java.text.Normalizer;
import java.util.Locale;
import java.util.regex.Pattern;

/** GlueNames sanitizes names to what Athena accepts: lower case {@code [a-z0-9_]}, accents dropped. */
final class GlueNames {
    private static final Pattern MARKS = Pattern.compile("\\p{M}+");
    private static final Pattern OTHERS = Pattern.compile("[^a-z0-9_]+");

    private GlueNames() {
    }

    /** {@code "Cámël Casë"} becomes {@code "camel_case"}: accents dropped, lower case, runs of other characters to {@code _}. */
    static String sanitize(String name) {
        String plain = MARKS.matcher(Normalizer.normalize(name, Normalizer.Form.NFKD)).replaceAll("");
        return OTHERS.matcher(plain.toLowerCase(Locale.ROOT)).replaceAll("_");
    }
}
