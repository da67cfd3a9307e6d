package io.wrangler.commit;

import io.wrangler.layout.Manifest;

/**
 * The operation of a plain append, an overwrite and an overwrite of partitions: it replaces what its mode lists when
 * it commits (nothing for a plain append, every file of the table for an overwrite, the files of the partitions it
 * writes for an overwrite of partitions; {@link Publisher#listOld}).
 */
final class ReplaceListed implements Operation {
    private final WriteKind kind;

    ReplaceListed(WriteKind kind) {
        this.kind = kind;
    }

    @Override
    public WriteKind kind() {
        return kind;
    }

    @Override
    public Publisher.Listing oldFiles(Manifest staged, Env env) {
        return env.lister().list(staged);
    }
}
