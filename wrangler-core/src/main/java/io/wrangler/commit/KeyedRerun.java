package io.wrangler.commit;

import io.wrangler.layout.Manifest;
import io.wrangler.staging.StagedFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The operation of an append with an idempotency key: it replaces the files its key's earlier runs left in the
 * partitions it writes, and its key's rows in marked files (a compaction's of keyed files): each marked file holding
 * some is written again without them, staged before the commit point, and replaced too ({@link KeyedRewrite}).
 */
final class KeyedRerun implements Operation {
    @Override
    public WriteKind kind() {
        return WriteKind.KEYED_APPEND;
    }

    @Override
    public Publisher.Listing oldFiles(Manifest staged, Env env) {
        return env.lister().list(staged);
    }

    @Override
    public Replacing stageMore(Replacing replacing, Env env) throws IOException {
        Publisher.Listing listing = replacing.listing();
        if (listing.marked().isEmpty() || !listing.nested().isEmpty()) {
            return replacing;
        }
        KeyedRewrite.Result rewritten = KeyedRewrite.run(env.plan(), env.context(), listing.marked());
        List<StagedFile> all = new ArrayList<>(replacing.manifest().files());
        all.addAll(rewritten.files());
        List<String> old = new ArrayList<>(listing.old());
        old.addAll(rewritten.replaced());
        return new Replacing(replacing.manifest().withFiles(all), new Publisher.Listing(old, listing.nested()));
    }
}
