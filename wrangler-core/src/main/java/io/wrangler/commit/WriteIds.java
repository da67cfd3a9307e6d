package io.wrangler.commit;

import java.security.SecureRandom;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;

/**
 * Write ids: {@code 20241115T031500Z-9f3a1c2b7e6d5a40}. Time first, so that listings sort by age; 64 random
 * bits, so that two writers never pick the same id.
 */
final class WriteIds {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final SecureRandom RANDOM = new SecureRandom();

    private WriteIds() {
    }

    static String next() {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        return TIME.format(Instant.now()) + "-" + HexFormat.of().formatHex(bytes);
    }

    /**
     * The write id of a keyed write: the same for every run with the same key, so that a rerun writes the same file
     * names. {@code k-<key, letters digits and '-' only, at most 48>-<12 hex of its SHA-256>}.
     */
    static String forKey(String key) {
        String plain = key.replaceAll("[^A-Za-z0-9-]+", "-");
        if (plain.length() > 48) {
            plain = plain.substring(0, 48);
        }
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return "k-" + plain + "-" + HexFormat.of().formatHex(digest, 0, 6);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /**
     * A data file's name: {@code part-<p>-<n>-<writeId>[.<codec>].parquet}, the write id in one of the two forms above.
     * Exact, so that another tool's file in the table (Spark's {@code part-00000-<uuid>-c000.snappy.parquet}) is never
     * taken for one of ours.
     */
    private static final java.util.regex.Pattern FILE = java.util.regex.Pattern.compile(
            "part-\\d{5,}-\\d{3,}-(\\d{8}T\\d{6}Z-[0-9a-f]{16}|k-[A-Za-z0-9-]{1,48}-[0-9a-f]{12})(\\.[a-z0-9_]+)?\\.parquet");

    /** The write id carried by a data file's key ({@code .../part-<p>-<n>-<writeId>.<codec>.parquet}), or null. */
    static String ofFile(String key) {
        java.util.regex.Matcher m = FILE.matcher(key.substring(key.lastIndexOf('/') + 1));
        return m.matches() ? m.group(1) : null;
    }

    /** True when a key's file name carries this write id. */
    static boolean carries(String key, String writeId) {
        return key.substring(key.lastIndexOf('/') + 1).contains(writeId);
    }
}
