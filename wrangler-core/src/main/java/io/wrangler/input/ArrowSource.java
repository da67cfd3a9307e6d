package io.wrangler.input;

import java.io.IOException;
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
    private Dictionaries.Decoded decoded;
    private boolean consumed;

    private ArrowSource(VectorSchemaRoot root, ArrowReader reader, DictionaryProvider dictionaries, Schema schema) {
        this.root = root;
        this.reader = reader;
        this.dictionaries = dictionaries;
        this.decode = Dictionaries.any(schema);
        this.schema = decode ? Dictionaries.decodedSchema(schema, dictionaries) : schema;
    }

    public static ArrowSource of(VectorSchemaRoot root, DictionaryProvider dictionaries) {
        return new ArrowSource(root, null, dictionaries, root.getSchema());
    }

    public static ArrowSource of(ArrowReader reader) throws IOException {
        return new ArrowSource(null, reader, reader, reader.getVectorSchemaRoot().getSchema());
    }

    @Override
    public Schema schema() {
        return schema;
    }

    @Override
    public boolean next() throws IOException {
        release();
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
        decoded = decode ? Dictionaries.decode(batch, dictionaries) : new Dictionaries.Decoded(batch, java.util.List.of());
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
