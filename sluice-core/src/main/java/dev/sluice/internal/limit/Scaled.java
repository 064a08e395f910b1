package dev.sluice.internal.limit;

import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.RatePolicy;

/**
 * A rate policy run at a share of itself, as {@link AdaptiveRate#scaledTo} runs an adaptive rate's ceiling: its rate
 * (and a bucket's burst, a window's limit) multiplied by the share, rounded down but never below one permit. What a
 * rate recovering from a pause enforces during its ramp, and a process's part of a shared limit while Redis is out of
 * reach.
 */
public final class Scaled {
    private Scaled() {}

    /** {@code policy} at {@code share} (0 to 1) of itself; the policy itself at 1 or more. */
    public static RatePolicy rate(RatePolicy policy, double share) {
        if (share >= 1) {
            return policy;
        }
        AdaptiveRate adaptive = policy instanceof AdaptiveRate a ? a : AdaptiveRate.of(policy);
        return adaptive.scaledTo(policy.perSecond() * share);
    }

    /** {@code permits} times {@code share}, rounded down, at least one. */
    public static long part(long permits, double share) {
        return Math.max(1, (long) Math.floor(permits * share));
    }
}
