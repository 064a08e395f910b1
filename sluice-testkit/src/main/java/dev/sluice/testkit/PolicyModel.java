package dev.sluice.testkit;

import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.Lease;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The reference model of {@link RateLimiterProperties}: what the policies' documentation says, for one key,
 * written for clarity rather than speed. Time never goes backwards; nothing is evicted.
 */
abstract class PolicyModel {
    /** A nanosecond span longer than any retry-after of the generated policies. */
    static final long HORIZON = 1_000_000;

    final long limit;

    PolicyModel(long limit) {
        this.limit = limit;
    }

    static PolicyModel of(LimitPolicy policy) {
        return switch (policy) {
            case TokenBucket bucket -> new BucketModel(bucket.capacity(), bucket.nanosPerPermit());
            case Gcra gcra -> new BucketModel(gcra.burst(), gcra.nanosPerPermit());
            case FixedWindow window ->
                new FixedWindowModel(window.limit(), window.window().toNanos());
            case SlidingWindowCounter window ->
                new SlidingCounterModel(window.limit(), window.window().toNanos());
            case SlidingWindowLog log ->
                new SlidingLogModel(log.limit(), log.window().toNanos());
            case ConcurrencyLimit concurrency ->
                new LeaseModel(
                        concurrency.maxConcurrent(), concurrency.leaseTimeout().toNanos());
            case AdaptiveRate adaptive ->
                throw new IllegalArgumentException("limiters take no adaptive rate: " + adaptive);
        };
    }

    /** Whether {@code permits} would be granted at {@code now}. */
    abstract boolean allows(long now, long permits);

    /** Records a grant of {@code permits} at {@code now}. */
    abstract void grant(long now, long permits);

    /** Records that the lease granted at {@code grantedAt} was released at {@code now}, if it was live. */
    void release(long grantedAt, long permits, long now) {}

    /** The most permits one request could take at {@code now}. */
    final long available(long now) {
        long k = 0;
        while (k < limit && allows(now, k + 1)) {
            k++;
        }
        return k;
    }

    /** The decision for {@code permits} at {@code now}, recording the grant if allowed. */
    final Decision decide(long now, long permits) {
        boolean allowed = allows(now, permits);
        if (allowed) {
            grant(now, permits);
        }
        long retryAfter = allowed ? 0 : firstInstant(now + 1, t -> allows(t, permits)) - now;
        long resetAt = firstInstant(now, t -> available(t) == limit);
        return new Decision(allowed, available(now), limit, retryAfter, resetAt, "prop", Lease.none());
    }

    /** The first instant from {@code from} at which {@code condition} holds; it must stay true after. */
    private static long firstInstant(long from, java.util.function.LongPredicate condition) {
        long low = from;
        long high = from + HORIZON;
        if (!condition.test(high)) {
            throw new AssertionError("the model never allows within " + HORIZON + " ns of " + from);
        }
        while (low < high) {
            long mid = low + (high - low) / 2;
            if (condition.test(mid)) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        return low;
    }

    /**
     * Token bucket and GCRA: the bucket is full again at {@code fullAt}; at {@code t} it lacks {@code fullAt −
     * t} ns of refill, and a request for {@code n} is allowed while that plus {@code n × interval} is at most
     * {@code capacity × interval}.
     */
    static final class BucketModel extends PolicyModel {
        final long interval;
        long fullAt = Long.MIN_VALUE / 2;

        BucketModel(long capacity, long interval) {
            super(capacity);
            this.interval = interval;
        }

        long lacking(long now) {
            return Math.max(0, fullAt - now);
        }

        @Override
        boolean allows(long now, long permits) {
            return lacking(now) + permits * interval <= limit * interval;
        }

        @Override
        void grant(long now, long permits) {
            fullAt = now + lacking(now) + permits * interval;
        }
    }

    /** A count per epoch-aligned window. */
    static final class FixedWindowModel extends PolicyModel {
        final long window;
        final Map<Long, Long> counts = new HashMap<>();

        FixedWindowModel(long limit, long window) {
            super(limit);
            this.window = window;
        }

        @Override
        boolean allows(long now, long permits) {
            return counts.getOrDefault(Math.floorDiv(now, window), 0L) + permits <= limit;
        }

        @Override
        void grant(long now, long permits) {
            counts.merge(Math.floorDiv(now, window), permits, Long::sum);
        }
    }

    /** Counts per aligned window; allowed while {@code previous × (w − e) / w + current + n ≤ limit}, exactly. */
    static final class SlidingCounterModel extends PolicyModel {
        final long window;
        final Map<Long, Long> counts = new HashMap<>();

        SlidingCounterModel(long limit, long window) {
            super(limit);
            this.window = window;
        }

        @Override
        boolean allows(long now, long permits) {
            long index = Math.floorDiv(now, window);
            long elapsed = now - index * window;
            long previous = counts.getOrDefault(index - 1, 0L);
            long current = counts.getOrDefault(index, 0L);
            return previous * (window - elapsed) + (current + permits) * window <= limit * window;
        }

        @Override
        void grant(long now, long permits) {
            counts.merge(Math.floorDiv(now, window), permits, Long::sum);
        }
    }

    /** Every grant, counted against the instants before {@code grant + window}. */
    static final class SlidingLogModel extends PolicyModel {
        final long window;
        final List<long[]> grants = new ArrayList<>();

        SlidingLogModel(long limit, long window) {
            super(limit);
            this.window = window;
        }

        @Override
        boolean allows(long now, long permits) {
            long counted = grants.stream()
                    .filter(g -> g[0] + window > now)
                    .mapToLong(g -> g[1])
                    .sum();
            return counted + permits <= limit;
        }

        @Override
        void grant(long now, long permits) {
            grants.add(new long[] {now, permits});
        }
    }

    /** Leases held until released or expired. */
    static final class LeaseModel extends PolicyModel {
        final long timeout;
        final List<long[]> leases = new ArrayList<>(); // {grantedAt, permits, releasedAt}

        LeaseModel(long limit, long timeout) {
            super(limit);
            this.timeout = timeout;
        }

        @Override
        boolean allows(long now, long permits) {
            long held = leases.stream()
                    .filter(l -> l[0] + timeout > now && l[2] > now)
                    .mapToLong(l -> l[1])
                    .sum();
            return held + permits <= limit;
        }

        @Override
        void grant(long now, long permits) {
            leases.add(new long[] {now, permits, Long.MAX_VALUE});
        }

        @Override
        void release(long grantedAt, long permits, long now) {
            for (long[] lease : leases) {
                if (lease[0] == grantedAt
                        && lease[1] == permits
                        && lease[2] == Long.MAX_VALUE
                        && lease[0] + timeout > now) {
                    lease[2] = now;
                    return;
                }
            }
        }
    }
}
