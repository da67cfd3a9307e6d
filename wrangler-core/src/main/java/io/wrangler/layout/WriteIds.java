package io.wrangler.layout;

import io.wrangler.encoding.KeyRuns;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Write ids: {@code 20241115T031500Z-9f3a1c2b7e6d5a40}. Time first, so that listings sort by age; 64 random
 * bits, so that two writers never pick the same id.
 */
public final class WriteIds {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final SecureRandom RANDOM = new SecureRandom();

    private WriteIds() {
    }

    public static String next() {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        return TIME.format(Instant.now()) + "-" + HexFormat.of().formatHex(bytes);
    }

    /**
     * The write id of one run of a keyed write: {@code <keyId>-<16 hex, random>}. Every run has its own id, so that
     * undoing one run never deletes a file another run of the same key made; the shared {@link #keyId} is how a run
     * finds the files of earlier runs that it replaces.
     */
    public static String forKey(String key) {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        return keyId(key) + "-" + HexFormat.of().formatHex(bytes);
    }

    /**
     * The part of a keyed write id that every run with the same key shares:
     * {@code k-<key, letters digits and '-' only, at most 48>-<12 hex of its SHA-256>}.
     */
    public static String keyId(String key) {
        String plain = key.replaceAll("[^A-Za-z0-9-]+", "-");
        if (plain.length() > 48) {
            plain = plain.substring(0, 48);
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return "k-" + plain + "-" + HexFormat.of().formatHex(digest, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    /** A write id, unkeyed or keyed; the keyed form of wrangler 0.1 ended at the key's hash. */
    private static final String ID = "\\d{8}T\\d{6}Z-[0-9a-f]{16}|k-[A-Za-z0-9-]{1,48}-[0-9a-f]{12}(?:-[0-9a-f]{16})?";
    private static final Pattern WRITE_ID = Pattern.compile(ID);

    /** True for a folder name under {@code _tmp/} that is one of wrangler's write ids (anything else there is left alone). */
    public static boolean isWriteId(String name) {
        return WRITE_ID.matcher(name).matches();
    }

    /** The key id of a keyed write id (of either form), or null for an unkeyed one. */
    public static String keyOf(String writeId) {
        if (!writeId.startsWith("k-")) {
            return null;
        }
        Matcher m = KEYED.matcher(writeId);
        return m.matches() ? m.group(1) : writeId;
    }

    private static final Pattern KEYED = Pattern.compile("(k-[A-Za-z0-9-]{1,48}-[0-9a-f]{12})-[0-9a-f]{16}");

    /**
     * A data file's name: {@code [<filenamePrefix>]part-<p>-<n>-<writeId>[_k][_bucket-<b>][.<codec>].parquet}, the write id in one of the
     * two forms above; {@code _k} marks a file that records the keys of its rows in its footer ({@link io.wrangler.encoding.KeyRuns}). Exact after the prefix, so that another tool's file in the table (Spark's {@code
     * part-00000-<uuid>-c000.snappy.parquet}) is never taken for one of ours; the prefix is whatever the write's {@code
     * filenamePrefix} was (a keyed rerun with another prefix still finds the earlier run's files).
     */
    private static final Pattern FILE = Pattern.compile(
            "[^/]*part-\\d{5,}-\\d{3,}-(" + ID + ")(" + KeyRuns.MARK + ")?(?:_bucket-\\d{5,})?(\\.[a-z0-9_]+)?\\.parquet");

    /** The write id carried by a data file's key ({@code .../part-<p>-<n>-<writeId>.<codec>.parquet}), or null. */
    public static String ofFile(String key) {
        Matcher m = FILE.matcher(key.substring(key.lastIndexOf('/') + 1));
        return m.matches() ? m.group(1) : null;
    }

    /** The key id of a data file's keyed write id when its name is one of wrangler's and unmarked, else null: one match. */
    public static String keyOfUnmarked(String key) {
        Matcher m = FILE.matcher(key.substring(key.lastIndexOf('/') + 1));
        return m.matches() && m.group(2) == null ? keyOf(m.group(1)) : null;
    }

    /** True when a key's file name is one of wrangler's and marked as recording its rows' keys ({@code _k}). */
    public static boolean marked(String key) {
        Matcher m = FILE.matcher(key.substring(key.lastIndexOf('/') + 1));
        return m.matches() && m.group(2) != null;
    }

    /**
     * True when a key's file name is one of wrangler's, unmarked, and carries a write id of this key id (any run): all its
     * rows are that key's. A marked file is never a key's own by its name, whatever write id it carries: its footer says
     * whose its rows are.
     */
    public static boolean carriesKey(String key, String keyId) {
        String id = ofFile(key);
        return id != null && !marked(key) && keyId.equals(keyOf(id));
    }
}
