package dev.sluice.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** An adaptive rate's bounds, defaults, text, and the policy it is enforced as at a given rate. */
class AdaptiveRateTest {
    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final Gcra CEILING = Gcra.of(200, SECOND, 20);

    @Test
    void ofStartsAtTheCeilingWithAFloorOfAHundredthOfIt() {
        AdaptiveRate rate = AdaptiveRate.of(CEILING);

        assertThat(rate.ceiling()).isEqualTo(CEILING);
        assertThat(rate.perSecond()).isEqualTo(200.0);
        assertThat(rate.floor()).isEqualTo(2.0);
        assertThat(rate.start()).isEqualTo(200.0);
        assertThat(rate.cut()).isEqualTo(AdaptiveRate.DEFAULT_CUT);
        assertThat(rate.climb()).isEqualTo(AdaptiveRate.DEFAULT_CLIMB);
        assertThat(rate.limit()).isEqualTo(20);
        assertThat(rate).hasToString("AdaptiveRate.of(Gcra.of(200, 1 s, 20))");
    }

    @Test
    void everyWitherChangesOneValueAndShowsInTheText() {
        AdaptiveRate rate =
                AdaptiveRate.of(CEILING).withFloor(5).withStart(50).withCut(0.7).withClimb(Duration.ofSeconds(10));

        assertThat(rate).isEqualTo(new AdaptiveRate(CEILING, 5, 50, 0.7, Duration.ofSeconds(10)));
        assertThat(rate)
                .hasToString("AdaptiveRate.of(Gcra.of(200, 1 s, 20)).withFloor(5.0).withStart(50.0).withCut(0.7)"
                        + ".withClimb(10 s)");
        assertThat(AdaptiveRate.of(CEILING).withStart(10).withFloor(20).start())
                .as("a start below a raised floor moves up to it")
                .isEqualTo(20.0);
    }

    @Test
    void badValuesAreRefusedNamingTheAllowedOnes() {
        assertThatThrownBy(() -> AdaptiveRate.of(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ceiling of an adaptive rate must be a TokenBucket, Gcra");
        assertThatThrownBy(() -> AdaptiveRate.of(AdaptiveRate.of(CEILING)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ceiling of an adaptive rate");
        assertThatThrownBy(() -> AdaptiveRate.of(CEILING).withFloor(0))
                .hasMessage("floor must be above 0 and at most the ceiling's rate (200.0 per second), was 0.0");
        assertThatThrownBy(() -> AdaptiveRate.of(CEILING).withFloor(201))
                .hasMessageContaining("at most the ceiling's rate");
        assertThatThrownBy(() -> AdaptiveRate.of(CEILING).withFloor(Double.NaN)).hasMessageContaining("floor");
        assertThatThrownBy(() -> AdaptiveRate.of(CEILING).withFloor(10).withStart(5))
                .hasMessage("start must lie between the floor (10.0 per second) and the ceiling's rate (200.0 per"
                        + " second), was 5.0");
        assertThatThrownBy(() -> AdaptiveRate.of(CEILING).withStart(201)).hasMessageContaining("start must lie");
        assertThatThrownBy(() -> AdaptiveRate.of(CEILING).withCut(1))
                .hasMessage("cut must lie above 0 and below 1 (0.85: to 85% of the rate), was 1.0");
        assertThatThrownBy(() -> AdaptiveRate.of(CEILING).withCut(0)).hasMessageContaining("cut must lie");
        assertThatThrownBy(() -> AdaptiveRate.of(CEILING).withClimb(null))
                .hasMessage("climb must be from 1 ms to 1 day, was null");
        assertThatThrownBy(() -> AdaptiveRate.of(CEILING).withClimb(Duration.ofNanos(999_999)))
                .hasMessageContaining("climb must be from 1 ms to 1 day");
        assertThatThrownBy(() ->
                        AdaptiveRate.of(CEILING).withClimb(Duration.ofDays(1).plusNanos(1)))
                .hasMessageContaining("climb must be from 1 ms to 1 day");
        assertThat(AdaptiveRate.of(CEILING).withClimb(Duration.ofMillis(1)).climb())
                .isEqualTo(Duration.ofMillis(1));
        assertThat(AdaptiveRate.of(CEILING).withClimb(Duration.ofDays(1)).climb())
                .isEqualTo(Duration.ofDays(1));
    }

    @Test
    void theEnforcedPolicyIsTheCeilingScaledToTheRate() {
        AdaptiveRate gcra = AdaptiveRate.of(CEILING);
        assertThat(gcra.scaledTo(200)).isSameAs(CEILING);
        assertThat(gcra.scaledTo(500)).isSameAs(CEILING);
        assertThat(gcra.scaledTo(100)).isEqualTo(Gcra.of(200, Duration.ofSeconds(2), 10));
        assertThat(gcra.scaledTo(100).perSecond()).isEqualTo(100.0);
        assertThat(gcra.scaledTo(50)).isEqualTo(Gcra.of(200, Duration.ofSeconds(4), 5));

        TokenBucket bucket = TokenBucket.of(10, 5, SECOND);
        assertThat(AdaptiveRate.of(bucket).scaledTo(2.5)).isEqualTo(TokenBucket.of(5, 5, Duration.ofSeconds(2)));
        assertThat(AdaptiveRate.of(FixedWindow.of(100, SECOND)).scaledTo(85)).isEqualTo(FixedWindow.of(85, SECOND));
        assertThat(AdaptiveRate.of(SlidingWindowCounter.of(10, SECOND)).scaledTo(0.5))
                .as("never below one permit")
                .isEqualTo(SlidingWindowCounter.of(1, SECOND));
        assertThat(AdaptiveRate.of(SlidingWindowLog.of(40, Duration.ofSeconds(10)))
                        .scaledTo(2))
                .isEqualTo(SlidingWindowLog.of(20, Duration.ofSeconds(10)));
    }

    @Test
    void everyRatePolicyTellsItsSustainedRate() {
        assertThat(TokenBucket.of(100, 10, SECOND).perSecond()).isEqualTo(10.0);
        assertThat(Gcra.of(3, Duration.ofMillis(500), 1).perSecond()).isEqualTo(6.0);
        assertThat(FixedWindow.of(60, Duration.ofMinutes(1)).perSecond()).isEqualTo(1.0);
        assertThat(SlidingWindowCounter.of(30, Duration.ofSeconds(10)).perSecond())
                .isEqualTo(3.0);
        assertThat(SlidingWindowLog.of(5, Duration.ofMillis(100)).perSecond()).isEqualTo(50.0);
    }

    @Test
    void aLimiterRefusesAnAdaptiveRate() {
        try (Sluice sluice = Sluice.inMemory()) {
            assertThatThrownBy(() -> sluice.limiter("api", AdaptiveRate.of(CEILING)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("an AdaptiveRate is a queue's or a group's rate; limiter 'api' takes a TokenBucket,"
                            + " Gcra, FixedWindow, SlidingWindowCounter, SlidingWindowLog or ConcurrencyLimit, was"
                            + " AdaptiveRate.of(Gcra.of(200, 1 s, 20))");
            sluice.limiter("gcra", CEILING);
            assertThatThrownBy(() -> sluice.limiter("gcra", CEILING).setPolicy(AdaptiveRate.of(CEILING)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("an AdaptiveRate is a queue's or a group's rate; limiter 'gcra'");
        }
    }
}
