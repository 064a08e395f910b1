package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code acquire} and {@code acquireAsync}: wait for the reported retry-after, on the engine's clock, and
 * give up at once when the wait exceeds the timeout. On a manual clock a blocking wait advances the clock
 * and an asynchronous one completes when the clock is advanced.
 */
public abstract class WaitingContract extends ContractSupport {
    /** For subclasses, one per engine. */
    protected WaitingContract() {}

    /** 10 permits, one back every 100 ms. */
    private RateLimiter emptyBucket() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(10, 10, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 10);
        return limiter;
    }

    @Test
    void acquireReturnsAtOnceWithoutMovingTheClockWhenPermitsAreAvailable() throws InterruptedException {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(10, 10, Duration.ofSeconds(1)));

        assertDecision(limiter.acquire("k", 4, Duration.ofSeconds(1)), allowed("api", 10, 6, T0 + 400 * MS));
        assertThat(clock.nanos()).isEqualTo(T0);
    }

    @Test
    void acquireWaitsExactlyTheRetryAfterAndReturnsTheGrant() throws InterruptedException {
        RateLimiter limiter = emptyBucket();

        assertDecision(limiter.acquire("k", 1, Duration.ofSeconds(1)), allowed("api", 10, 0, T0 + 1100 * MS));
        assertThat(clock.nanos()).isEqualTo(T0 + 100 * MS);
    }

    @Test
    void acquireWaitsWhenTheTimeoutEqualsTheWait() throws InterruptedException {
        RateLimiter limiter = emptyBucket();

        assertDecision(limiter.acquire("k", 3, Duration.ofMillis(300)), allowed("api", 10, 0, T0 + 1300 * MS));
        assertThat(clock.nanos()).isEqualTo(T0 + 300 * MS);
    }

    @Test
    void acquireGivesUpAtOnceWhenTheWaitExceedsTheTimeout() throws InterruptedException {
        RateLimiter limiter = emptyBucket();

        Decision decision = limiter.acquire("k", 1, Duration.ofNanos(100 * MS - 1));

        assertDecision(decision, denied("api", 10, 0, 100 * MS, T0 + SECOND));
        assertThat(clock.nanos()).as("gave up without waiting").isEqualTo(T0);
        clock.advance(Duration.ofMillis(100));
        assertDecision(limiter.tryAcquire("k"), allowed("api", 10, 0, T0 + 1100 * MS));
    }

    @Test
    void acquireWithZeroTimeoutIsTryAcquire() throws InterruptedException {
        RateLimiter limiter = emptyBucket();

        assertDecision(limiter.acquire("k", 1, Duration.ZERO), denied("api", 10, 0, 100 * MS, T0 + SECOND));
        assertThat(clock.nanos()).isEqualTo(T0);
        clock.advance(Duration.ofMillis(100));
        assertDecision(limiter.acquire("k", 1, Duration.ZERO), allowed("api", 10, 0, T0 + 1100 * MS));
    }

    @Test
    void acquireWaitsForTheWholeCostOfAWeightedRequest() throws InterruptedException {
        RateLimiter limiter = emptyBucket();

        assertDecision(limiter.acquire("k", 5, Duration.ofSeconds(1)), allowed("api", 10, 0, T0 + 1500 * MS));
        assertThat(clock.nanos()).isEqualTo(T0 + 500 * MS);
    }

    @Test
    void acquireWaitsUntilTheNextFixedWindow() throws InterruptedException {
        RateLimiter limiter = engine.limiter("fw", FixedWindow.of(2, Duration.ofSeconds(1)));
        clock.advance(Duration.ofMillis(400));
        limiter.tryAcquire("k", 2);

        assertDecision(limiter.acquire("k", 1, Duration.ofMillis(600)), allowed("fw", 2, 1, T0 + 2 * SECOND));
        assertThat(clock.nanos()).isEqualTo(T0 + SECOND);
    }

    @Test
    void acquireWaitsUntilAConcurrencyLeaseExpires() throws InterruptedException {
        ConcurrencyLimiter limiter = engine.concurrencyLimiter("conc", ConcurrencyLimit.of(1, Duration.ofMillis(100)));
        limiter.tryAcquire("k");

        Decision decision = limiter.acquire("k", 1, Duration.ofSeconds(1));

        assertDecision(decision, allowed("conc", 1, 0, T0 + 200 * MS));
        assertThat(clock.nanos()).isEqualTo(T0 + 100 * MS);
        assertThat(decision.release()).isTrue();
    }

    @Test
    void acquireAcceptsAnEffectivelyUnlimitedTimeout() throws InterruptedException {
        RateLimiter limiter = emptyBucket();

        assertDecision(
                limiter.acquire("k", 1, Duration.ofSeconds(Long.MAX_VALUE)), allowed("api", 10, 0, T0 + 1100 * MS));
        assertThat(clock.nanos()).isEqualTo(T0 + 100 * MS);
    }

    @Test
    void tryAcquireAsyncCompletesWithTheDecisionTryAcquireGives() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(10, 10, Duration.ofSeconds(1)));

        assertDecision(settled(limiter.tryAcquireAsync("k", 4)), allowed("api", 10, 6, T0 + 400 * MS));
        assertDecision(settled(limiter.forKey("k").tryAcquireAsync(6)), allowed("api", 10, 0, T0 + SECOND));
        assertDecision(settled(limiter.tryAcquireAsync("k", 1)), denied("api", 10, 0, 100 * MS, T0 + SECOND));
        assertThat(clock.nanos()).isEqualTo(T0);
        assertThat(clock.pendingTasks()).isZero();
    }

    @Test
    void tryAcquireAsyncOfAChainIsAllOrNothing() {
        RateLimiter tenant = engine.limiter("tenant", TokenBucket.of(10, 10, Duration.ofSeconds(1)));
        RateLimiter global = engine.limiter("global", FixedWindow.of(1, Duration.ofSeconds(1)));
        var chain = engine.<String>chain()
                .layer(tenant, t -> t)
                .layer(global, "all")
                .build();

        assertDecision(settled(chain.tryAcquireAsync("acme", 1)), allowed("global", 1, 0, T0 + SECOND));
        assertDecision(settled(chain.tryAcquireAsync("acme", 1)), denied("global", 1, 0, SECOND, T0 + SECOND));
        assertThat(tenant.available("acme")).isEqualTo(9);
    }

    @Test
    void tryAcquireAsyncRejectsBadArgumentsAtTheCall() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(10, 10, Duration.ofSeconds(1)));

        assertRejected(() -> limiter.tryAcquireAsync(null, 1), "key", "null");
        assertRejected(() -> limiter.tryAcquireAsync("k", 11), "permits", "between 1 and 10", "11");
        assertThat(limiter.available("k")).isEqualTo(10);
    }

    @Test
    void acquireRefusesPermitsAboveTheLimitInsteadOfWaiting() {
        RateLimiter limiter = emptyBucket();

        assertRejected(() -> limiter.acquire("k", 11, Duration.ofHours(1)), "permits", "between 1 and 10", "11");
        assertRejected(() -> limiter.acquireAsync("k", 11, Duration.ofHours(1)), "permits", "between 1 and 10", "11");
        assertThat(clock.nanos()).isEqualTo(T0);
        assertThat(clock.pendingTasks()).isZero();
    }

    @Test
    void acquireRejectsANegativeOrMissingTimeoutAndTakesNothing() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(10, 10, Duration.ofSeconds(1)));
        limiter.tryAcquire("k", 3);

        assertRejected(() -> limiter.acquire("k", 1, Duration.ofNanos(-1)), "timeout", "-1 ns");
        assertRejected(() -> limiter.acquireAsync("k", 1, Duration.ofSeconds(-5)), "timeout", "-5 s");
        assertRejected(() -> limiter.acquire("k", 1, null), "timeout", "null");
        assertRejected(() -> limiter.acquireAsync("k", 1, null), "timeout", "null");

        assertThat(clock.pendingTasks()).isZero();
        assertDecision(limiter.tryAcquire("k"), allowed("api", 10, 6, T0 + 400 * MS));
    }

    @Test
    void interruptedWaitThrowsAndTakesNothing() {
        RateLimiter limiter = emptyBucket();

        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> limiter.acquire("k", 1, Duration.ofSeconds(1)))
                    .isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }

        assertThat(clock.nanos()).isEqualTo(T0);
        clock.advance(Duration.ofMillis(100));
        assertDecision(limiter.tryAcquire("k"), allowed("api", 10, 0, T0 + 1100 * MS));
        assertThat(limiter.tryAcquire("k").denied()).isTrue();
    }

    @Test
    void acquireAsyncCompletesWithoutWaitingOnTheClockWhenPermitsAreAvailable() {
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(10, 10, Duration.ofSeconds(1)));

        CompletableFuture<Decision> future = limiter.acquireAsync("k", 2, Duration.ofSeconds(1));

        assertDecision(settled(future), allowed("api", 10, 8, T0 + 200 * MS));
        assertThat(clock.nanos()).isEqualTo(T0);
        assertThat(clock.pendingTasks()).isZero();
    }

    @Test
    void acquireAsyncCompletesOnlyWhenTheClockReachesTheRetryAfter() {
        RateLimiter limiter = emptyBucket();

        CompletableFuture<Decision> future = limiter.acquireAsync("k", 1, Duration.ofSeconds(1));
        awaitScheduled(1);
        assertThat(future).isNotDone();
        assertThat(clock.nanos()).isEqualTo(T0);

        clock.advanceNanos(100 * MS - 1);
        assertThat(future).isNotDone();

        clock.advanceNanos(1);
        assertDecision(settled(future), allowed("api", 10, 0, T0 + 1100 * MS));
        assertThat(clock.pendingTasks()).isZero();
        assertThat(limiter.tryAcquire("k").denied())
                .as("the waiter took the permit")
                .isTrue();
    }

    @Test
    void acquireAsyncCompletesWithTheDenialAtOnceWhenTheWaitExceedsTheTimeout() {
        RateLimiter limiter = emptyBucket();

        CompletableFuture<Decision> future = limiter.acquireAsync("k", 5, Duration.ofMillis(499));

        assertDecision(settled(future), denied("api", 10, 0, 500 * MS, T0 + SECOND));
        assertThat(clock.pendingTasks()).isZero();
        assertThat(clock.nanos()).isEqualTo(T0);
    }

    @Test
    void competingAsyncWaitersEachGetTheirOwnPermitInTurn() {
        RateLimiter limiter = emptyBucket();
        CompletableFuture<Decision> first = limiter.acquireAsync("k", 1, Duration.ofSeconds(1));
        CompletableFuture<Decision> second = limiter.acquireAsync("k", 1, Duration.ofSeconds(1));
        awaitScheduled(2);

        clock.advance(Duration.ofMillis(100)); // one permit back: exactly one waiter gets it
        eventually(() ->
                Stream.of(first, second).filter(CompletableFuture::isDone).count() == 1 && clock.pendingTasks() == 1);
        assertThat(Stream.of(first, second).filter(CompletableFuture::isDone).map(CompletableFuture::join))
                .allSatisfy(decision -> assertDecision(decision, allowed("api", 10, 0, T0 + 1100 * MS)));

        clock.advance(Duration.ofMillis(100));
        assertThat(Stream.of(first, second).map(ContractSupport::settled).map(Decision::allowed))
                .containsExactly(true, true);
        assertThat(clock.pendingTasks()).isZero();
        assertDecision(limiter.tryAcquire("k"), denied("api", 10, 0, 100 * MS, T0 + 1200 * MS));
    }
}
