package io.wrangler.read;

import io.wrangler.CommitMark;
import io.wrangler.InvalidReadException;
import io.wrangler.ReadException;
import io.wrangler.layout.CommitLog;
import io.wrangler.storage.S3Location;
import io.wrangler.storage.S3Store;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Selected narrows a read of the table as it is to the files its selection names (last modified in a range, or an explicit
 * list), and finds the read's commit mark when asked: the log's end looked at before the listing and again after it,
 * known only when both agree and no write was between its commit record and its end (see docs/reading.md).
 */
final class Selected {
    private Selected() {
    }

    static TableRead.Listed select(TableRead read, S3Location location, Supplier<TableRead.Listed> lister, S3Client client,
                                   io.wrangler.storage.RequestOptions options) {
        TableRead.Selection sel = read.selection();
        String table = location.uri();
        List<String> wanted = sel.files() == null ? null : keys(location, sel.files());
        S3Store store = new S3Store(client, location.bucket(), options);
        CommitLog.Tail before = sel.withMark() ? tail(store, location) : null;
        TableRead.Listed listed = lister.get();
        if (sel.withMark()) {
            CommitLog.Tail after = tail(store, location);
            CommitMark mark = CommitMark.of(before.log(), before.seq());
            boolean known = !listed.midCommit() && before.seq() == after.seq() && before.log().equals(after.log());
            sel.marks().accept(known ? () -> mark : () -> {
                throw new ReadException(table, "Cannot tell the commit mark of the read of " + table + ": a write committed while "
                        + "it listed the table (the log ended at " + before.seq() + " before the listing and at " + after.seq()
                        + " after it" + (listed.midCommit() ? ", and a write was between its commit and its end" : "") + "), so "
                        + "the rows read may or may not hold it. Read again with withMark() (a write takes seconds).", null);
            });
        }
        if (sel.from() == null && sel.to() == null && wanted == null) {
            return listed;
        }
        List<TableFiles.DataFile> files = new ArrayList<>();
        for (TableFiles.DataFile f : listed.listing().files()) {
            if (modifiedIn(sel, f)) {
                files.add(f);
            }
        }
        if (wanted != null) {
            files = named(table, location, files, wanted);
        }
        return listed.withListing(new TableFiles.Listing(listed.listing().partitionColumns(), files));
    }

    private static boolean modifiedIn(TableRead.Selection sel, TableFiles.DataFile f) {
        if (sel.from() == null && sel.to() == null) {
            return true;
        }
        Instant m = f.modified();
        return m != null && (sel.from() == null || !m.isBefore(sel.from())) && (sel.to() == null || !m.isAfter(sel.to()));
    }

    /** The files named, in the order named, each a visible file of the read; else refused, naming the first few that are not. */
    private static List<TableFiles.DataFile> named(String table, S3Location location, List<TableFiles.DataFile> visible,
                                                   List<String> wanted) {
        Map<String, TableFiles.DataFile> byKey = new LinkedHashMap<>();
        visible.forEach(f -> byKey.put(f.key(), f));
        List<TableFiles.DataFile> out = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (String k : wanted) {
            TableFiles.DataFile f = byKey.get(k);
            if (f == null) {
                missing.add(location.uriOf(k));
            } else {
                out.add(f);
            }
        }
        if (!missing.isEmpty()) {
            throw new InvalidReadException(table, "Cannot read files of " + table + ": " + missing.size() + " of the files named "
                    + "are not data files of the table as a reader sees it now (gone, replaced, a write's in flight, or outside the "
                    + "filter): " + (missing.size() > 5 ? missing.subList(0, 5) + " and " + (missing.size() - 5) + " more" : missing)
                    + ". Name files the table lists now (WriteResult.paths() of a committed write, or a listing). Nothing was read.");
        }
        return out;
    }

    /**
     * The keys of the named files (a key of the table's bucket, or an {@code s3://} URI), checked before any request: each
     * under the table root, outside its {@code _tmp/} and {@code _wrangler/} folders, named once.
     */
    static List<String> keys(S3Location location, List<String> named) {
        String table = location.uri();
        Set<String> out = new LinkedHashSet<>();
        for (String n : named) {
            String key = n;
            if (n.startsWith("s3://") || n.startsWith("s3a://")) {
                String rest = n.substring(n.indexOf("://") + 3);
                int slash = rest.indexOf('/');
                if (slash < 0 || !rest.substring(0, slash).equals(location.bucket())) {
                    throw refused(table, n, "it is not in the table's bucket " + location.bucket());
                }
                key = rest.substring(slash + 1);
            }
            String rel = key.startsWith(location.prefix()) ? key.substring(location.prefix().length()) : null;
            if (rel == null || rel.isEmpty() || rel.endsWith("/") || rel.startsWith("_") || rel.contains("/_") || rel.startsWith(".")
                    || rel.contains("/.")) {
                throw refused(table, n, "it is not a data file's key under the table root " + table + " (hidden folders and files, "
                        + "starting with _ or ., are never the table's)");
            }
            if (!out.add(key)) {
                throw refused(table, n, "it is named twice");
            }
        }
        return new ArrayList<>(out);
    }

    private static InvalidReadException refused(String table, String named, String why) {
        return new InvalidReadException(table, "Cannot read files of " + table + ": the file '" + named + "' cannot be read as one of "
                + "its files: " + why + ". Name each file once, by its s3:// URI or its key. Nothing was read.");
    }

    private static CommitLog.Tail tail(S3Store store, S3Location location) {
        String table = location.uri();
        try {
            CommitLog.Tail tail = CommitLog.tail(store, location);
            if (tail.idUnknown()) {
                throw new ReadException(table, "Cannot read " + table + " with its commit mark (step: log): no entry of its commit "
                        + "log can be read (" + tail.damaged().get(0) + "). Nothing was changed; restore that entry.", null);
            }
            return tail;
        } catch (SdkException e) {
            throw new ReadException(table, "Cannot read " + table + " with its commit mark: reading the commit log failed: "
                    + e.getMessage() + ". Read again.", e);
        }
    }
}
