package dev.sluice.queue;

import dev.sluice.limit.RatePolicy;
import dev.sluice.time.Arguments;

/**
 * The limits on one group's jobs: how fast they may start, how many may run at once, and how many may wait.
 *
 * @param rate how often the group's jobs may start; {@code null} for no rate limit
 * @param concurrency how many of the group's jobs may run at once, 1 to {@link Integer#MAX_VALUE}
 * @param maxQueued how many of the group's jobs may be waiting or delayed at once, 1 to {@link
 *     Integer#MAX_VALUE}; an add past it is treated as the queue's {@link QueueOptions#whenFull()} says, so one
 *     tenant cannot fill the whole queue and get the others' adds refused
 */
public record GroupLimits(RatePolicy rate, int concurrency, int maxQueued) {
    private static final GroupLimits NONE = new GroupLimits(null, Integer.MAX_VALUE, Integer.MAX_VALUE);

    /**
     * Validates the limits.
     *
     * @param rate the rate; {@code null} for no rate limit
     * @param concurrency 1 to {@link Integer#MAX_VALUE}
     * @param maxQueued 1 to {@link Integer#MAX_VALUE}
     * @throws IllegalArgumentException if a count is below 1
     */
    public GroupLimits {
        Arguments.inRange("group concurrency", concurrency, 1, Integer.MAX_VALUE);
        Arguments.inRange("group maxQueued", maxQueued, 1, Integer.MAX_VALUE);
    }

    /**
     * No limits.
     *
     * @return no rate, and {@link Integer#MAX_VALUE} for the concurrency and the bound
     */
    public static GroupLimits none() {
        return NONE;
    }

    /**
     * A builder starting from {@link #none()}.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding these limits, to make a variant.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return new Builder().rate(rate).concurrency(concurrency).maxQueued(maxQueued);
    }

    /**
     * The limits, for people.
     *
     * @return {@code GroupLimits.none()}, or the limits that are set, such as {@code GroupLimits{rate=...,
     *     concurrency=4}}
     */
    @Override
    public String toString() {
        if (equals(NONE)) {
            return "GroupLimits.none()";
        }
        return new ToString("GroupLimits")
                .add("rate", rate)
                .addBound("concurrency", concurrency)
                .addBound("maxQueued", maxQueued)
                .toString();
    }

    /** Builds {@link GroupLimits}; each value is checked by {@link #build()}. */
    public static final class Builder {
        private RatePolicy rate;
        private int concurrency = Integer.MAX_VALUE;
        private int maxQueued = Integer.MAX_VALUE;

        private Builder() {}

        /**
         * How often the group's jobs may start; none by default.
         *
         * @param rate the rate; {@code null} for no rate limit
         * @return this builder
         */
        public Builder rate(RatePolicy rate) {
            this.rate = rate;
            return this;
        }

        /**
         * How many of the group's jobs may run at once; no bound by default.
         *
         * @param concurrency 1 to {@link Integer#MAX_VALUE}
         * @return this builder
         */
        public Builder concurrency(int concurrency) {
            this.concurrency = concurrency;
            return this;
        }

        /**
         * How many of the group's jobs may be waiting or delayed at once; no bound by default.
         *
         * @param maxQueued 1 to {@link Integer#MAX_VALUE}
         * @return this builder
         */
        public Builder maxQueued(int maxQueued) {
            this.maxQueued = maxQueued;
            return this;
        }

        /**
         * The limits.
         *
         * @return the limits
         * @throws IllegalArgumentException if a count is below 1
         */
        public GroupLimits build() {
            return new GroupLimits(rate, concurrency, maxQueued);
        }
    }
}
