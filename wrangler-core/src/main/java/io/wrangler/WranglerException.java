package io.wrangler;

/**
 * A WranglerException is the root of every error that {@code S3Parquet.write(...).to(...)} and {@code S3Parquet.recover}
 * raise. Its type, not its message, says what became of the write and what to do:
 * <ul>
 *   <li>{@link WriteNotAppliedException} and its subclasses ({@link InvalidWriteException}, {@link CommitConflictException},
 *       {@link StorageException}, {@link CatalogException}, {@link InputException}): <b>nothing changed</b>. None of this
 *       write's rows are in the table, or the ones briefly visible are being undone by whoever holds the table now (the
 *       next write or {@code recover} finishes undoing them). Rerunning the write is safe.</li>
 *   <li>{@link WriteIncompleteException}: <b>committed, not finished</b>. The write passed its commit point; its data
 *       is in the table or will be put there, never undone. What remains (publishing, the catalog step, cleanup) is
 *       finished by {@code S3Parquet.recover} with the write's catalog, or by the next write to the table with it.</li>
 *   <li>{@link CommitStateUnknownException}: <b>state unknown</b>. Run {@code S3Parquet.recover} first, then look at
 *       the table before deciding to rerun.</li>
 * </ul>
 * {@link #step()} names the step; messages read {@code Cannot <verb> <table> (step: <step>): <what was found>. <what to do>}.
 */
public abstract class WranglerException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String table;
    private final WriteStep step;

    WranglerException(String table, WriteStep step, String message, Throwable cause) {
        super(message, cause);
        this.table = table;
        this.step = step;
    }

    /** The table URI the failed operation was about ({@code s3://bucket/prefix/}), or null if it could not be parsed. */
    public String table() {
        return table;
    }

    /** The step of the write that failed. */
    public WriteStep step() {
        return step;
    }
}
