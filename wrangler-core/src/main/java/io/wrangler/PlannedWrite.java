package io.wrangler;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a write would do if it ran now: the result of {@link WriteBuilder#plan(String)}, its dry run. Immutable.
 *
 * <p>A snapshot, made under no lease: the write run after it replaces the files it finds then (a file that came into a
 * touched partition meanwhile is replaced too), and recovers the table's interrupted writes first
 * ({@link #recoveryPending}). Compare the write's {@link WriteResult} with the plan: its {@code deletedFiles()} are
 * {@link #filesToReplace()} when nothing changed between the two.
 *
 * @param table the table root, {@code s3://bucket/prefix/}
 * @param mode the write mode
 * @param idempotencyKey the write's key, or null
 * @param rows the rows the write would write
 * @param partitions every partition the write would write, in the order the input first has them
 * @param filesToReplace every file the write would delete now: for OVERWRITE every file of the table (partitions it does
 *     not write included), for OVERWRITE_PARTITIONS those of the partitions it writes, for a keyed APPEND the files of its
 *     key's earlier runs in them and the marked files (a compaction's) that hold rows of its key (written again without
 *     them); none for a plain APPEND
 * @param tableRegistration how the catalog holds the table: {@link Registration#NEW} when the write would create it
 * @param columnChanges how the write's columns differ from the catalog's table, and the casts it applies to its input
 * @param recoveryPending true when the table's {@code _tmp/} holds the folder of a write that is running or was
 *     interrupted: the write waits for it or recovers it first, which can change what it replaces
 */
public record PlannedWrite(String table, WriteMode mode, String idempotencyKey, long rows, List<Partition> partitions,
                           List<File> filesToReplace, Registration tableRegistration, List<ColumnChange> columnChanges,
                           boolean recoveryPending) {
    public PlannedWrite {
        partitions = List.copyOf(partitions);
        filesToReplace = List.copyOf(filesToReplace);
        columnChanges = List.copyOf(columnChanges);
    }

    /** How the write's catalog holds a table or a partition before the write. */
    public enum Registration {
        /**
         * The catalog has it now: the write updates it (a partition keeps its registered Location, but for an OVERWRITE,
         * which redefines the table and writes every partition at its Hive folder).
         */
        REGISTERED,
        /** The catalog does not have it: the write registers it. */
        NEW,
        /** The write has no catalog. */
        NO_CATALOG
    }

    /**
     * One file the write would delete.
     *
     * @param uri its {@code s3://} URI
     * @param bytes its size
     */
    public record File(String uri, long bytes) {
    }

    /**
     * One partition the write would write.
     *
     * @param values its values in partition-column order, as in its folder's name (unescaped); empty without partition
     *     columns
     * @param location the folder its files go to, {@code s3://bucket/prefix/dt=2024-01-15/}: its Hive folder, or the
     *     Location the catalog registers it at
     * @param registeredElsewhere true when that is a Location the catalog registers other than its Hive folder
     * @param registration whether the catalog holds the partition now
     * @param rows the rows the write would put in it
     * @param replaces the files of this folder the write would delete
     */
    public record Partition(List<String> values, String location, boolean registeredElsewhere, Registration registration, long rows,
                            List<File> replaces) {
        public Partition {
            values = java.util.Collections.unmodifiableList(new ArrayList<>(values)); // may hold null (the default partition)
            replaces = List.copyOf(replaces);
        }

        /** The bytes of {@link #replaces}. */
        public long bytesToReplace() {
            return replaces.stream().mapToLong(File::bytes).sum();
        }
    }

    /**
     * One column whose definition the write changes or whose input type it casts.
     *
     * @param column the column as the catalog names it
     * @param kind what changes
     * @param from the type before (the catalog's, or the input's for a cast), as a Hive type; null for an added column
     * @param to the type after, as a Hive type; null for a dropped column
     */
    public record ColumnChange(String column, Kind kind, String from, String to) {
        /** What a {@link ColumnChange} is. */
        public enum Kind {
            /** A column the catalog's table does not have: the write adds it. */
            ADDED,
            /** A column of the catalog's table that an OVERWRITE, which redefines the table, does not have. */
            DROPPED,
            /** A column whose type an OVERWRITE, which redefines the table, changes. */
            RETYPED,
            /** An input column the write widens to the type the catalog's table has (an int to its bigint). */
            WIDENED,
            /** An input column the write casts to the type {@code dtype} asks for. */
            CAST
        }
    }

    /** The bytes of {@link #filesToReplace()}. */
    public long bytesToReplace() {
        return filesToReplace.stream().mapToLong(File::bytes).sum();
    }

    /**
     * The plan for a log, one line per partition:
     *
     * <pre>
     * plan of OVERWRITE_PARTITIONS to s3://lake/marts/orders/ (table registered): 7 rows in 2 partitions, replaces 3 files (2,048 bytes)
     *   [dt=2024-01-16] s3://lake/marts/orders/dt=2024-01-16/ (registered): 5 rows, replaces 2 files (1,400 bytes)
     *   [dt=2024-01-17] s3://lake/marts/orders/dt=2024-01-17/ (new): 2 rows, replaces nothing
     *   column discount: ADDED (decimal(10,2))
     * </pre>
     */
    public String describe() {
        StringBuilder b = new StringBuilder();
        b.append("plan of ").append(mode).append(idempotencyKey == null ? "" : " (idempotencyKey " + idempotencyKey + ")")
                .append(" to ").append(table).append(" (").append(switch (tableRegistration) {
                    case REGISTERED -> "table registered";
                    case NEW -> "new table";
                    case NO_CATALOG -> "no catalog";
                }).append("): ")
                .append(rowCount(rows)).append(" in ").append(partitions.size())
                .append(partitions.size() == 1 ? " partition" : " partitions").append(", ").append(replacing(filesToReplace));
        if (recoveryPending) {
            b.append("; _tmp/ holds a running or interrupted write, which the write waits for or recovers first");
        }
        for (Partition p : partitions) {
            b.append("\n  ").append(folderName(p)).append(' ').append(p.location()).append(" (")
                    .append(p.registeredElsewhere() ? "registered Location" : name(p.registration())).append("): ")
                    .append(rowCount(p.rows())).append(", ").append(replacing(p.replaces()));
        }
        for (ColumnChange c : columnChanges) {
            b.append("\n  column ").append(c.column()).append(": ").append(c.kind()).append(" (")
                    .append(c.from() == null ? c.to() : c.to() == null ? c.from() : c.from() + " -> " + c.to()).append(')');
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return describe();
    }

    private static String rowCount(long rows) {
        return String.format(Locale.ROOT, rows == 1 ? "%,d row" : "%,d rows", rows);
    }

    private static String name(Registration r) {
        return switch (r) {
            case REGISTERED -> "registered";
            case NEW -> "new";
            case NO_CATALOG -> "no catalog";
        };
    }

    private String folderName(Partition p) {
        if (p.values().isEmpty()) {
            return "[table root]";
        }
        String rel = p.location().startsWith(table) ? p.location().substring(table.length()) : p.location();
        return "[" + (rel.endsWith("/") ? rel.substring(0, rel.length() - 1) : rel) + "]";
    }

    private static String replacing(List<File> files) {
        if (files.isEmpty()) {
            return "replaces nothing";
        }
        long bytes = files.stream().mapToLong(File::bytes).sum();
        return String.format(Locale.ROOT, "replaces %,d %s (%,d bytes)", files.size(), files.size() == 1 ? "file" : "files", bytes);
    }
}
