package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A queue's private rate, keyed by group, with literal times: peek, take and a change of policy. */
class QueueRateTest {
    private static final long MS = 1_000_000L;

    private final ManualClock clock = new ManualClock();
    /** 2 starts, one back every 500 ms. */
    private final QueueRate rate = new QueueRate("jobs", TokenBucket.of(2, Duration.ofSeconds(1)), clock, 10);

    @Test
    void takesOneStartPerPermitAndSaysHowLongTheNextMustWait() {
        long now = clock.nanos();
        assertThat(rate.policy()).isEqualTo(TokenBucket.of(2, Duration.ofSeconds(1)));

        assertThat(rate.take("g", now)).isZero();
        assertThat(rate.take("g", now)).isZero();
        assertThat(rate.peek("g", now)).isEqualTo(500 * MS);
        assertThat(rate.take("g", now)).isEqualTo(500 * MS);
        assertThat(rate.peek("other", now)).as("groups are independent").isZero();
    }

    @Test
    void aNewPolicyOfTheSameKindKeepsWhatEachGroupUsed() {
        long now = clock.nanos();
        rate.take("g", now);
        rate.take("g", now);
        assertThat(rate.canAdopt(TokenBucket.of(4, Duration.ofSeconds(1)))).isTrue();
        assertThat(rate.canAdopt(FixedWindow.of(4, Duration.ofSeconds(1)))).isFalse();

        rate.update(TokenBucket.of(4, Duration.ofSeconds(1)));

        assertThat(rate.policy()).isEqualTo(TokenBucket.of(4, Duration.ofSeconds(1)));
        // 1 s of debt at 2 per second is 500 ms at 4 per second: 2 of 4 left.
        assertThat(rate.take("g", now)).isZero();
        assertThat(rate.take("g", now)).isZero();
        assertThat(rate.peek("g", now)).isEqualTo(250 * MS);
    }
}
