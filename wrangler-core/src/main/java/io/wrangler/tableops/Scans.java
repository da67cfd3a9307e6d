package io.wrangler.tableops;

import io.wrangler.storage.S3Store;
import java.util.List;
import software.amazon.awssdk.core.exception.SdkException;

/** A table's listing ({@link TableFolders#scan}) with its failures made the operation's refusals. */
final class Scans {
    private Scans() {
    }

    static TableFolders.Scan scan(S3Store store, OpSpec spec, List<String> columns, Refusals refusals, String todo) {
        try {
            return TableFolders.scan(store, spec.location(), columns);
        } catch (TableFolders.Misfit e) {
            throw refusals.invalid(e.getMessage(), todo + ". Nothing was changed.");
        } catch (SdkException e) {
            throw refusals.storage("list the table", e);
        }
    }
}
