package io.wrangler;

import java.util.Objects;

/**
 * The options a single-use builder collects: either a shared {@link WriteOptions} given first, then setters that change
 * this one use, or setters alone. A shared value given after a setter, or twice, would silently undo what was set, and
 * is refused. Used by {@link WriteBuilder} and {@link CompactBuilder}; not thread-safe, as they are not.
 */
final class SettableOptions {
    /** What the builder makes ("write", "compaction"), for the messages. */
    private final String what;
    private WriteOptions.Builder values = WriteOptions.builder();
    /** The first option set one by one, or null: {@link #give} would undo it. */
    private String firstSet;
    private boolean given;

    SettableOptions(String what) {
        this.what = what;
    }

    /** The options so far, to set one on. */
    WriteOptions.Builder values() {
        return values;
    }

    /** Notes that {@code option} was set (after its value was taken), for {@link #give}'s check. */
    void noteSet(String option) {
        if (firstSet == null) {
            firstSet = option;
        }
    }

    /** Takes every option of {@code options}; refused after a setter or a first {@code give}. */
    void give(WriteOptions options) {
        Objects.requireNonNull(options, "options");
        if (given) {
            throw new IllegalStateException("Cannot apply WriteOptions: this " + what + " was given options(...) already; give it one "
                    + "WriteOptions (options.toBuilder() makes a changed copy)");
        }
        if (firstSet != null) {
            throw new IllegalStateException("Cannot apply WriteOptions: " + firstSet + "(...) was set before options(...), which "
                    + "replaces every option and would undo it; call options(...) first, then the setters for this " + what);
        }
        values = options.toBuilder();
        given = true;
    }
}
