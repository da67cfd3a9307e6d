package io.wrangler.input;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryEncoder;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Dictionaries decodes dictionary-encoded top-level columns so that the rest of the write sees plain values. */
final class Dictionaries {
    private Dictionaries() {
    }

    static boolean any(Schema schema) {
        for (Field f : schema.getFields()) {
            if (f.getDictionary() != null) {
                return true;
            }
            checkNested(f);
        }
        return false;
    }

    private static void checkNested(Field f) {
        for (Field c : f.getChildren()) {
            if (c.getDictionary() != null) {
                throw new IllegalArgumentException("column '" + f.getName() + "." + c.getName()
                        + "' is dictionary-encoded inside a nested type, which wrangler does not decode: decode it before writing");
            }
            checkNested(c);
        }
    }

    /** The schema with each dictionary-encoded field replaced by its value type. */
    static Schema decodedSchema(Schema schema, DictionaryProvider provider) {
        List<Field> fields = new ArrayList<>();
        for (Field f : schema.getFields()) {
            DictionaryEncoding enc = f.getDictionary();
            if (enc == null) {
                fields.add(f);
            } else {
                Dictionary d = lookup(provider, enc, f);
                Field valueField = d.getVector().getField();
                fields.add(new Field(f.getName(), new FieldType(f.isNullable(),
                        valueField.getType(), null, f.getMetadata()), valueField.getChildren()));
            }
        }
        return new Schema(fields, schema.getCustomMetadata());
    }

    /**
     * A root whose dictionary-encoded columns are decoded. The other columns are the input's own vectors,
     * borrowed: close only {@link Decoded#owned()}, never the root.
     */
    static Decoded decode(VectorSchemaRoot root, DictionaryProvider provider, long firstRow) {
        List<FieldVector> vectors = new ArrayList<>();
        List<FieldVector> owned = new ArrayList<>();
        try {
            for (FieldVector v : root.getFieldVectors()) {
                DictionaryEncoding enc = v.getField().getDictionary();
                if (enc == null) {
                    vectors.add(v);
                } else {
                    Dictionary dictionary = lookup(provider, enc, v.getField());
                    checkIndices(v, dictionary, firstRow);
                    FieldVector decoded = (FieldVector) DictionaryEncoder.decode(v, dictionary);
                    // The decoded vector carries the dictionary's name; give it the column's.
                    var rename = decoded.getTransferPair(v.getName(), decoded.getAllocator());
                    rename.transfer();
                    decoded.close();
                    FieldVector named = (FieldVector) rename.getTo();
                    owned.add(named);
                    vectors.add(named);
                }
            }
        } catch (RuntimeException e) {
            owned.forEach(FieldVector::close);
            throw e;
        }
        VectorSchemaRoot out = new VectorSchemaRoot(vectors);
        out.setRowCount(root.getRowCount());
        return new Decoded(out, owned);
    }

    /** Arrow's decoder reads an index past the dictionary's end as null (or as another column's bytes): refuse it instead. */
    private static void checkIndices(FieldVector indices, Dictionary dictionary, long firstRow) {
        BaseIntVector ints = (BaseIntVector) indices;
        int size = dictionary.getVector().getValueCount();
        boolean unsigned = !((ArrowType.Int) dictionary.getEncoding().getIndexType()).getIsSigned();
        for (int r = 0; r < indices.getValueCount(); r++) {
            if (indices.isNull(r)) {
                continue;
            }
            long index = ints.getValueAsLong(r);
            if (index < 0 || index >= size) {
                String shown = unsigned && index < 0 ? Long.toUnsignedString(index) : Long.toString(index);
                throw new IllegalArgumentException("column '" + indices.getName() + "' holds the dictionary index " + shown + " at row "
                        + (firstRow + r) + ", but its dictionary (id " + dictionary.getEncoding().getId() + ") has " + size + " values"
                        + (size == 0 ? "" : " (indices 0 to " + (size - 1) + ")") + ": fix the indices or give the dictionary every value");
            }
        }
    }

    record Decoded(VectorSchemaRoot root, List<FieldVector> owned) {
        void release() {
            owned.forEach(FieldVector::close);
        }
    }

    private static Dictionary lookup(DictionaryProvider provider, DictionaryEncoding enc, Field f) {
        Dictionary d = provider == null ? null : provider.lookup(enc.getId());
        if (d == null) {
            throw new IllegalArgumentException("column '" + f.getName() + "' is dictionary-encoded (dictionary id " + enc.getId()
                    + ") but no dictionary was given: pass the DictionaryProvider with write(root, provider), or an ArrowReader");
        }
        return d;
    }
}
