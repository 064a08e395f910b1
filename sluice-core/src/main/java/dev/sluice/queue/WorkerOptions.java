package dev.sluice.queue;

/**
 * How a {@link Worker} runs.
 *
 * @param concurrency how many jobs it runs at once, each on its own virtual thread: 1 to 100,000
 * @param autoStart whether it starts taking jobs at once; if not, it runs only when {@link Worker#start()}
 *     or {@link Worker#runDue()} is called (for tests on a {@link dev.sluice.time.ManualClock})
 */
public record WorkerOptions(int concurrency, boolean autoStart) {
    /** The most jobs one worker runs at once. */
    public static final int MAX_CONCURRENCY = 100_000;

    /**
     * Validates the concurrency.
     *
     * @throws IllegalArgumentException if {@code concurrency} is not 1 to {@value #MAX_CONCURRENCY}
     */
    public WorkerOptions {
        Durations.inRange("worker concurrency", concurrency, 1, MAX_CONCURRENCY);
    }

    /**
     * {@code concurrency} jobs at once, starting at once.
     *
     * @param concurrency 1 to {@value #MAX_CONCURRENCY}
     * @return the options
     * @throws IllegalArgumentException if it is outside that range
     */
    public static WorkerOptions concurrency(int concurrency) {
        return new WorkerOptions(concurrency, true);
    }

    /**
     * A worker that runs one job at a time only when {@link Worker#runDue()} is called.
     *
     * @return concurrency 1, no auto-start
     */
    public static WorkerOptions manual() {
        return new WorkerOptions(1, false);
    }

    /**
     * These options with another start.
     *
     * @param autoStart whether the worker starts taking jobs at once
     * @return the new options
     */
    public WorkerOptions withAutoStart(boolean autoStart) {
        return new WorkerOptions(concurrency, autoStart);
    }
}
