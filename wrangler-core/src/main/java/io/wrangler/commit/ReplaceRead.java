package io.wrangler.commit;

import io.wrangler.layout.Manifest;
import java.util.List;

/**
 * The operation of a compaction: it replaces exactly the files it read (a file that came meanwhile is not its to
 * delete), once its check of what it staged, read back against the rows it read, passed ({@link WriteSpec.Replacement}).
 * It lists nothing.
 */
final class ReplaceRead implements Operation {
    private final WriteSpec.Replacement replacement;

    ReplaceRead(WriteSpec.Replacement replacement) {
        this.replacement = replacement;
    }

    @Override
    public WriteKind kind() {
        return WriteKind.REPLACEMENT;
    }

    @Override
    public void check(Manifest staged) {
        replacement.check().accept(staged.files());
    }

    @Override
    public Publisher.Listing oldFiles(Manifest staged, Env env) {
        env.context().hook().reached(Step.LISTED_OLD_FILES, 1);
        return new Publisher.Listing(replacement.keys(), List.of());
    }
}
