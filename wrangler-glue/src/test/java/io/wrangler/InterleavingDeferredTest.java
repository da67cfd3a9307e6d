package io.wrangler;

import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.provider.Arguments;

/** {@link InterleavingTest}'s cases of writes by deferred uploads. */
@Execution(ExecutionMode.CONCURRENT)
class InterleavingDeferredTest extends InterleavingTest {
    static Stream<Arguments> cases() {
        return casesOf(CommitMethod.DEFERRED_UPLOADS);
    }
}
