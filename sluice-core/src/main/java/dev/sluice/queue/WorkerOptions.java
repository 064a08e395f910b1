package dev.sluice.queue;

import dev.sluice.time.Arguments;
import java.time.Duration;

/**
 * How a {@link Worker} runs.
 *
 * @param concurrency how many jobs it runs at once, each on its own virtual thread: 1 to 100,000
 * @param autoStart whether it starts taking jobs at once; if not, it runs only when {@link Worker#start()}
 *     or {@link Worker#runDue()} is called (for tests on a {@link dev.sluice.time.ManualClock})
 * @param leaseTime on an engine shared by processes (Redis), how long a job the worker took stays its own
 *     without a renewal: the worker renews it while the job runs, and if the worker dies, freezes or loses its
 *     connection for longer, the job goes back to waiting for another worker (a stall). 1 second to 1 day;
 *     in one process, where a worker cannot vanish, it has no effect
 * @param maxStalls how many stalls a job survives: one more fails it, saying so. 0 to 1,000
 */
public record WorkerOptions(int concurrency, boolean autoStart, Duration leaseTime, int maxStalls) {
    /** The most jobs one worker runs at once. */
    public static final int MAX_CONCURRENCY = 100_000;

    /** The lease time unless one is given: 30 seconds. */
    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

    /** The stalls a job survives unless told otherwise: 1. */
    public static final int DEFAULT_MAX_STALLS = 1;

    /**
     * Validates the options.
     *
     * @throws IllegalArgumentException if {@code concurrency} is not 1 to {@value #MAX_CONCURRENCY}, the lease
     *     time not 1 second to 1 day, or {@code maxStalls} not 0 to 1,000
     */
    public WorkerOptions {
        Arguments.inRange("worker concurrency", concurrency, 1, MAX_CONCURRENCY);
        if (leaseTime == null
                || leaseTime.compareTo(Duration.ofSeconds(1)) < 0
                || leaseTime.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException(
                    "worker lease time must be 1 second to 1 day, was " + Durations.text(leaseTime));
        }
        Arguments.inRange("worker maxStalls", maxStalls, 0, 1_000);
    }

    /**
     * {@code concurrency} jobs at once, starting at once.
     *
     * @param concurrency 1 to {@value #MAX_CONCURRENCY}
     * @return the options
     * @throws IllegalArgumentException if it is outside that range
     */
    public static WorkerOptions concurrency(int concurrency) {
        return new WorkerOptions(concurrency, true, DEFAULT_LEASE_TIME, DEFAULT_MAX_STALLS);
    }

    /**
     * A worker that runs one job at a time only when {@link Worker#runDue()} is called.
     *
     * @return concurrency 1, no auto-start
     */
    public static WorkerOptions manual() {
        return new WorkerOptions(1, false, DEFAULT_LEASE_TIME, DEFAULT_MAX_STALLS);
    }

    /**
     * These options with another start.
     *
     * @param autoStart whether the worker starts taking jobs at once
     * @return the new options
     */
    public WorkerOptions withAutoStart(boolean autoStart) {
        return new WorkerOptions(concurrency, autoStart, leaseTime, maxStalls);
    }

    /**
     * These options with another lease time.
     *
     * @param leaseTime 1 second to 1 day
     * @return the new options
     * @throws IllegalArgumentException if it is outside that range
     */
    public WorkerOptions withLeaseTime(Duration leaseTime) {
        return new WorkerOptions(concurrency, autoStart, leaseTime, maxStalls);
    }

    /**
     * These options with another bound on stalls.
     *
     * @param maxStalls 0 to 1,000
     * @return the new options
     * @throws IllegalArgumentException if it is outside that range
     */
    public WorkerOptions withMaxStalls(int maxStalls) {
        return new WorkerOptions(concurrency, autoStart, leaseTime, maxStalls);
    }
}
