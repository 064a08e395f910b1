package dev.sluice.redis.internal;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;

/**
 * The policies {@link HammerMain} children hammer, one limiter each, named after the constant; the parent
 * ({@link ManyProcessesTest}) passes the constants' names and checks the grants against the same policies.
 */
enum HammerPolicy {
    TOKEN_BUCKET(TokenBucket.of(20, 50, Duration.ofSeconds(1))),
    SLIDING_WINDOW_LOG(SlidingWindowLog.of(30, Duration.ofMillis(200))),
    FIXED_WINDOW(FixedWindow.of(30, Duration.ofMillis(200))),
    GCRA(Gcra.of(50, Duration.ofSeconds(1), 20)),
    SLIDING_WINDOW_COUNTER(SlidingWindowCounter.of(30, Duration.ofMillis(200))),
    /** Leases are held {@link #HOLD} then released; they expire long after the run, so none does. */
    CONCURRENCY(ConcurrencyLimit.of(4, Duration.ofSeconds(60)));

    /** How long a child holds a {@link #CONCURRENCY} lease before releasing it. */
    static final Duration HOLD = Duration.ofMillis(20);

    final LimitPolicy policy;

    HammerPolicy(LimitPolicy policy) {
        this.policy = policy;
    }
}
