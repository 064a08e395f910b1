package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A rate policy at a share of itself. */
class ScaledTest {
    @Test
    void aShareScalesTheRateAndTheBurstAndKeepsAtLeastOnePermit() {
        assertThat(Scaled.rate(TokenBucket.of(10, Duration.ofHours(1)), 0.2))
                .as("a fifth of ten an hour is two, though ten an hour is no round number per second")
                .isEqualTo(new TokenBucket(2, 10, Duration.ofHours(5)));
        assertThat(Scaled.rate(Gcra.of(8, Duration.ofSeconds(1), 8), 0.25))
                .isEqualTo(new Gcra(8, Duration.ofSeconds(4), 2));
        assertThat(Scaled.rate(FixedWindow.of(3, Duration.ofMinutes(1)), 0.1))
                .isEqualTo(FixedWindow.of(1, Duration.ofMinutes(1)));
        assertThat(Scaled.part(10, 0.05)).isEqualTo(1);
        assertThat(Scaled.part(10, 0.3)).isEqualTo(3);
    }

    @Test
    void theWholeShareIsThePolicyItselfAndAnAdaptiveRateScalesItsCeiling() {
        Gcra gcra = Gcra.of(8, Duration.ofSeconds(1), 8);
        assertThat(Scaled.rate(gcra, 1)).isSameAs(gcra);
        assertThat(Scaled.rate(AdaptiveRate.of(gcra), 0.5)).isEqualTo(new Gcra(8, Duration.ofSeconds(2), 4));
    }
}
