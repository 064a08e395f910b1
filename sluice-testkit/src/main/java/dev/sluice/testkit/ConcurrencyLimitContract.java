package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.Lease;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link ConcurrencyLimit}: permits held by leases until released or expired; a denial's retry-after is
 * when enough leases expire if none is released first.
 */
public abstract class ConcurrencyLimitContract extends ContractSupport {
    /** 2 permits held at once, leases expiring after 10 s. */
    static final ConcurrencyLimit TWO_FOR_TEN_SECONDS = ConcurrencyLimit.of(2, Duration.ofSeconds(10));

    /** For subclasses, one per engine. */
    protected ConcurrencyLimitContract() {}

    private ConcurrencyLimiter twoAtOnce() {
        return engine.concurrencyLimiter("conc", TWO_FOR_TEN_SECONDS);
    }

    @Test
    void grantsCarryALeaseThatExpiresAfterTheLeaseTimeout() {
        ConcurrencyLimiter limiter = twoAtOnce();
        Decision first = limiter.tryAcquire("k");
        assertDecision(first, allowed("conc", 2, 1, T0 + 10 * SECOND));
        assertThat(first.lease()).isNotSameAs(Lease.none());
        assertThat(first.lease().expiresAtNanos()).isEqualTo(T0 + 10 * SECOND);

        clock.advance(Duration.ofSeconds(1));
        Decision second = limiter.tryAcquire("k");
        assertDecision(second, allowed("conc", 2, 0, T0 + 11 * SECOND));
        assertThat(second.lease().expiresAtNanos()).isEqualTo(T0 + 11 * SECOND);

        Decision third = limiter.tryAcquire("k");
        assertDecision(third, denied("conc", 2, 0, 9 * SECOND, T0 + 11 * SECOND));
        assertThat(third.lease()).isSameAs(Lease.none());
        assertThat(third.release()).isFalse();
    }

    @Test
    void releasingALeaseReturnsItsPermitsAtOnce() {
        ConcurrencyLimiter limiter = twoAtOnce();
        Decision first = limiter.tryAcquire("k");
        limiter.tryAcquire("k");
        assertThat(limiter.tryAcquire("k").denied()).isTrue();

        assertThat(first.release()).isTrue();

        assertDecision(limiter.tryAcquire("k"), allowed("conc", 2, 0, T0 + 10 * SECOND));
    }

