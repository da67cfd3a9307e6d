package io.wrangler.commit;

/**
 * A StepHook is told each time a write passes a step of the commit protocol. Tests use it to simulate a
 * crash at every step boundary (by throwing an {@link Error}, which the write does not clean up after,
 * as a killed process would not) or to hold a writer there while others act. Progress is reported to
 * users through {@link io.wrangler.Progress}, not through this hook.
 */
@FunctionalInterface
public interface StepHook {
    StepHook NONE = (step, count) -> { };

    /**
     * @param step the step just reached
     * @param count how many times this step has been reached in this write (1 for the first), for steps
     *     that repeat (staged files, copies, delete batches)
     */
    void reached(Step step, int count);
}
