package io.wrangler.commit;

import io.wrangler.hive.HiveTypes;
import io.wrangler.hive.HivePaths;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableReader;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A TableShape is what a table's own files say of it when no catalog does: its partition columns, from the folders of
 * one data file, and its columns' types, from that file's footer. A write without a catalog checks itself against it
 * before any change, as it checks itself against the catalog's table when it has one, so that no write leaves a table
 * that a read refuses (columns of two types, files in folders of different partition columns).
 *
 * <p>Why one file is enough: every wrangler write into the table made the same check, so every file that has a column
 * has it with one type and every file lies in folders of the same columns; the first data file in key order stands for
 * all of them. Its cost: one LIST of the table without delimiter, whose first page holds a data file, or the whole
 * table (none: a new table), and one footer GET; when a first page of hidden objects ({@code _tmp/}, and
 * {@code _wrangler/}'s log, which grows with every commit) holds none, one LIST more, after the keys that start with
 * {@code _} and a letter; only when that holds none either (partition folders named with a capital letter or a digit,
 * which sort before {@code _}) a walk down the folders follows, one LIST a level (a page of folders each). A column that file lacks (an evolved table whose older files lack a newer column) is not checked against the
 * files that have it: the check sees the columns of the first file only. A first file that is not Parquet wrangler reads
 * leaves the write unchecked, as a table with no file does (the check guards the table; it does not judge other tools'
 * files, which the read refuses with its own words).
 *
 * @param partitionColumns the folder columns of the file, in order
 * @param columns the file's data columns by lower-case name
 * @param file the file, as an {@code s3://} URI, for messages
 */
record TableShape(List<String> partitionColumns, Map<String, Field> columns, String file) {
    /** Levels of folders looked through at most. */
    private static final int MAX_DEPTH = 64;
    /** Every key starting with {@code _} and a letter or digit sorts before it; lower-case letters sort after it. */
    private static final String AFTER_HIDDEN = "_~";

    /** The shape of the table at {@code location}, or null when it has no data file (a new table) or its layout is not Hive's. */
    static TableShape of(S3Store store, S3Location location) throws IOException {
        String prefix = location.prefix();
        ListObjectsV2Response flat = store.listPage(prefix, null, null);
        S3Object any = firstVisible(location, flat.contents());
        boolean whole = !Boolean.TRUE.equals(flat.isTruncated());
        if (any == null && !whole) {
            any = firstVisible(location, store.listPageAfter(prefix, prefix + AFTER_HIDDEN).contents());
        }
        if (any != null) {
            return fromKey(store, location, any);
        }
        if (whole) {
            return null; // every key of the table was on that page: no data file
        }
        List<String> columns = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (int depth = 0; depth < MAX_DEPTH; depth++) {
            Found found = first(store, prefix);
            if (found == null) {
                return null;
            }
            if (found.file != null) {
                return read(store, location, columns, values, found.file);
            }
            String segment = found.folder.substring(prefix.length(), found.folder.length() - 1);
            int eq = segment.indexOf('=');
            if (eq <= 0) {
                return null; // not a Hive folder: the read's own rule refuses or skips it
            }
            columns.add(HivePaths.unescape(segment.substring(0, eq)));
            values.add(HivePaths.unescape(segment.substring(eq + 1)));
            prefix = found.folder;
        }
        return null;
    }

    private record Found(S3Object file, String folder) {
    }

    /** The first data file of a flat listing's page: a {@code .parquet} object, not empty, no segment of its path hidden. */
    private static S3Object firstVisible(S3Location location, List<S3Object> page) {
        for (S3Object o : page) {
            String rel = o.key().substring(location.prefix().length());
            boolean visible = rel.endsWith(".parquet") && o.size() != null && o.size() > 0;
            for (String segment : rel.split("/", -1)) {
                visible &= !segment.isEmpty() && !hidden(segment);
            }
            if (visible) {
                return o;
            }
        }
        return null;
    }

    /** The shape from a data file found by a flat listing: its folders' columns and values, or null when one is not Hive's. */
    private static TableShape fromKey(S3Store store, S3Location location, S3Object o) throws IOException {
        String rel = o.key().substring(location.prefix().length());
        List<String> columns = new ArrayList<>();
        List<String> values = new ArrayList<>();
        String[] segments = rel.split("/", -1);
        for (int i = 0; i < segments.length - 1; i++) {
            int eq = segments[i].indexOf('=');
            if (eq <= 0) {
                return null; // not a Hive folder: the read's own rule refuses or skips it
            }
            columns.add(HivePaths.unescape(segments[i].substring(0, eq)));
            values.add(HivePaths.unescape(segments[i].substring(eq + 1)));
        }
        return read(store, location, columns, values, o);
    }

    /**
     * The first visible data file ({@code .parquet}) directly under {@code prefix}, else its first visible folder, else
     * null. Other objects (a note, another tool's marker) are passed over: the read has its own rule for them.
     */
    private static Found first(S3Store store, String prefix) {
        String token = null;
        String folder = null;
        do {
            ListObjectsV2Response page = store.listPage(prefix, "/", token);
            for (S3Object o : page.contents()) {
                String name = o.key().substring(prefix.length());
                if (name.endsWith(".parquet") && !hidden(name) && o.size() != null && o.size() > 0) {
                    return new Found(o, null);
                }
            }
            if (folder == null) {
                for (CommonPrefix p : page.commonPrefixes()) {
                    if (!hidden(p.prefix().substring(prefix.length()))) {
                        folder = p.prefix();
                        break;
                    }
                }
            }
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null && folder == null);
        return folder == null ? null : new Found(null, folder);
    }

    private static boolean hidden(String name) {
        return name.startsWith("_") || name.startsWith(".");
    }

    private static TableShape read(S3Store store, S3Location location, List<String> columns, List<String> values, S3Object o)
            throws IOException {
        String rel = o.key().substring(location.prefix().length());
        TableFiles.DataFile file = new TableFiles.DataFile(store.bucket(), o.key(), o.size(), rel.substring(0, rel.lastIndexOf('/') + 1),
                values, o.lastModified(), o.eTag());
        Map<String, Field> texts = new HashMap<>();
        columns.forEach(c -> texts.put(c, new Field(c, FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
        Map<String, Field> data = new LinkedHashMap<>();
        try (BufferAllocator allocator = new RootAllocator();
             TableReader reader = new TableReader(allocator, null, new TableReader.Source(store.client(), store.options(), location.uri(),
                     new TableFiles.Listing(columns, List.of(file)), texts), null, 1)) {
            List<Field> fields = reader.schema().getFields();
            for (Field f : fields.subList(0, fields.size() - columns.size())) {
                data.put(f.getName().toLowerCase(Locale.ROOT), f);
            }
        }
        return new TableShape(List.copyOf(columns), data, "s3://" + store.bucket() + "/" + o.key());
    }

    /** Each column's Hive type, where it has one (the types a catalog would hold), by lower-case name. */
    Map<String, String> hiveTypes() {
        Map<String, String> out = new HashMap<>();
        columns.forEach((k, f) -> {
            try {
                out.put(k, HiveTypes.of(f));
            } catch (RuntimeException noHiveType) {
                // uint64, float16: no Hive type to compare with; the read's own check decides
            }
        });
        return out;
    }
}
