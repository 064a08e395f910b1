package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.testkit.ContractSupport;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The same random history of (advance the clock, key, permits) on both engines gives the same decisions, to the
 * nanosecond: the Redis scripts are the in-memory algorithms, not an approximation of them.
 */
class RedisDifferentialTest {
    private static final List<LimitPolicy> POLICIES = List.of(
            TokenBucket.of(5, 3, Duration.ofSeconds(1)),
            TokenBucket.of(1_000_000_000_000L, 333_333_333, Duration.ofMillis(1_000)),
            Gcra.of(7, Duration.ofMillis(100), 3),
            FixedWindow.of(6, Duration.ofMillis(333)),
            FixedWindow.of(1_000, Duration.ofDays(30)),
            SlidingWindowCounter.of(7, Duration.ofNanos(999_999_937)),
            SlidingWindowCounter.of(1_000_000_000_000L, Duration.ofDays(26)),
            SlidingWindowLog.of(9, Duration.ofMillis(250)),
            ConcurrencyLimit.of(4, Duration.ofMillis(150)));

    @Property(tries = 40)
    void everyDecisionMatchesTheInMemoryEngine(@ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        LimitPolicy policy = POLICIES.get(random.nextInt(POLICIES.size()));
        ManualClock clock = new ManualClock(
                Instant.parse("2026-11-30T12:34:56.123456789Z").plusNanos(random.nextLong(1_000_000_000_000L)));
        try (Sluice memory = Sluice.inMemory(clock);
                Sluice redis = TestEngines.on(clock)) {
            NamedLimiter expected = ContractSupport.limiterOf(memory, "diff", policy);
            NamedLimiter actual = ContractSupport.limiterOf(redis, "diff", policy);
            List<Decision[]> held = new ArrayList<>();
            for (int step = 0; step < 150; step++) {
                clock.advance(Duration.ofNanos(advance(random, policy)));
                String key = "k" + random.nextInt(3);
                long permits = 1 + random.nextLong(Math.min(policy.limit(), 4));
                String where = "step " + step + " of seed " + seed + ", " + policy + ", " + key + " x" + permits;
                int operation = random.nextInt(12);
                if (operation == 0) {
                    assertSame(actual.peek(key, permits), expected.peek(key, permits), where + ", peek");
                    continue;
                }
                if (operation == 1
                        && expected instanceof RateLimiter memoryRates
                        && actual instanceof RateLimiter redisRates) {
                    memoryRates.refund(key, permits);
                    redisRates.refund(key, permits);
                    assertThat(actual.available(key)).as(where + ", refund").isEqualTo(expected.available(key));
                    continue;
                }
                if (operation == 2 && random.nextInt(4) == 0) {
                    expected.reset(key);
                    actual.reset(key);
                    continue;
                }
                Decision want = expected.tryAcquire(key, permits);
                Decision got = actual.tryAcquire(key, permits);
                assertSame(got, want, where);
                if (want.allowed() && want.lease() != dev.sluice.limit.Lease.none()) {
                    held.add(new Decision[] {want, got});
                }
                if (!held.isEmpty() && random.nextInt(3) == 0) {
                    Decision[] pair = held.remove(random.nextInt(held.size()));
                    assertThat(pair[1].release()).as("release at step " + step).isEqualTo(pair[0].release());
                }
            }
        }
    }

    @Property(tries = 15)
    void chainsMatchTheInMemoryEngine(@ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        ManualClock clock = new ManualClock(Instant.parse("2026-11-30T00:00:00Z"));
        try (Sluice memory = Sluice.inMemory(clock);
                Sluice redis = TestEngines.on(clock)) {
            LimitChain<String> expected = chain(memory);
            LimitChain<String> actual = chain(redis);
            for (int step = 0; step < 150; step++) {
                clock.advance(Duration.ofNanos(random.nextLong(40_000_000)));
                String tenant = "t" + random.nextInt(3);
                long permits = 1 + random.nextInt(2);
                assertSame(
                        actual.tryAcquire(tenant, permits), expected.tryAcquire(tenant, permits), "chain step " + step);
            }
        }
    }

    private static LimitChain<String> chain(Sluice engine) {
        RateLimiter tenant = engine.limiter("tenant", TokenBucket.of(4, 10, Duration.ofSeconds(1)));
        RateLimiter global = engine.limiter("global", SlidingWindowLog.of(6, Duration.ofMillis(200)));
        return engine.<String>chain().layer(tenant, t -> t).layer(global, "all").build();
    }

    /** Mostly small steps, sometimes one nanosecond, sometimes past the policy's whole span. */
    private static long advance(SplittableRandom random, LimitPolicy policy) {
        long span = switch (policy) {
            case TokenBucket bucket -> bucket.nanosPerPermit() * 3;
            case Gcra gcra -> gcra.nanosPerPermit() * 3;
            case FixedWindow window -> window.window().toNanos();
            case SlidingWindowCounter window -> window.window().toNanos();
            case SlidingWindowLog log -> log.window().toNanos();
            case ConcurrencyLimit leases -> leases.leaseTimeout().toNanos();
            case AdaptiveRate adaptive -> throw new IllegalArgumentException("no limiter takes " + adaptive);
        };
        return switch (random.nextInt(6)) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> span + random.nextLong(span);
            default -> random.nextLong(Math.max(1, span / 4));
        };
    }

    private static void assertSame(Decision actual, Decision expected, String where) {
        assertThat(actual.allowed()).as(where + ": allowed").isEqualTo(expected.allowed());
        assertThat(actual.remaining()).as(where + ": remaining").isEqualTo(expected.remaining());
        assertThat(actual.limit()).as(where + ": limit").isEqualTo(expected.limit());
        assertThat(actual.retryAfterNanos()).as(where + ": retryAfter").isEqualTo(expected.retryAfterNanos());
        assertThat(actual.resetAtNanos()).as(where + ": resetAt").isEqualTo(expected.resetAtNanos());
        assertThat(actual.limiter()).as(where + ": limiter").isEqualTo(expected.limiter());
        assertThat(actual.basis()).as(where + ": basis").isEqualTo(expected.basis());
    }
}
