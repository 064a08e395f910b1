package dev.sluice.internal.limit;

import static dev.sluice.internal.limit.AlgorithmSteps.assertIdleFrom;
import static dev.sluice.internal.limit.AlgorithmSteps.granted;
import static dev.sluice.internal.limit.AlgorithmSteps.leftAfterOne;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The policies whose key state is guarded by its monitor, with literal times: what a retired state answers, when a
 * fixed window's key is idle and how it adopts another window, and the concurrency limit's leases.
 */
class LockedAlgorithmTest {
    private static final long S = 1_000_000_000L;
    private static final long T = 1_000 * S;

    private final ManualClock clock = new ManualClock();

    static Stream<LimitPolicy> lockedPolicies() {
        Duration second = Duration.ofSeconds(1);
        return Stream.of(
                FixedWindow.of(10, second),
                SlidingWindowCounter.of(10, second),
                SlidingWindowLog.of(10, second),
                ConcurrencyLimit.of(10, second));
    }

    @ParameterizedTest
    @MethodSource("lockedPolicies")
    void aRetiredStateIsRetiredOnceAndThenDecidesNothing(LimitPolicy policy) {
        Algorithm algorithm = Algorithm.of("api", policy, clock);
        KeyState state = algorithm.newState();
        assertThat(algorithm.isIdle(state, T)).isTrue();

        assertThat(algorithm.retireIfIdle(state, T)).isTrue();
        assertThat(algorithm.retireIfIdle(state, T)).as("already retired").isFalse();
        assertThat(algorithm.acquire(state, T, 1, true))
                .as("look the key up again")
                .isNull();
        assertThat(algorithm.acquire(state, T, 1, false)).isNull();
        assertThat(algorithm.consume(state, T, 1)).isEqualTo(Algorithm.RETIRED);
    }

    @ParameterizedTest
    @MethodSource("lockedPolicies")
    void aBusyStateIsNotRetired(LimitPolicy policy) {
        Algorithm algorithm = Algorithm.of("api", policy, clock);
        KeyState state = algorithm.newState();
        assertThat(algorithm.acquire(state, T, 1, true).allowed()).isTrue();

        assertThat(algorithm.isIdle(state, T)).isFalse();
        assertThat(algorithm.retireIfIdle(state, T)).isFalse();
        assertThat(algorithm.acquire(state, T, 1, true).allowed())
                .as("still in use")
                .isTrue();
    }

    // ---- fixed window ----

    private final FixedWindowAlgorithm window =
            (FixedWindowAlgorithm) Algorithm.of("api", FixedWindow.of(10, Duration.ofSeconds(1)), clock);

    @Test
    void aFixedWindowKeyIsIdleFromTheEndOfItsWindow() {
        KeyState state = window.newState();
        granted(window, state, T + 300_000_000L, 4);

        assertIdleFrom(window, state, T + S);
    }

    @Test
    void aLongerFixedWindowKeepsTheCountOfAnOldWindowUntilItEnds() {
        assertThat(leftAfterALongerWindowAt(T + S - 1)).isEqualTo(5);
        assertThat(leftAfterALongerWindowAt(T + S)).as("the old window ended").isEqualTo(9);
    }

    /** What one more permit leaves at {@code now} after 4 taken at T and a change to a 2 s window at {@code now}. */
    private long leftAfterALongerWindowAt(long now) {
        FixedWindowAlgorithm longer =
                (FixedWindowAlgorithm) Algorithm.of("api", FixedWindow.of(10, Duration.ofSeconds(2)), clock);
        KeyState state = window.newState();
        granted(window, state, T, 4);

        longer.adopt(state, window, now);

        return leftAfterOne(longer, state, now);
    }

    // ---- concurrency limit ----

    private final AtomicBoolean closed = new AtomicBoolean();

    private ConcurrencyAlgorithm concurrency(Duration leaseTimeout) {
        return (ConcurrencyAlgorithm) Algorithm.of("pool", ConcurrencyLimit.of(3, leaseTimeout), clock, closed::get);
    }

    @Test
    void aPeekOfLeasesReportsWhatTakingThemWouldLeaveAndWhenTheyWouldExpire() {
        ConcurrencyAlgorithm pool = concurrency(Duration.ofSeconds(5));
        KeyState state = pool.newState();
        long now = clock.nanos();

        Decision peek = pool.acquire(state, now, 2, false);

        assertThat(peek.allowed()).isTrue();
        assertThat(peek.remaining()).isEqualTo(1);
        assertThat(peek.resetAtNanos()).isEqualTo(now + 5 * S);
        assertThat(pool.acquire(state, now, 3, false).allowed())
                .as("the peek held nothing")
                .isTrue();
    }

    @Test
    void aDenialWaitsForTheLeaseThatExpiresFirstWhateverTheOrderTheyWereTaken() {
        ConcurrencyAlgorithm slow = concurrency(Duration.ofSeconds(10));
        ConcurrencyAlgorithm fast = concurrency(Duration.ofSeconds(1)); // the policy after an update
        KeyState state = slow.newState();
        long now = clock.nanos();
        assertThat(slow.acquire(state, now, 2, true).allowed()).isTrue(); // expires at now + 10 s
        assertThat(fast.acquire(state, now, 1, true).allowed()).isTrue(); // expires at now + 1 s

        Decision denied = fast.acquire(state, now, 1, true);

        assertThat(denied.allowed()).isFalse();
        assertThat(denied.retryAfterNanos()).isEqualTo(S);
        assertThat(denied.resetAtNanos()).isEqualTo(now + 10 * S);
    }

    @Test
    void aLeaseIsReleasedOnceAndNotAfterItExpiredOrTheEngineClosed() {
        ConcurrencyAlgorithm pool = concurrency(Duration.ofSeconds(5));
        KeyState state = pool.newState();
        Decision first = pool.acquire(state, clock.nanos(), 1, true);
        Decision second = pool.acquire(state, clock.nanos(), 1, true);
        Decision third = pool.acquire(state, clock.nanos(), 1, true);

        assertThat(first.release()).isTrue();
        assertThat(first.release()).as("released already").isFalse();
        assertThat(pool.acquire(state, clock.nanos(), 1, false).remaining()).isZero();

        closed.set(true);
        assertThat(second.release()).as("the engine closed").isFalse();
        closed.set(false);
        assertThat(pool.acquire(state, clock.nanos(), 1, false).remaining())
                .as("a release refused while closed kept the lease")
                .isZero();

        clock.advance(Duration.ofSeconds(5));
        assertThat(third.release()).as("expired").isFalse();
    }

    @Test
    void leasesOfAnAlgorithmMadeWithoutAnEnginesClosedFlagCanBeReleased() {
        Algorithm pool = Algorithm.of("pool", ConcurrencyLimit.of(1, Duration.ofSeconds(5)), clock);
        KeyState state = pool.newState();

        assertThat(pool.acquire(state, clock.nanos(), 1, true).release()).isTrue();
        assertThat(pool.acquire(state, clock.nanos(), 1, false).allowed()).isTrue();
    }

    @Test
    void aLeaseNamesItsLimiterAndPermits() {
        ConcurrencyAlgorithm pool = concurrency(Duration.ofSeconds(5));
        Decision granted = pool.acquire(pool.newState(), clock.nanos(), 2, true);

        assertThat(granted.lease()).hasToString("Lease[pool, 2 permits]");
    }
}
