package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@code acquireAsync} at the edge of its timeout and with leases, and a chain with one lease layer: a wait that
 * ends exactly at the deadline is granted, a lease that an asynchronous wait returns is held by the caller, and a
 * chain holds its one lease layer's own lease.
 */
public abstract class LeaseAndDeadlineContract extends ContractSupport {
    /** 2 permits, one back every 500 ms. */
    private static final TokenBucket TWO_PER_SECOND = TokenBucket.of(2, Duration.ofSeconds(1));

    /** For subclasses, one per engine. */
    protected LeaseAndDeadlineContract() {}

    @Test
    void anAsynchronousWaitThatEndsExactlyAtTheDeadlineIsGranted() {
        RateLimiter limiter = engine.limiter("api", TWO_PER_SECOND);
        limiter.tryAcquire("k", 2);

        CompletableFuture<Decision> future = limiter.acquireAsync("k", 1, Duration.ofMillis(500));
        awaitScheduled(1);
        assertThat(future).isNotDone();
        clock.advance(Duration.ofMillis(500));

        assertThat(settled(future).allowed()).isTrue();
        assertThat(clock.nanos()).isEqualTo(T0 + 500 * MS);
    }

    @Test
    void aLeaseAnAsynchronousWaitReturnsIsHeldUntilTheCallerReleasesIt() {
        ConcurrencyLimiter pool = engine.concurrencyLimiter("pool", ConcurrencyLimit.of(1, Duration.ofSeconds(10)));

        Decision granted = settled(pool.acquireAsync("k", 1, Duration.ofSeconds(1)));

        assertThat(granted.allowed()).isTrue();
        assertThat(pool.tryAcquire("k").denied())
                .as("the caller holds the one lease")
                .isTrue();
        assertThat(granted.release()).isTrue();
        assertThat(pool.tryAcquire("k").allowed()).isTrue();
    }

    @Test
    void aChainWithOneLeaseLayerHoldsThatLayersLeaseAndNamesItsLayers() {
        ConcurrencyLimiter pool = engine.concurrencyLimiter("pool", ConcurrencyLimit.of(1, Duration.ofSeconds(10)));
        RateLimiter rate = engine.limiter("rate", TWO_PER_SECOND);
        LimitChain<String> chain =
                engine.<String>chain().layer(rate, k -> k).layer(pool, "all").build();

        Decision granted = chain.tryAcquire("k");

        assertThat(chain).hasToString("LimitChain[" + rate + ", " + pool + "]");
        assertThat(granted.allowed()).isTrue();
        assertThat(granted.lease().expiresAtNanos()).isEqualTo(T0 + 10 * SECOND);
        assertThat(pool.tryAcquire("all").denied())
                .as("the chain holds the pool's one lease")
                .isTrue();
        assertThat(granted.release()).isTrue();
        assertThat(granted.release()).as("released once").isFalse();
        assertThat(pool.tryAcquire("all").allowed()).isTrue();
    }
}
