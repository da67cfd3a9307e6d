package io.wrangler.compact;

import io.wrangler.ReadException;
import io.wrangler.WriteStep;
import io.wrangler.catalog.CatalogTable;
import io.wrangler.catalog.TableLayout;
import io.wrangler.commit.KeyedFiles;
import io.wrangler.encoding.KeyRuns;
import io.wrangler.hive.HiveTypes;
import io.wrangler.read.FileFooters;
import io.wrangler.read.TableFiles;
import io.wrangler.read.TableReader;
import io.wrangler.read.TableSchema;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.Removed;
import io.wrangler.storage.S3Store;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * A CompactionPlan is what a compaction rewrites, and every check of it, settled before anything is written or the lease
 * is taken: the table listed (through the catalog when given), the units chosen (a partition, or a bucket of a
 * partition, as {@link CompactionSpec.Choice} says), {@link CompactionChecks} passed on them, and every chosen file's
 * footer fetched and parsed once ({@link FileFooters}): the files' schemas for the new files' schema, their encodings
 * to keep, and the key runs of the marked ones, from which each unit is put in commit order.
 */
final class CompactionPlan {
    /** The table's partition columns, in key order. */
    final List<String> partitionColumns;
    /** Each partition column's type: the catalog's, else its folder text (a {@code Utf8}). */
    final Map<String, Field> partitionTypes;
    /** The catalog's data columns, or null without a catalog. */
    final Map<String, Field> catalogColumns;
    /** The catalog's layout, or null without a catalog. */
    final TableLayout layout;
    /** The chosen units, each in commit order once the footers are read. */
    final List<List<TableFiles.DataFile>> units = new ArrayList<>();
    /** The bucket number of each unit's files, -1 for none. */
    final List<Integer> bucketOfUnit = new ArrayList<>();
    /** The folders of the chosen units, as {@code s3://} URIs, once each. */
    final List<String> folders;
    /** The chosen files' footers; null when nothing is chosen. */
    final FileFooters footers;
    /** The key runs of the marked chosen files, or null when no chosen file holds rows of an idempotency key. */
    final Map<String, List<KeyRuns.Run>> keyRuns;
    /** The table as listed (pruned by the filter). */
    private final TableFiles.Listing listing;
    /** For a delete of rows, each chosen file's rows and matched rows by its key ({@link RemovalScan}); else null. */
    final Map<String, long[]> matched;

    private CompactionPlan(CompactionSpec spec, S3Store store) {
        String table = spec.table();
        CatalogTable catalog = spec.catalog();
        Listed listed = list(spec, store);
        listing = listed.listing;
        partitionColumns = listed.listing.partitionColumns();
        layout = listed.layout;
        catalogColumns = listed.catalogColumns;
        partitionTypes = listed.partitionTypes;
        // Without a catalog the partition values are kept as their folder text, so that every new file lands in the very
        // folder it came from (a value typed from its text could render otherwise: "007" as 7).
        for (String c : partitionColumns) {
            partitionTypes.putIfAbsent(c, new Field(c, FieldType.nullable(ArrowType.Utf8.INSTANCE), null));
        }
        CompactionChecks checks = new CompactionChecks(table, spec.location(), partitionColumns, layout,
                catalog == null ? null : catalog.describe()).verb(spec.verb());
        Removal removal = spec.removal();
        RemovalScan.Found found = null;
        if (removal == null) {
            choose(listed.listing, checks, spec.choice());
            matched = null;
        } else {
            found = removal.everyRow() ? null : RemovalScan.scan(spec, listed.listing, partitionTypes, catalogColumns, removal.rows());
            matched = found == null ? null : found.matched();
            chooseRemoved(listed.listing, checks, matched);
        }
        folders = units.stream().map(fs -> checks.uri(fs.get(0))).distinct().toList();
        if (units.isEmpty()) {
            footers = null;
            keyRuns = null;
            return;
        }
        // a delete's scan fetched every footer once: the chosen files' are taken from it, not fetched again
        footers = found != null ? scanned(units, found) : footers(spec, units);
        // Keyed runs stay keyed: when a chosen file holds rows of an idempotency key, every new file records its rows' keys.
        KeyedInput.commitOrder(units, footers);
        Map<String, List<KeyRuns.Run>> runs = KeyedInput.runsOf(units, footers);
        // A delete's new files hold rows of the files it rewrote: they record each row's commit (CommitRuns), which needs
        // the key column, so that a dedup tie later goes to the rows committed last, not to the rows it moved.
        keyRuns = runs == null && removal != null && !removal.everyRow() ? new HashMap<>() : runs;
    }

