package io.wrangler;

import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.provider.Arguments;

/** {@link InterleavingTest}'s cases of overwrites of the table, writes by staged copies. */
@Execution(ExecutionMode.CONCURRENT)
class InterleavingStagedOverwriteTest extends InterleavingTest {
    static Stream<Arguments> cases() {
        return casesOf(Kind.OVERWRITE, CommitMethod.STAGE_AND_COPY);
    }
}
