package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class GroupLimitsTest {
    static Stream<RatePolicy> ratePolicies() {
        return Stream.of(
                TokenBucket.perSecond(10),
                Gcra.of(5, Duration.ofSeconds(1), 2),
                FixedWindow.of(100, Duration.ofMinutes(1)),
                SlidingWindowCounter.of(100, Duration.ofMinutes(1)),
                SlidingWindowLog.of(100, Duration.ofMinutes(1)));
    }

    @Test
    void noneHasNoRateAndUnboundedConcurrency() {
        assertThat(GroupLimits.none().rate()).isNull();
        assertThat(GroupLimits.none().concurrency()).isEqualTo(Integer.MAX_VALUE);
    }

    @ParameterizedTest
    @MethodSource("ratePolicies")
    void everyRatePolicyIsAcceptedAsARate(RatePolicy rate) {
        assertThat(GroupLimits.builder().rate(rate).build().rate()).isEqualTo(rate);
    }

    @Test
    void withRateAndWithConcurrencyChangeOnlyTheirValue() {
        TokenBucket rate = TokenBucket.perSecond(10);

        GroupLimits limits = GroupLimits.builder().rate(rate).concurrency(4).build();

        assertThat(limits)
                .isEqualTo(GroupLimits.builder().rate(rate).concurrency(4).build());
        assertThat(limits.toBuilder().rate(null).build())
                .isEqualTo(GroupLimits.builder().rate(null).concurrency(4).build());
        assertThat(limits.toBuilder().concurrency(9).build())
                .isEqualTo(GroupLimits.builder().rate(rate).concurrency(9).build());
        assertThat(GroupLimits.none().concurrency()).as("none() is unchanged").isEqualTo(Integer.MAX_VALUE);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void concurrencyBelowOneIsRejectedNamingTheValueAndRange(int concurrency) {
        assertThatThrownBy(() -> GroupLimits.builder().concurrency(concurrency).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("group concurrency must be between 1 and 2147483647, was " + concurrency);
    }

    @Test
    void maxQueuedIsUnboundedByDefaultAndKeptByTheOtherWithers() {
        GroupLimits bounded = GroupLimits.builder().maxQueued(50).build();
        assertThat(GroupLimits.none().maxQueued()).isEqualTo(Integer.MAX_VALUE);
        assertThat(GroupLimits.builder().rate(null).concurrency(4).build().maxQueued())
                .isEqualTo(Integer.MAX_VALUE);
        assertThat(bounded.toBuilder().concurrency(3).build().maxQueued()).isEqualTo(50);
        assertThat(bounded.toBuilder().rate(TokenBucket.perSecond(1)).build().maxQueued())
                .isEqualTo(50);
        assertThat(bounded.toBuilder().concurrency(3).build().concurrency()).isEqualTo(3);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void maxQueuedBelowOneIsRejectedNamingTheValueAndRange(int maxQueued) {
        assertThatThrownBy(() -> GroupLimits.builder().maxQueued(maxQueued).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("group maxQueued must be between 1 and 2147483647, was " + maxQueued);
    }

    @Test
    void toStringListsOnlyTheLimitsThatAreSet() {
        RatePolicy rate = TokenBucket.perSecond(10);

        assertThat(GroupLimits.none()).hasToString("GroupLimits.none()");
        assertThat(GroupLimits.builder().concurrency(4).build()).hasToString("GroupLimits{concurrency=4}");
        assertThat(new GroupLimits(rate, 2, 500))
                .hasToString("GroupLimits{rate=" + rate + ", concurrency=2, maxQueued=500}");
    }
}
