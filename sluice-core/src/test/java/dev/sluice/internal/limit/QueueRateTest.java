package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A queue's private rate, keyed by group, with literal times: peek, take, a change of policy and the ramp after a pause. */
class QueueRateTest {
    private static final long MS = 1_000_000L;
    private static final long NEVER = Long.MIN_VALUE;

    private final ManualClock clock = new ManualClock();
    /** 2 starts, one back every 500 ms. */
    private final QueueRate rate = new QueueRate("jobs", TokenBucket.of(2, Duration.ofSeconds(1)), clock, 10);

    @Test
    void takesOneStartPerPermitAndSaysHowLongTheNextMustWait() {
        long now = clock.nanos();
        assertThat(rate.policy()).isEqualTo(TokenBucket.of(2, Duration.ofSeconds(1)));

        assertThat(rate.take("g", now, NEVER)).isZero();
        assertThat(rate.take("g", now, NEVER)).isZero();
        assertThat(rate.peek("g", now, NEVER)).isEqualTo(500 * MS);
        assertThat(rate.take("g", now, NEVER)).isEqualTo(500 * MS);
        assertThat(rate.peek("other", now, NEVER)).as("groups are independent").isZero();
    }

    @Test
    void aNewPolicyOfTheSameKindKeepsWhatEachGroupUsed() {
        long now = clock.nanos();
        rate.take("g", now, NEVER);
        rate.take("g", now, NEVER);
        assertThat(rate.canAdopt(TokenBucket.of(4, Duration.ofSeconds(1)))).isTrue();
        assertThat(rate.canAdopt(FixedWindow.of(4, Duration.ofSeconds(1)))).isFalse();

        rate.update(TokenBucket.of(4, Duration.ofSeconds(1)));

        assertThat(rate.policy()).isEqualTo(TokenBucket.of(4, Duration.ofSeconds(1)));
        // 1 s of debt at 2 per second is 500 ms at 4 per second: 2 of 4 left.
        assertThat(rate.take("g", now, NEVER)).isZero();
        assertThat(rate.take("g", now, NEVER)).isZero();
        assertThat(rate.peek("g", now, NEVER)).isEqualTo(250 * MS);
    }

    @Test
    void afterAPauseTheRateRampsUpFromAQuarterWithWhatTheKeyOwesCarriedOver() {
        QueueRate slow = new QueueRate("jobs", Gcra.of(1, Duration.ofMillis(500), 2), clock, 10);
        long pausedUntil = clock.nanos() + 5_000 * MS;
        long t = pausedUntil;

        // a quarter of 2 per second, with a burst of a quarter of 2 (at least one): one now, the next 2 s later,
        // but the wait ends where the ramp's next step comes
        assertThat(slow.take("g", t, pausedUntil)).isZero();
        assertThat(slow.peek("g", t, pausedUntil)).isEqualTo(1_000 * MS);
        assertThat(slow.peek("other", t, NEVER))
                .as("a key never paused runs whole")
                .isZero();
        assertThat(slow.take("other", t, NEVER)).isZero();
        assertThat(slow.take("other", t, NEVER)).isZero();

        // half the rate after a second: the 1 s still owed at a quarter is 500 ms at a half
        assertThat(slow.peek("g", t + 1_000 * MS, pausedUntil)).isEqualTo(500 * MS);
        assertThat(slow.take("g", t + 1_500 * MS, pausedUntil)).isZero();
        assertThat(slow.peek("g", t + 1_500 * MS, pausedUntil)).isEqualTo(500 * MS);

        // the whole rate after two: 500 ms owed at a half is 250 ms at the whole, within its burst of two
        assertThat(slow.take("g", t + 2_000 * MS, pausedUntil)).isZero();
        assertThat(slow.take("g", t + 2_000 * MS, pausedUntil)).isEqualTo(250 * MS);
    }
}