    @Test
    void releasingTwiceReturnsThePermitsOnlyOnce() {
        ConcurrencyLimiter limiter = twoAtOnce();
        Decision first = limiter.tryAcquire("k");
        limiter.tryAcquire("k");

        assertThat(first.lease().release()).isTrue();
        assertThat(first.lease().release()).isFalse();
        assertThat(first.release()).isFalse();

        assertDecision(limiter.tryAcquire("k"), allowed("conc", 2, 0, T0 + 10 * SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("conc", 2, 0, 10 * SECOND, T0 + 10 * SECOND));
    }

    @Test
    void expiredLeasesFreeTheirPermitsByThemselves() {
        ConcurrencyLimiter limiter = twoAtOnce();
        Decision first = limiter.tryAcquire("k");
        limiter.tryAcquire("k");

        clock.advanceNanos(10 * SECOND - 1);
        assertDecision(limiter.tryAcquire("k"), denied("conc", 2, 0, 1, T0 + 10 * SECOND));
        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k"), allowed("conc", 2, 1, T0 + 20 * SECOND));

        // releasing an expired lease returns nothing: it must not free the new holder's permit
        assertThat(first.release()).isFalse();
        assertDecision(limiter.tryAcquire("k"), allowed("conc", 2, 0, T0 + 20 * SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("conc", 2, 0, 10 * SECOND, T0 + 20 * SECOND));
    }

    @Test
    void leaseCanBeReleasedUntilTheNanosecondBeforeItExpires() {
        ConcurrencyLimiter limiter = engine.concurrencyLimiter("one", ConcurrencyLimit.of(1, Duration.ofSeconds(10)));
        Decision first = limiter.tryAcquire("k");
        clock.advanceNanos(10 * SECOND - 1);
        assertThat(first.release()).isTrue();

        Decision second = limiter.tryAcquire("k");
        assertDecision(second, allowed("one", 1, 0, T0 + 20 * SECOND - 1));
        clock.advance(Duration.ofSeconds(10));
        assertThat(second.release()).as("released at its expiry instant").isFalse();
    }

    @Test
    void retryAfterIsUntilEnoughLeasesExpireToFitTheRequest() {
        ConcurrencyLimiter limiter = engine.concurrencyLimiter("three", ConcurrencyLimit.of(3, Duration.ofSeconds(10)));
        assertDecision(limiter.tryAcquire("k", 1), allowed("three", 3, 2, T0 + 10 * SECOND));
        clock.advance(Duration.ofSeconds(3));
        assertDecision(limiter.tryAcquire("k", 2), allowed("three", 3, 0, T0 + 13 * SECOND));
        clock.advance(Duration.ofSeconds(2));

        assertDecision(limiter.tryAcquire("k", 1), denied("three", 3, 0, 5 * SECOND, T0 + 13 * SECOND));
        assertDecision(limiter.tryAcquire("k", 2), denied("three", 3, 0, 8 * SECOND, T0 + 13 * SECOND));
        assertDecision(limiter.tryAcquire("k", 3), denied("three", 3, 0, 8 * SECOND, T0 + 13 * SECOND));

        clock.advance(Duration.ofSeconds(5)); // the 1-permit lease expired
        assertDecision(limiter.tryAcquire("k", 2), denied("three", 3, 1, 3 * SECOND, T0 + 13 * SECOND));
        assertDecision(limiter.tryAcquire("k", 1), allowed("three", 3, 0, T0 + 20 * SECOND));
    }

    @Test
    void costWeightedLeasesReturnAllTheirPermits() {
        ConcurrencyLimiter limiter = engine.concurrencyLimiter("three", ConcurrencyLimit.of(3, Duration.ofSeconds(10)));
        Decision two = limiter.tryAcquire("k", 2);
        assertDecision(two, allowed("three", 3, 1, T0 + 10 * SECOND));
        assertDecision(limiter.tryAcquire("k", 2), denied("three", 3, 1, 10 * SECOND, T0 + 10 * SECOND));

        assertThat(two.release()).isTrue();

        assertDecision(limiter.tryAcquire("k", 3), allowed("three", 3, 0, T0 + 10 * SECOND));
    }

    @Test
    void keysHoldTheirLeasesIndependently() {
        ConcurrencyLimiter limiter = twoAtOnce();
        limiter.tryAcquire("a", 2);
        Decision b = limiter.tryAcquire("b");
        assertDecision(b, allowed("conc", 2, 1, T0 + 10 * SECOND));
        assertThat(limiter.tryAcquire("a").denied()).isTrue();
        assertThat(b.release()).isTrue();
        assertThat(limiter.tryAcquire("a").denied())
                .as("releasing b's lease frees nothing of a")
                .isTrue();
        assertDecision(limiter.tryAcquire("b", 2), allowed("conc", 2, 0, T0 + 10 * SECOND));
    }

    @Test
    void decisionsOfOtherPoliciesHoldNoLease() {
        Decision decision = engine.limiter("tb", TokenBucket.perSecond(1)).tryAcquire("k");
        assertThat(decision.lease()).isSameAs(Lease.none());
        assertThat(decision.release()).isFalse();
        assertThat(Lease.none().expiresAtNanos()).isEqualTo(Long.MAX_VALUE);
    }

    /**
     * Regression: a lease granted while the in-memory key table was full (from the shared overflow) stayed held
     * by the slot its key got later, so releasing it freed the overflow only and the key lost a permit until
     * the lease expired.
     */
    @Test
    void aLeaseGrantedWhileTheKeyTableWasFullIsFreedByItsRelease() {
        ConcurrencyLimiter limiter = engine.concurrencyLimiter(
                "conc", TWO_FOR_TEN_SECONDS, LimiterOptions.builder().maxKeys(1).build());
        Decision a = limiter.tryAcquire("a"); // a takes the one slot
        Decision early = limiter.tryAcquire("c"); // the table is full: on the in-memory engine, from the overflow
        assertThat(a.release()).isTrue(); // a is idle: c may take its slot
        Decision late = limiter.tryAcquire("c");
        assertDecision(late, allowed("conc", 2, 0, T0 + 10 * SECOND));

        assertThat(early.release()).isTrue();
        assertThat(late.release()).isTrue();

        Decision both = limiter.tryAcquire("c", 2);
        assertDecision(both, allowed("conc", 2, 0, T0 + 10 * SECOND));
        assertThat(early.release()).as("released twice").isFalse();
        assertDecision(limiter.tryAcquire("c"), denied("conc", 2, 0, 10 * SECOND, T0 + 10 * SECOND));
    }
}
