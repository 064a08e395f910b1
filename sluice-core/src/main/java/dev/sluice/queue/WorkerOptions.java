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
     * One job at a time, starting at once, with the default lease time and stalls.
     *
     * @return the defaults, always equal
     */
    public static WorkerOptions defaults() {
        return builder().build();
    }

    /**
     * {@code concurrency} jobs at once, starting at once: {@code builder().concurrency(concurrency).build()}.
     *
     * @param concurrency 1 to {@value #MAX_CONCURRENCY}
     * @return the options
     * @throws IllegalArgumentException if it is outside that range
     */
    public static WorkerOptions concurrency(int concurrency) {
        return builder().concurrency(concurrency).build();
    }

    /**
     * A worker that runs one job at a time only when {@link Worker#runDue()} is called: {@code
     * builder().autoStart(false).build()}.
     *
     * @return concurrency 1, no auto-start
     */
    public static WorkerOptions manual() {
        return builder().autoStart(false).build();
    }

    /**
     * A builder starting from the {@link #defaults()}.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding these options, to make a variant.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return new Builder()
                .concurrency(concurrency)
                .autoStart(autoStart)
                .leaseTime(leaseTime)
                .maxStalls(maxStalls);
    }

    /** Builds {@link WorkerOptions}; each value is checked by {@link #build()}. */
    public static final class Builder {
        private int concurrency = 1;
        private boolean autoStart = true;
        private Duration leaseTime = DEFAULT_LEASE_TIME;
        private int maxStalls = DEFAULT_MAX_STALLS;

        private Builder() {}

        /**
         * How many jobs the worker runs at once; 1 by default.
         *
         * @param concurrency 1 to {@value #MAX_CONCURRENCY}
         * @return this builder
         */
        public Builder concurrency(int concurrency) {
            this.concurrency = concurrency;
            return this;
        }

        /**
         * Whether the worker starts taking jobs at once; true by default.
         *
         * @param autoStart false to start it with {@link Worker#start()} or run it with {@link Worker#runDue()}
         * @return this builder
         */
        public Builder autoStart(boolean autoStart) {
            this.autoStart = autoStart;
            return this;
        }

        /**
         * How long a job the worker took stays its own without a renewal; {@link #DEFAULT_LEASE_TIME} by default.
         *
         * @param leaseTime 1 second to 1 day
         * @return this builder
         */
        public Builder leaseTime(Duration leaseTime) {
            this.leaseTime = leaseTime;
            return this;
        }

        /**
         * How many stalls a job survives; {@link #DEFAULT_MAX_STALLS} by default.
         *
         * @param maxStalls 0 to 1,000
         * @return this builder
         */
        public Builder maxStalls(int maxStalls) {
            this.maxStalls = maxStalls;
            return this;
        }

        /**
         * The options.
         *
         * @return the options
         * @throws IllegalArgumentException as {@link WorkerOptions#WorkerOptions}
         */
        public WorkerOptions build() {
            return new WorkerOptions(concurrency, autoStart, leaseTime, maxStalls);
        }
    }
}
