package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limit.Decision;
import dev.sluice.limit.KeyLimiter;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@link Limits#bind}, the key-bound limiter of engines that keep no state per bound key (the Redis engine's
 * {@code forKey}), and {@link InMemoryLimiters#share}, the limiter a Redis engine falls back on: both on in-memory
 * limiters here, since they take any {@link RateLimiter}.
 */
class LimitsBindTest {
    private static final long MS = 1_000_000L;

    private final ManualClock clock = new ManualClock();
    private final InMemoryLimiters limiters =
            new InMemoryLimiters("engine", clock, new EngineListeners("engine", () -> false));
    /** 2 permits, one back every 500 ms. */
    private final RateLimiter limiter =
            limiters.limiter("api", TokenBucket.of(2, Duration.ofSeconds(1)), LimiterOptions.defaults());

    @Test
    void aBoundKeyNamesItsLimiterAndKey() {
        KeyLimiter bound = Limits.bind(limiter, "k");

        assertThat(bound.limiter()).isSameAs(limiter);
        assertThat(bound.key()).isEqualTo("k");
        assertThat(bound).hasToString("KeyLimiter[api, k]");
    }

    @Test
    void aBoundKeyTakesTheKeysPermitsFromItsLimiter() {
        KeyLimiter bound = Limits.bind(limiter, "k");

        Decision first = bound.tryAcquire(1);
        assertThat(first.allowed()).isTrue();
        assertThat(first.remaining()).isEqualTo(1);
        assertThat(bound.tryConsume(1)).isTrue();
        assertThat(bound.tryConsume(1)).isFalse();
        assertThat(bound.tryAcquire(1).allowed()).isFalse();

        assertThat(limiter.available("k")).isZero();
        assertThat(limiter.available("other")).isEqualTo(2);
    }

    @Test
    void aBoundKeyWaitsOnItsLimitersClock() throws Exception {
        KeyLimiter bound = Limits.bind(limiter, "k");
        bound.tryAcquire(2);
        long start = clock.nanos();

        assertThat(bound.acquire(1, Duration.ofSeconds(1)).allowed()).isTrue();
        assertThat(clock.nanos()).isEqualTo(start + 500 * MS);
        CompletableFuture<Decision> later = bound.acquireAsync(1, Duration.ofSeconds(1));
        assertThat(later).isNotDone();
        clock.advance(Duration.ofMillis(500));
        assertThat(later.get().allowed()).isTrue();
    }

    @Test
    void aKeyIsCheckedWhenItIsBound() {
        assertThatThrownBy(() -> Limits.bind(limiter, ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> Limits.bind(limiter, "k".repeat(RateLimiter.MAX_KEY_LENGTH + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("513 characters");
    }

    @Test
    void aShareIsTheLimiterOfItsNameChangedToThePolicyAskedForKeepingWhatKeysUsed() {
        RateLimiter share = (RateLimiter) limiters.share("fallback", TokenBucket.of(2, Duration.ofSeconds(1)));
        assertThat(share.policy()).isEqualTo(TokenBucket.of(2, Duration.ofSeconds(1)));
        assertThat(share.options()).isEqualTo(LimiterOptions.defaults());
        share.tryAcquire("k", 2);

        assertThat(limiters.share("fallback", TokenBucket.of(2, Duration.ofSeconds(1))))
                .isSameAs(share);
        assertThat(share.available("k")).as("the same policy changes nothing").isZero();

        RateLimiter bigger = (RateLimiter) limiters.share("fallback", TokenBucket.of(4, Duration.ofSeconds(1)));

        assertThat(bigger).isSameAs(share);
        assertThat(bigger.policy()).isEqualTo(TokenBucket.of(4, Duration.ofSeconds(1)));
        // 500 ms of debt at 2 per second is 2 permits at 4 per second: 2 of 4 left.
        assertThat(bigger.available("k")).isEqualTo(2);
    }

    @Test
    void noShareIsMadeOnceTheLimitersAreClosed() {
        limiters.close();

        assertThatThrownBy(() -> limiters.share("fallback", TokenBucket.of(2, Duration.ofSeconds(1))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("engine is closed");
    }
}
