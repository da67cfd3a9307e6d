package io.wrangler.layout;

import io.wrangler.staging.StagedFile;
import io.wrangler.storage.S3Location;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * ManifestTrust is the one check of a manifest read from a table's {@code _tmp/} before anything acts on it: recovery
 * ({@code WriteLog.read} of {@code io.wrangler.commit}, so compaction's recover-first and the catalog step too) and readers ({@link Visibility}) apply
 * exactly this, so a manifest one of them refuses is refused by all (see "Trust" in {@code package-info.java}).
 *
 * <p>What {@code _tmp/} holds is input, not truth: anyone (or any bug, hand edit, copied folder) that can put an object
 * in one table's {@code _tmp/} must not make a job with broader permissions act beyond that table. So every key and
 * folder a manifest names must lie in this table, in the place its role allows, written plainly (no {@code .} or
 * {@code ..} segment, no empty segment, no percent-encoded one): a reader of the catalog (Hive, Spark, Athena) normalizes
 * such segments, S3 does not, and the two would then disagree on where a file is.
 */
public final class ManifestTrust {
    private ManifestTrust() {
    }

    /**
     * Why the manifest {@code m}, read from {@code _tmp/<folderId>/_manifest.json} of the table at {@code location},
     * cannot be acted on, or null when it can. Reads nothing.
     */
    public static String refusal(S3Location location, String folderId, Manifest m) {
        if (!location.uri().equals(m.table())) {
            return "it records the table " + m.table();
        }
        if (!folderId.equals(m.writeId())) {
            return "it records the write " + m.writeId() + " in the folder of " + folderId;
        }
        if (m.keyId() != null && !m.writeId().equals(m.keyId()) && !m.writeId().startsWith(m.keyId() + "-")) {
            return "it records the key id " + m.keyId() + ", which the write id " + m.writeId() + " does not carry";
        }
        String why = partitions(m);
        if (why == null) {
            why = files(location, m);
        }
        if (why == null) {
            why = replaces(location, m);
        }
        if (why == null) {
            why = catalog(m);
        }
        return why;
    }

    private static String partitions(Manifest m) {
        int depth = m.partitionColumns().size();
        for (Manifest.Partition p : m.partitions()) {
            if (p.values().size() != depth) {
                return "it records the partition folder '" + p.folder() + "' with " + p.values().size() + " values for "
                        + depth + " partition columns";
            }
            if (depth == 0 ? !p.folder().isEmpty() : !p.folder().endsWith("/") || unsafe(p.folder().substring(0, p.folder().length() - 1))) {
                return "it names the partition folder '" + p.folder() + "', which is not a plain folder of this table";
            }
        }
        return null;
    }

    private static String files(S3Location location, Manifest m) {
        Set<String> folders = new HashSet<>();
        m.partitions().forEach(p -> folders.add(p.folder()));
        String staging = Manifest.folder(location, m.writeId());
        for (StagedFile f : m.files()) {
            String key = f.finalKey();
            if (!inTable(location, key)) {
                return "it names the file " + key + " outside the table";
            }
            String rel = key.substring(location.prefix().length());
            if (!folders.contains(f.folder()) || !rel.equals(f.folder() + rel.substring(rel.lastIndexOf('/') + 1))) {
                return "it names the file " + key + " outside the partition folders it records";
            }
            if (!m.writeId().equals(WriteIds.ofFile(key))) {
                return "it names the file " + key + ", whose name does not carry its write id " + m.writeId()
                        + " (a write publishes and removes only files it created)";
            }
            if (f.deferred() ? f.etags() == null : f.stagedKey() == null) {
                return "it names the file " + key + " with neither a staged key nor a deferred upload and its parts";
            }
            String staged = f.stagedKey();
            if (staged != null && (!staged.startsWith(staging) || unsafe(staged.substring(staging.length()))
                    || staged.equals(staging + Manifest.FILE_NAME))) {
                return "it names the staged file " + staged + " outside its staging folder";
            }
            if (f.bytes() < 0 || f.rows() < 0) {
                return "it records the file " + key + " with a negative size or row count";
            }
        }
        return null;
    }

    private static String replaces(S3Location location, Manifest m) {
        if (m.replaces() == null) {
            return null;
        }
        Set<String> own = new HashSet<>();
        m.files().forEach(f -> own.add(f.finalKey()));
        for (String key : m.replaces()) {
            if (!inTable(location, key)) {
                return "it lists the replaced file " + key + " outside the table";
            }
            if (own.contains(key)) {
                return "it lists its own file " + key + " among the files it replaces";
            }
        }
        return null;
    }

    private static String catalog(Manifest m) {
        if (m.catalog() == null || m.files().isEmpty()) {
            return null; // a STARTED record names its catalog before it has a schema; no catalog step runs for it
        }
        if (m.schema() == null) {
            return "it records the catalog " + m.catalog() + " without the schema its catalog step registers";
        }
        try {
            Schema schema = Schema.fromJSON(m.schema());
            for (String c : m.partitionColumns()) {
                schema.findField(c);
            }
        } catch (IOException | RuntimeException e) {
            return "its schema cannot be read (" + e.getMessage() + ")";
        }
        if (m.bucketing() != null && m.bucketing().buckets() < 1) {
            return "it records " + m.bucketing().buckets() + " buckets";
        }
        return null;
    }

    /** True when {@code key} is a plain key of a data file of the table: under its root, not under any {@code _tmp/}. */
    public static boolean inTable(S3Location location, String key) {
        if (key == null || !key.startsWith(location.prefix()) || key.endsWith("/")) {
            return false;
        }
        String rel = key.substring(location.prefix().length());
        return !rel.startsWith("_tmp/") && !rel.contains("/_tmp/") && !unsafe(rel);
    }

    /**
     * True when a relative path (segments joined by {@code /}) has a segment that some reader would resolve to something
     * else than its text: empty, {@code .}, {@code ..}, {@code _tmp}, or one whose percent-decoding is one of these or
     * holds a slash or backslash (a percent-escaped character in a Hive folder decodes to itself, never to these).
     */
    public static boolean unsafe(String rel) {
        if (rel.startsWith("/")) {
            return true;
        }
        for (String segment : rel.split("/", -1)) {
            if (odd(segment)) {
                return true;
            }
            if (segment.indexOf('%') >= 0) {
                String decoded;
                try {
                    decoded = URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
                } catch (IllegalArgumentException e) {
                    continue; // not an encoding at all: its text is what every reader sees
                }
                if (odd(decoded) || decoded.contains("/") && (odd(decoded.replace("/", "")) || decoded.startsWith("..")
                        || decoded.contains("/..") || decoded.contains("/./"))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean odd(String segment) {
        return segment.isEmpty() || segment.equals(".") || segment.equals("..") || segment.equals("_tmp") || segment.indexOf('\\') >= 0
                || control(segment);
    }

    /**
     * Whether {@code segment} holds a control character: a plain loop, not {@code chars().anyMatch}, whose stream code
     * (shared with every other caller in the JVM) a merge's listing then compiled again after its profile failed.
     */
    private static boolean control(String segment) {
        for (int i = 0; i < segment.length(); i++) {
            if (segment.charAt(i) < 0x20) {
                return true;
            }
        }
        return false;
    }
}