    /** Lists the table and chooses what to compact; see the class comment. */
    static CompactionPlan of(CompactionSpec spec) {
        // The reads carry the write's expected bucket owner and retries too: one table, one set of requests.
        return new CompactionPlan(spec, new S3Store(spec.s3(), spec.location().bucket(), spec.requests()));
    }

    /** The table as listed, with what the catalog says of it. */
    private record Listed(TableFiles.Listing listing, TableLayout layout, Map<String, Field> catalogColumns,
                          Map<String, Field> partitionTypes) {
    }

    /** The table as listed now with the spec's filter: a removal's look under the lease that nothing came meanwhile. */
    static TableFiles.Listing listNow(CompactionSpec spec) {
        return list(spec, new S3Store(spec.s3(), spec.location().bucket(), spec.requests())).listing;
    }

    private static Listed list(CompactionSpec spec, S3Store store) {
        String table = spec.table();
        S3Location location = spec.location();
        CatalogTable catalog = spec.catalog();
        Map<String, Field> partitionTypes = new HashMap<>();
        try {
            if (catalog == null) {
                return new Listed(new TableFiles(store, location).verb(spec.verb()).list(spec.choice().filter()), null, null, partitionTypes);
            }
            TableLayout layout = catalog.layout();
            if (layout == null) {
                throw new ReadException(table, "Cannot " + spec.verb() + " " + table + " through " + catalog.describe() + ": the catalog has "
                        + "no such table. Register it first (S3Parquet.register), or run without catalog(...).", null);
            }
            TableFiles.Listing listing = new TableFiles(store, location).verb(spec.verb()).list(layout, spec.choice().filter(), b -> {
                if (!b.equals(location.bucket())) {
                    throw new ReadException(table, "Cannot " + spec.verb() + " " + table + ": a partition of " + catalog.describe() + " lies in "
                            + "the bucket " + b + ", outside the table; it " + (spec.removal() == null ? "rewrites" : spec.removal().everyRow()
                            ? "drops" : "rewrites") + " partitions in place only. Nothing was changed.", null);
                }
                return store;
            });
            Map<String, Field> catalogColumns = TableSchema.dataColumns(layout);
            partitionTypes.putAll(TableSchema.partitionTypes(layout));
            return new Listed(listing, layout, catalogColumns, partitionTypes);
        } catch (SdkException e) {
            throw new ReadException(table, "Cannot " + spec.verb() + " " + table + ": listing the table failed: " + e.getMessage()
                    + ". Nothing was changed; check s3:ListBucket and rerun.", e);
        }
    }

    /**
     * Chooses the units: in each partition, each bucket's files (or all of them, when they carry no bucket numbers) that
     * {@code choice} wants, and checks the partitions they are in.
     */
    private void choose(TableFiles.Listing listing, CompactionChecks checks, CompactionSpec.Choice choice) {
        for (List<TableFiles.DataFile> files : listing.byFolder().values()) {
            Map<Integer, List<TableFiles.DataFile>> byBucket = checks.buckets(files);
            if (byBucket.size() > 1 && byBucket.containsKey(-1) && choice.wanted(files)) {
                checks.bucketed(files, byBucket.keySet()); // refuses files with and without bucket numbers side by side
            }
            boolean any = false;
            for (Map.Entry<Integer, List<TableFiles.DataFile>> e : byBucket.entrySet()) {
                if (choice.wanted(e.getValue())) {
                    // read in commit order (KeyedInput.commitOrder sorts it once the footers are read), so that the rows of
                    // the new files keep it (dedup's tie rule after a compaction)
                    units.add(new ArrayList<>(e.getValue()));
                    bucketOfUnit.add(e.getKey());
                    any = true;
                }
            }
            if (any) {
                checks.inTable(files);
                checks.bucketed(files, byBucket.keySet());
            }
        }
    }

    /**
     * Chooses what a removal replaces: every file of each listed partition for a drop, the files holding a matched row
     * for a delete ({@code matched}); in units of a partition's bucket, checked as a compaction's are.
     */
    private void chooseRemoved(TableFiles.Listing listing, CompactionChecks checks, Map<String, long[]> matched) {
        for (List<TableFiles.DataFile> files : listing.byFolder().values()) {
            List<TableFiles.DataFile> chosen = files.stream().filter(f -> matched == null || matched.containsKey(f.key())).toList();
            if (chosen.isEmpty()) {
                continue;
            }
            checks.inTable(files);
            Map<Integer, List<TableFiles.DataFile>> byBucket = checks.buckets(chosen);
            checks.bucketed(files, checks.buckets(files).keySet());
            for (Map.Entry<Integer, List<TableFiles.DataFile>> e : byBucket.entrySet()) {
                units.add(new ArrayList<>(e.getValue()));
                bucketOfUnit.add(e.getKey());
            }
        }
    }

