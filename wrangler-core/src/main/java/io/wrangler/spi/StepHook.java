package io.wrangler.spi;

/**
 * A StepHook is told each time a write passes a step of the commit protocol, for tests: to crash a write at a step (by
 * throwing an {@link Error}, which the write does not clean up after, as a killed process would not) or to hold it there
 * while others act. The one hook type of wrangler: the engine calls it directly, and an engine's tests (and core's own,
 * through the builders' package-private seam) hand it in. The step is the engine's own enum constant (its name is the
 * protocol step's: {@code MANIFEST_WRITTEN}, {@code BEFORE_CLEANUP}, ...; see the state table of the commit protocol),
 * so that a test compares it with the constant it waits for; what the constants are may change in any release.
 * Progress is reported to users through {@link io.wrangler.Progress}, not through this hook.
 */
@FunctionalInterface
public interface StepHook {
    /** Told nothing. */
    StepHook NONE = (step, count) -> { };

    /**
     * @param step the step just reached
     * @param count how many times this step has been reached in this write (1 for the first)
     */
    void reached(Enum<?> step, int count);
}
