package dev.sluice.limit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PolicyToStringTest {

    @Test
    void eachPolicyReadsAsTheFactoryCallThatMakesItWithDurationsForPeople() {
        assertThat(TokenBucket.of(10, 5, Duration.ofMillis(2500))).hasToString("TokenBucket.of(10, 5, 2.5 s)");
        assertThat(Gcra.of(100, Duration.ofMinutes(90), 7)).hasToString("Gcra.of(100, 1 h 30 min, 7)");
        assertThat(FixedWindow.of(3, Duration.ofMillis(100))).hasToString("FixedWindow.of(3, 100 ms)");
        assertThat(SlidingWindowCounter.of(4, Duration.ofDays(1))).hasToString("SlidingWindowCounter.of(4, 1 d)");
        assertThat(SlidingWindowLog.of(5, Duration.ofSeconds(1))).hasToString("SlidingWindowLog.of(5, 1 s)");
        assertThat(ConcurrencyLimit.of(6, Duration.ofSeconds(30))).hasToString("ConcurrencyLimit.of(6, 30 s)");
    }
}
