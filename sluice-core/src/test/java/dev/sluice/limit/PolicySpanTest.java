package dev.sluice.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every policy describes spans of at most {@link LimitPolicy#MAX_SPAN}, so that each engine applies it alike. */
class PolicySpanTest {
    private static final long TWO_52 = 1L << 52;

    @Test
    void theLongestSpanIs2To52Nanoseconds() {
        assertThat(LimitPolicy.MAX_SPAN).isEqualTo(Duration.ofNanos(4_503_599_627_370_496L));
        assertThat(LimitPolicy.MAX_SPAN).isBetween(Duration.ofDays(52), Duration.ofDays(53));
    }

    static Stream<Arguments> longest() {
        return Stream.of(
                Arguments.of((Supplier<LimitPolicy>) () -> TokenBucket.of(4, Duration.ofNanos(TWO_52))),
                Arguments.of((Supplier<LimitPolicy>) () -> Gcra.of(1, Duration.ofNanos(TWO_52), 1)),
                Arguments.of((Supplier<LimitPolicy>) () -> FixedWindow.of(1, Duration.ofNanos(TWO_52))),
                Arguments.of((Supplier<LimitPolicy>) () -> SlidingWindowCounter.of(1, Duration.ofNanos(TWO_52 / 2))),
                Arguments.of((Supplier<LimitPolicy>) () -> SlidingWindowLog.of(1, Duration.ofNanos(TWO_52))),
                Arguments.of((Supplier<LimitPolicy>) () -> ConcurrencyLimit.of(1, Duration.ofNanos(TWO_52))));
    }

    @ParameterizedTest
    @MethodSource("longest")
    void aPolicySpanningExactlyTheLongestSpanIsMade(Supplier<LimitPolicy> make) {
        assertThat(make.get()).isNotNull();
    }

    static Stream<Arguments> tooLong() {
        return Stream.of(
                Arguments.of(
                        (Supplier<LimitPolicy>) () -> TokenBucket.of(2, Duration.ofNanos(TWO_52 + 2)), "refillPeriod"),
                Arguments.of(
                        (Supplier<LimitPolicy>) () -> new TokenBucket(4, 1, Duration.ofNanos(TWO_52 / 2)), "capacity"),
                Arguments.of((Supplier<LimitPolicy>) () -> Gcra.of(1, Duration.ofNanos(TWO_52 / 2), 3), "burst"),
                Arguments.of((Supplier<LimitPolicy>) () -> Gcra.of(1, Duration.ofNanos(TWO_52 + 1), 1), "period"),
                Arguments.of((Supplier<LimitPolicy>) () -> FixedWindow.of(10, Duration.ofDays(365)), "window"),
                Arguments.of(
                        (Supplier<LimitPolicy>) () -> SlidingWindowCounter.of(1, Duration.ofNanos(TWO_52 / 2 + 1)),
                        "window"),
                Arguments.of((Supplier<LimitPolicy>) () -> SlidingWindowLog.of(1, Duration.ofDays(53)), "window"),
                Arguments.of(
                        (Supplier<LimitPolicy>) () -> ConcurrencyLimit.of(1, Duration.ofNanos(TWO_52 + 1)),
                        "leaseTimeout"));
    }

    @ParameterizedTest
    @MethodSource("tooLong")
    void aLongerSpanIsRefusedNamingTheValueAndTheBound(Supplier<LimitPolicy> make, String what) {
        assertThatThrownBy(make::get)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(what)
                .hasMessageContaining("LimitPolicy.MAX_SPAN")
                .hasMessageContaining("2^52 ns");
    }

    @Test
    void aSlidingCounterKeepsTwoWindowsSoItsWindowIsAtMostHalf() {
        assertThatThrownBy(() -> SlidingWindowCounter.of(1, Duration.ofDays(30)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("as the policy spans 2 of them")
                .hasMessageContaining("was 30 d");
    }
}
