package dev.sluice.queue;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.LimitPolicy;

/**
 * The limits on one group's jobs: how fast they may start, and how many may run at once.
 *
 * @param rate how often the group's jobs may start (any policy but {@link ConcurrencyLimit}); {@code null}
 *     for no rate limit
 * @param concurrency how many of the group's jobs may run at once, 1 to {@link Integer#MAX_VALUE}
 */
public record GroupLimits(LimitPolicy rate, int concurrency) {
    private static final GroupLimits NONE = new GroupLimits(null, Integer.MAX_VALUE);

    /** Validates: the rate is not a concurrency policy, the concurrency is positive. */
    public GroupLimits {
        QueueOptions.checkRate("group rate", rate);
        Durations.inRange("group concurrency", concurrency, 1, Integer.MAX_VALUE);
    }

    /** No limits. */
    public static GroupLimits none() {
        return NONE;
    }

    /** These limits with another rate ({@code null}: none). */
    public GroupLimits withRate(LimitPolicy rate) {
        return new GroupLimits(rate, concurrency);
    }

    /** These limits with another concurrency. */
    public GroupLimits withConcurrency(int concurrency) {
        return new GroupLimits(rate, concurrency);
    }
}
