package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.ConcurrencyKeyLimiter;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.KeyLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link RateLimiter#forKey} and {@link ConcurrencyLimiter#forKey}: one key bound for repeated use, sharing the
 * key's permits with the limiter.
 */
public abstract class KeyLimiterContract extends ContractSupport {
    /** For subclasses, one per engine. */
    protected KeyLimiterContract() {}

    @Test
    void decidesExactlyAsTheLimiterWithTheSameKeyWhileSharingItsPermits() {
        for (RatePolicy policy : LEASELESS_POLICIES) {
            playTwins(policy, 2_000, limiter -> {
                KeyLimiter bound = limiter.forKey("k");
                return (reference, permits, random, description) -> {
                    Decision expected = reference.tryAcquire("k", permits);
                    switch (random.nextInt(3)) {
                        case 0 ->
                            assertThat(withoutLease(bound.tryAcquire(permits)))
                                    .as(description)
                                    .isEqualTo(withoutLease(expected));
                        case 1 ->
                            assertThat(bound.tryConsume(permits))
                                    .as(description)
                                    .isEqualTo(expected.allowed());
                        default ->
                            assertThat(withoutLease(limiter.tryAcquire("k", permits)))
                                    .as(description)
                                    .isEqualTo(withoutLease(expected));
                    }
                };
            });
        }
    }

    @Test
    void namesItsLimiterAndKeyAndDefaultsToOnePermit() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(2, Duration.ofSeconds(1)));
        KeyLimiter bound = limiter.forKey("tenant-1");

        assertThat(bound.limiter()).isSameAs(limiter);
        assertThat(bound.key()).isEqualTo("tenant-1");
        assertDecision(bound.tryAcquire(), allowed("api", 2, 1, T0 + 500 * MS));
        assertThat(bound.tryConsume()).isTrue();
        assertThat(bound.tryConsume()).isFalse();
        assertDecision(limiter.tryAcquire("tenant-1"), denied("api", 2, 0, 500 * MS, T0 + SECOND));
        assertThat(limiter.tryAcquire("tenant-2").allowed()).isTrue();
    }

    @Test
    void waitsLikeTheLimiter() throws InterruptedException {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(2, Duration.ofSeconds(1)));
        KeyLimiter bound = limiter.forKey("k");
        bound.tryAcquire(2);

        Decision waited = bound.acquire(1, Duration.ofSeconds(1));

        assertThat(waited.allowed()).isTrue();
        assertThat(clock.nanos()).isEqualTo(T0 + 500 * MS);
        assertThat(bound.acquire(2, Duration.ofMillis(999)).denied()).isTrue();
        assertThat(clock.nanos()).as("gave up at once").isEqualTo(T0 + 500 * MS);
        var later = bound.acquireAsync(1, Duration.ofSeconds(1));
        awaitScheduled(1);
        assertThat(later).isNotDone();
        clock.advance(Duration.ofMillis(500));
        assertThat(settled(later).allowed()).isTrue();
    }

    @Test
    void rejectsBadKeysAndPermits() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(3, Duration.ofSeconds(1)));

        assertRejected(() -> limiter.forKey(null), "key", "null");
        assertRejected(() -> limiter.forKey(""), "key", "empty");
        KeyLimiter bound = limiter.forKey("k");
        assertRejected(() -> bound.tryAcquire(0), "permits", "between 1 and 3", "was 0");
        assertRejected(() -> bound.tryConsume(4), "permits", "between 1 and 3", "was 4");
        assertDecision(bound.tryAcquire(3), allowed("api", 3, 0, T0 + 3 * 333_333_334L));
    }

    @Test
    void aBoundKeyOfAConcurrencyLimiterHoldsTheKeysLeasesWithTheLimiter() {
        ConcurrencyLimiter limiter = engine.concurrencyLimiter("pool", ConcurrencyLimit.of(2, Duration.ofSeconds(5)));
        assertRejected(() -> limiter.forKey(""), "key", "empty");
        ConcurrencyKeyLimiter pool = limiter.forKey("k");
        assertThat(pool.limiter()).isSameAs(limiter);
        assertThat(pool.key()).isEqualTo("k");
        assertRejected(() -> pool.tryAcquire(3), "permits", "between 1 and 2", "was 3");

        Decision lease = pool.tryAcquire();
        assertDecision(lease, allowed("pool", 2, 1, T0 + 5 * SECOND));
        assertThat(limiter.tryAcquire("k").allowed())
                .as("the limiter shares the key's permits")
                .isTrue();
        assertThat(pool.available()).isZero();
        assertThat(pool.peek(1).denied()).isTrue();
        assertThat(pool.tryAcquire().denied()).isTrue();
        assertThat(limiter.tryAcquire("other").allowed())
                .as("another key has its own permits")
                .isTrue();

        assertThat(lease.release()).isTrue();
        assertThat(pool.available()).isEqualTo(1);
        pool.reset();
        assertThat(pool.available()).isEqualTo(2);
    }
}
