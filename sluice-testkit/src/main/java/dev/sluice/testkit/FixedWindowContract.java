package dev.sluice.testkit;

import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.RateLimiter;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link FixedWindow}: a count per epoch-aligned window, starting again at zero in each window. */
public abstract class FixedWindowContract extends ContractSupport {
    /** 5 permits per epoch-aligned second. */
    static final FixedWindow FIVE_PER_SECOND = FixedWindow.of(5, Duration.ofSeconds(1));

    /** For subclasses, one per engine. */
    protected FixedWindowContract() {}

    private RateLimiter fivePerSecond() {
        return engine.limiter("fw", FIVE_PER_SECOND);
    }

    @Test
    void grantsTheLimitPerWindowAndResetsAtTheWindowEnd() {
        RateLimiter limiter = fivePerSecond();
        for (int i = 1; i <= 5; i++) {
            assertDecision(limiter.tryAcquire("k"), allowed("fw", 5, 5 - i, T0 + SECOND));
        }
        assertDecision(limiter.tryAcquire("k"), denied("fw", 5, 0, SECOND, T0 + SECOND));
    }

    @Test
    void deniedRetryAfterIsExactlyUntilTheWindowEnds() {
        RateLimiter limiter = fivePerSecond();
        clock.advance(Duration.ofMillis(300));
        limiter.tryAcquire("k", 5);

        assertDecision(limiter.tryAcquire("k"), denied("fw", 5, 0, 700 * MS, T0 + SECOND));
        clock.advanceNanos(700 * MS - 1);
        assertDecision(limiter.tryAcquire("k"), denied("fw", 5, 0, 1, T0 + SECOND));
        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k"), allowed("fw", 5, 4, T0 + 2 * SECOND));
    }

    @Test
    void windowsAreAlignedToTheEpochNotToTheFirstRequest() {
        ManualClock lateClock = clockAt("2026-01-01T00:00:00.750Z");
        RateLimiter limiter = engineOn(lateClock).limiter("fw", FIVE_PER_SECOND);

        assertDecision(limiter.tryAcquire("k", 5), allowed("fw", 5, 0, T0 + SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("fw", 5, 0, 250 * MS, T0 + SECOND));
        lateClock.advance(Duration.ofMillis(250));
        assertDecision(limiter.tryAcquire("k"), allowed("fw", 5, 4, T0 + 2 * SECOND));
    }

    /**
     * The documented weakness of fixed windows: a burst at the very end of one window and another at the very
     * start of the next pass together, up to twice the limit within a few nanoseconds.
     */
    @Test
    void allowsTwiceTheLimitAcrossAWindowBoundaryByDesign() {
        RateLimiter limiter = fivePerSecond();
        clock.advanceNanos(SECOND - 1);
        assertDecision(limiter.tryAcquire("k", 5), allowed("fw", 5, 0, T0 + SECOND));

        clock.advanceNanos(1);
        assertDecision(limiter.tryAcquire("k", 5), allowed("fw", 5, 0, T0 + 2 * SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("fw", 5, 0, SECOND, T0 + 2 * SECOND));
    }

    @Test
    void costWeightedRequestsCountTheirWholeCost() {
        RateLimiter limiter = fivePerSecond();

        assertDecision(limiter.tryAcquire("k", 3), allowed("fw", 5, 2, T0 + SECOND));
        assertDecision(limiter.tryAcquire("k", 3), denied("fw", 5, 2, SECOND, T0 + SECOND));
        assertDecision(limiter.tryAcquire("k", 2), allowed("fw", 5, 0, T0 + SECOND));
    }

    @Test
    void unusedPermitsDoNotCarryOverToLaterWindows() {
        RateLimiter limiter = fivePerSecond();
        limiter.tryAcquire("k");
        clock.advance(Duration.ofSeconds(10));

        assertDecision(limiter.tryAcquire("k", 5), allowed("fw", 5, 0, T0 + 11 * SECOND));
        assertDecision(limiter.tryAcquire("k"), denied("fw", 5, 0, SECOND, T0 + 11 * SECOND));
    }

    @Test
    void deniedRequestsDoNotCount() {
        RateLimiter limiter = fivePerSecond();
        limiter.tryAcquire("k", 4);
        for (int i = 0; i < 3; i++) {
            assertDecision(limiter.tryAcquire("k", 2), denied("fw", 5, 1, SECOND, T0 + SECOND));
        }
        assertDecision(limiter.tryAcquire("k"), allowed("fw", 5, 0, T0 + SECOND));
    }

    @Test
    void theLongestWindowDoesNotOverflow() {
        Duration longest = POLICY_BOUND;
        RateLimiter limiter = engine.limiter("long", FixedWindow.of(1, longest));
        long end = Math.floorDiv(T0, longest.toNanos()) * longest.toNanos() + longest.toNanos();

        assertDecision(limiter.tryAcquire("k"), allowed("long", 1, 0, end));
        assertDecision(limiter.tryAcquire("k"), denied("long", 1, 0, end - T0, end));
    }

    @Test
    void aWindowLongerThanEveryEngineAcceptsCannotBeMade() {
        assertRejected(() -> FixedWindow.of(1, POLICY_BOUND.plusNanos(1)), "window", "at most", "LimitPolicy.MAX_SPAN");
    }
}