    /** The table as listed: every file in the scope, for a removal's check under the lease that nothing came meanwhile. */
    TableFiles.Listing listing() {
        return listing;
    }

    /** The footers of the chosen files among those a delete's scan fetched. */
    private static FileFooters scanned(List<List<TableFiles.DataFile>> chosen, RemovalScan.Found found) {
        Map<String, FileFooters.Footer> out = new HashMap<>();
        chosen.forEach(u -> u.forEach(f -> out.put(f.key(), found.footers().get(f.key()))));
        return FileFooters.of(out);
    }

    /** The footers of the chosen files, each fetched and parsed once ({@link FileFooters}). */
    private static FileFooters footers(CompactionSpec spec, List<List<TableFiles.DataFile>> chosen) {
        String table = spec.table();
        try {
            return FileFooters.read(spec.s3(), spec.requests(), chosen.stream().flatMap(List::stream).toList(), KeyedFiles::marked);
        } catch (FileFooters.UnknownKeys e) {
            throw new ReadException(table, "Cannot " + spec.verb() + " " + table + " (step: validate): " + e.getMessage() + ", so whose rows it holds "
                    + "is not known. Nothing was changed; leave its partition out (filter) and report it.", e);
        } catch (IOException e) {
            if (Removed.by(e)) {
                throw Compaction.removed(spec, WriteStep.VALIDATE, e);
            }
            throw new ReadException(table, "Cannot " + spec.verb() + " " + table + " (step: validate): " + e.getMessage() + ". Nothing was changed; "
                    + "fix the cause and rerun.", e);
        }
    }

    /**
     * The schema a read of the listed files has (the catalog's columns first through a catalog), for checking the options
     * that name columns when nothing is chosen: from one file's footer when it has every column of {@code named}, else
     * from every listed file's (so a refusal lists the table's columns as a read has them); null when nothing is listed.
     */
    Schema listedSchema(CompactionSpec spec, List<String> named) {
        List<TableFiles.DataFile> files = listing.files();
        if (files.isEmpty()) {
            return null;
        }
        Schema one = schemaOf(spec, files.subList(0, 1));
        boolean all = named.stream().allMatch(n -> one.getFields().stream().anyMatch(f -> f.getName().equalsIgnoreCase(n)));
        return all || files.size() == 1 ? one : schemaOf(spec, files);
    }

    private Schema schemaOf(CompactionSpec spec, List<TableFiles.DataFile> files) {
        try (BufferAllocator allocator = new RootAllocator();
             TableReader reader = new TableReader(allocator, null, new TableReader.Source(spec.s3(), spec.requests(), spec.table(),
                     new TableFiles.Listing(partitionColumns, files), partitionTypes), null, 1)) {
            if (catalogColumns != null) {
                reader.catalogColumns(catalogColumns);
            }
            return reader.schema();
        } catch (ReadException e) {
            throw Removed.by(e) ? Compaction.removed(spec, WriteStep.VALIDATE, e) : e;
        } catch (IOException e) {
            throw new ReadException(spec.table(), "Cannot " + spec.verb() + " " + spec.table() + " (step: validate): " + e.getMessage()
                    + ". Nothing was changed; fix the cause and rerun.", e);
        }
    }

    /** How many files the chosen units hold. */
    int filesBefore() {
        return units.stream().mapToInt(List::size).sum();
    }

    /** Whether the chosen files carry bucket numbers. */
    boolean bucketed() {
        return bucketOfUnit.stream().anyMatch(b -> b >= 0);
    }

    /** The keys of every chosen file: exactly what the compaction replaces. */
    List<String> replaced() {
        List<String> keys = new ArrayList<>();
        units.forEach(fs -> fs.forEach(f -> keys.add(f.key())));
        return keys;
    }

    /** The partitions of the chosen files, once each, in unit order: what a removal records in its manifest. */
    List<io.wrangler.layout.Manifest.Partition> touched() {
        return io.wrangler.commit.WriteSpec.Replacement.partitionsOf(units.stream().flatMap(List::stream).toList());
    }

    /** The partition values of each chosen folder, by folder. */
    Map<String, List<String>> valuesByFolder() {
        Map<String, List<String>> out = new HashMap<>();
        units.forEach(fs -> out.put(fs.get(0).folder(), fs.get(0).values()));
        return out;
    }
}
