package dev.sluice.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Rates and concurrency are types of their own, so a concurrency limit given as a queue's rate does not compile. */
class RatePolicyTest {
    @Test
    void everyPolicyButTheConcurrencyLimitIsARate() {
        assertThat(List.of(
                        TokenBucket.class,
                        Gcra.class,
                        FixedWindow.class,
                        SlidingWindowCounter.class,
                        SlidingWindowLog.class))
                .allMatch(RatePolicy.class::isAssignableFrom);
        assertThat(RatePolicy.class.isAssignableFrom(ConcurrencyLimit.class)).isFalse();
        assertThat(LimitPolicy.class.getPermittedSubclasses())
                .containsExactlyInAnyOrder(RatePolicy.class, ConcurrencyLimit.class);
    }

    @Test
    void queuesAndGroupsTakeOnlyRatePolicies() throws NoSuchMethodException {
        assertThat(QueueOptions.Builder.class.getMethod("rate", RatePolicy.class))
                .isNotNull();
        assertThat(GroupLimits.Builder.class.getMethod("rate", RatePolicy.class))
                .isNotNull();
        assertThat(JobQueue.class.getMethod("setRate", RatePolicy.class)).isNotNull();
        assertThat(QueueOptions.class.getMethod("rate").getReturnType()).isEqualTo(RatePolicy.class);
    }
}
