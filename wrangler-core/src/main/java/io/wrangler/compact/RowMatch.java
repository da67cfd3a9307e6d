package io.wrangler.compact;

import java.util.BitSet;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A RowMatch is the exact test a delete of rows applies to each row it reads: the rows it matches are deleted. It is
 * built from the public predicate ({@code keys(column, values)}, or a row filter), never a predicate type of its own.
 */
public interface RowMatch {
    /** The columns the test reads, as the caller named them. */
    List<String> columns();

    /**
     * Refuses a test the table's columns cannot answer (a column it lacks, values of another type): a message saying
     * what is wrong and what to do, or null when the test can run on {@code table}'s rows.
     */
    String refusal(Schema table);

    /** Sets in {@code matched} (cleared first) each row of {@code batch} that the test matches. */
    void match(VectorSchemaRoot batch, BitSet matched);

    /** The test as the user gave it, for messages and logs. */
    String describe();
}
