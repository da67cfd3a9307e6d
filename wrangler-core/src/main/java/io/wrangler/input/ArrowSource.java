package io.wrangler.input;

import java.io.IOException;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

/** Batches of a borrowed root (one batch, replayable) or of an ArrowReader (read once, not closed here). */
public final class ArrowSource implements BatchSource {
    private final VectorSchemaRoot root;
    private final ArrowReader reader;
    private final DictionaryProvider dictionaries;
    private final boolean decode;
    private final Schema schema;
    private final Schema inputSchema;
    private Dictionaries.Decoded decoded;
    private boolean consumed;
    private long rowsBefore;
    private int batches;
    private int lastRows;
    private boolean keepNanos;
    /**
     * The borrowed root passed {@link ValueChecks} with this keepNanos: a replay (the write's second pass, after its
     * validation pass) does not check the same buffers again. Null before the first check.
     */
    private Boolean checkedWithNanos;

    private ArrowSource(VectorSchemaRoot root, ArrowReader reader, DictionaryProvider dictionaries, Schema schema) {
        this.root = root;
        this.reader = reader;
        this.dictionaries = dictionaries;
        this.inputSchema = schema;
        this.decode = Dictionaries.any(schema);
        this.schema = decode ? Dictionaries.decodedSchema(schema, dictionaries) : schema;
    }

    public static ArrowSource of(VectorSchemaRoot root, DictionaryProvider dictionaries) {
        return new ArrowSource(root, null, dictionaries, root.getSchema());
    }

    public static ArrowSource of(ArrowReader reader) throws IOException {
        return new ArrowSource(null, reader, reader, reader.getVectorSchemaRoot().getSchema());
    }

    /** Whether nanosecond timestamps will be written as such (else they must be whole microseconds); false by default. */
    public void keepNanos(boolean keep) {
        this.keepNanos = keep;
    }

    @Override
    public Schema schema() {
        return schema;
    }

    /**
     * Moves to the next batch and checks it: the same schema as the first (a reader may swap its root), row counts, dictionary
     * indices, then every value ({@link ValueChecks}). A bad batch is refused with an IllegalArgumentException.
     */
    @Override
    public boolean next() throws IOException {
        release();
        rowsBefore += lastRows;
        lastRows = 0;
        VectorSchemaRoot batch;
        if (root != null) {
            if (consumed) {
                return false;
            }
            consumed = true;
            batch = root;
        } else {
            if (!reader.loadNextBatch()) {
                return false;
            }
            batch = reader.getVectorSchemaRoot();
        }
        batches++;
        lastRows = batch.getRowCount();
        if (!batch.getSchema().equals(inputSchema)) {
            throw new IllegalArgumentException("batch " + batches + " of the stream has the schema " + batch.getSchema()
                    + ", but the stream began with " + inputSchema + ": every batch of one write must have the same schema; "
                    + "write batches of another schema with another write");
        }
        ValueChecks.checkCounts(batch);
        Dictionaries.Decoded d = decode ? Dictionaries.decode(batch, dictionaries, rowsBefore) : new Dictionaries.Decoded(batch, List.of());
        try {
            // A borrowed root is the same buffers on every pass of one write; its values are checked on the first pass only
            // (decoded dictionaries are new vectors each pass, so they are checked each time).
            if (root == null || decode || checkedWithNanos == null || checkedWithNanos != keepNanos) {
                ValueChecks.check(d.root(), rowsBefore, keepNanos);
                if (root != null && !decode) {
                    checkedWithNanos = keepNanos;
                }
            }
        } catch (RuntimeException e) {
            d.release();
            throw e;
        }
        decoded = d;
        return true;
    }

    @Override
    public VectorSchemaRoot current() {
        return decoded.root();
    }

    @Override
    public boolean replayable() {
        return root != null;
    }

    @Override
    public void rewind() {
        if (root == null) {
            throw new IllegalStateException("an ArrowReader is read once");
        }
        release();
        consumed = false;
        rowsBefore = 0;
        lastRows = 0;
        batches = 0;
    }

    private void release() {
        if (decoded != null) {
            decoded.release();
            decoded = null;
        }
    }

    @Override
    public void close() {
        release();
    }
}
