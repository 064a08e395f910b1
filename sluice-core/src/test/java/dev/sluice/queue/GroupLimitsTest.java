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
        assertThat(GroupLimits.none().withRate(rate).rate()).isEqualTo(rate);
    }

    @Test
    void withRateAndWithConcurrencyChangeOnlyTheirValue() {
        TokenBucket rate = TokenBucket.perSecond(10);

        GroupLimits limits = GroupLimits.none().withRate(rate).withConcurrency(4);

        assertThat(limits).isEqualTo(new GroupLimits(rate, 4));
        assertThat(limits.withRate(null)).isEqualTo(new GroupLimits(null, 4));
        assertThat(limits.withConcurrency(9)).isEqualTo(new GroupLimits(rate, 9));
        assertThat(GroupLimits.none().concurrency()).as("none() is unchanged").isEqualTo(Integer.MAX_VALUE);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void concurrencyBelowOneIsRejectedNamingTheValueAndRange(int concurrency) {
        assertThatThrownBy(() -> GroupLimits.none().withConcurrency(concurrency))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("group concurrency must be between 1 and 2147483647, was " + concurrency);
    }

    @Test
    void maxQueuedIsUnboundedByDefaultAndKeptByTheOtherWithers() {
        GroupLimits bounded = GroupLimits.none().withMaxQueued(50);
        assertThat(GroupLimits.none().maxQueued()).isEqualTo(Integer.MAX_VALUE);
        assertThat(new GroupLimits(null, 4).maxQueued()).isEqualTo(Integer.MAX_VALUE);
        assertThat(bounded.withConcurrency(3).maxQueued()).isEqualTo(50);
        assertThat(bounded.withRate(TokenBucket.perSecond(1)).maxQueued()).isEqualTo(50);
        assertThat(bounded.withConcurrency(3).concurrency()).isEqualTo(3);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void maxQueuedBelowOneIsRejectedNamingTheValueAndRange(int maxQueued) {
        assertThatThrownBy(() -> GroupLimits.none().withMaxQueued(maxQueued))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("group maxQueued must be between 1 and 2147483647, was " + maxQueued);
    }

    @Test
    void toStringListsOnlyTheLimitsThatAreSet() {
        RatePolicy rate = TokenBucket.perSecond(10);

        assertThat(GroupLimits.none()).hasToString("GroupLimits.none()");
        assertThat(GroupLimits.none().withConcurrency(4)).hasToString("GroupLimits{concurrency=4}");
        assertThat(new GroupLimits(rate, 2, 500))
                .hasToString("GroupLimits{rate=" + rate + ", concurrency=2, maxQueued=500}");
    }
}
