package dev.sluice.queue;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.LimitPolicy;

/**
 * The limits on one group's jobs: how fast they may start, how many may run at once, and how many may wait.
 *
 * @param rate how often the group's jobs may start (any policy but {@link ConcurrencyLimit}); {@code null}
 *     for no rate limit
 * @param concurrency how many of the group's jobs may run at once, 1 to {@link Integer#MAX_VALUE}
 * @param maxWaiting how many of the group's jobs may be waiting or delayed at once, 1 to {@link
 *     Integer#MAX_VALUE}; an add past it is treated as the queue's {@link QueueOptions#whenFull()} says, so one
 *     tenant cannot fill the whole queue and get the others' adds refused
 */
public record GroupLimits(LimitPolicy rate, int concurrency, int maxWaiting) {
    private static final GroupLimits NONE = new GroupLimits(null, Integer.MAX_VALUE, Integer.MAX_VALUE);

    /**
     * Validates the limits.
     *
     * @param rate any policy but {@link ConcurrencyLimit}; {@code null} for no rate limit
     * @param concurrency 1 to {@link Integer#MAX_VALUE}
     * @param maxWaiting 1 to {@link Integer#MAX_VALUE}
     * @throws IllegalArgumentException if the rate is a concurrency limit, or a count is below 1
     */
    public GroupLimits {
        QueueOptions.checkRate("group rate", rate);
        Durations.inRange("group concurrency", concurrency, 1, Integer.MAX_VALUE);
        Durations.inRange("group maxWaiting", maxWaiting, 1, Integer.MAX_VALUE);
    }

    /**
     * A rate and a concurrency, with no bound on waiting jobs.
     *
     * @param rate any policy but {@link ConcurrencyLimit}; {@code null} for no rate limit
     * @param concurrency 1 to {@link Integer#MAX_VALUE}
     * @throws IllegalArgumentException if the rate is a concurrency limit, or the concurrency is below 1
     */
    public GroupLimits(LimitPolicy rate, int concurrency) {
        this(rate, concurrency, Integer.MAX_VALUE);
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
     * These limits with another rate.
     *
     * @param rate any policy but {@link ConcurrencyLimit}; {@code null} for no rate limit
     * @return the new limits
     * @throws IllegalArgumentException if the rate is a concurrency limit
     */
    public GroupLimits withRate(LimitPolicy rate) {
        return new GroupLimits(rate, concurrency, maxWaiting);
    }

    /**
     * These limits with another concurrency.
     *
     * @param concurrency 1 to {@link Integer#MAX_VALUE}
     * @return the new limits
     * @throws IllegalArgumentException if it is below 1
     */
    public GroupLimits withConcurrency(int concurrency) {
        return new GroupLimits(rate, concurrency, maxWaiting);
    }

    /**
     * These limits with another bound on waiting and delayed jobs.
     *
     * @param maxWaiting 1 to {@link Integer#MAX_VALUE}
     * @return the new limits
     * @throws IllegalArgumentException if it is below 1
     */
    public GroupLimits withMaxWaiting(int maxWaiting) {
        return new GroupLimits(rate, concurrency, maxWaiting);
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
                .addBound("maxWaiting", maxWaiting)
                .toString();
    }
}
