package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueOptions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bounds every engine applies alike, so that a program that passes its tests in memory behaves the same on a
 * shared engine: the payload bound of a queue, the longest span of a policy ({@link LimitPolicy#MAX_SPAN}), and
 * what {@code null} means where a group is named.
 */
public abstract class QueueBoundsContract extends QueueContractSupport {
    /** For subclasses, one per engine. */
    protected QueueBoundsContract() {}

    @Test
    void aPayloadOf512KiBFitsByDefaultAndOneByteMoreIsRefusedWithNothingAdded() {
        JobQueue<byte[]> queue = engine.queue(QUEUE, Codec.bytes());
        queue.add("fits", new byte[QueueOptions.DEFAULT_MAX_PAYLOAD_BYTES]);

        assertThatThrownBy(() -> queue.add("over", new byte[512 * 1024 + 1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job 'over'")
                .hasMessageContaining("524289 bytes")
                .hasMessageContaining("maxPayloadBytes 524288")
                .hasMessageContaining("QueueOptions.builder().maxPayloadBytes");
        assertThat(queue.counts().waiting()).isEqualTo(1);
    }

    @Test
    void aQueuesOwnPayloadBoundHoldsForSingleBulkAndAsyncAddsAndABulkOverItAddsNothing() {
        JobQueue<String> queue =
                newQueue(QueueOptions.builder().maxPayloadBytes(10).build());
        queue.add("exact", "0123456789");

        assertThatThrownBy(() -> queue.add("big", "01234567890"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job 'big'")
                .hasMessageContaining("11 bytes")
                .hasMessageContaining("maxPayloadBytes 10");
        assertThatThrownBy(() -> queue.addBulk(List.of(
                        new NewJob<>("small", "a", JobOptions.empty()),
                        new NewJob<>("big", "01234567890", JobOptions.empty()))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job 1 ('big') of the bulk")
                .hasMessageContaining("nothing was added");
        assertThatThrownBy(() -> queue.addAsync("big", "01234567890", JobOptions.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxPayloadBytes 10");
        assertThat(queue.counts().waiting()).isEqualTo(1);
    }

    @Test
    void aPayloadBoundOutOfRangeIsRefusedNamingTheRange() {
        assertThatThrownBy(() -> QueueOptions.builder().maxPayloadBytes(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxPayloadBytes")
                .hasMessageContaining("536870912")
                .hasMessageContaining("was 0");
        assertThatThrownBy(() -> QueueOptions.builder()
                        .maxPayloadBytes(QueueOptions.MAX_PAYLOAD_BYTES + 1)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxPayloadBytes");
    }

    @Test
    void aLimiterOfTheLongestSpanDecidesAndALongerPolicyCannotBeMade() {
        RateLimiter longest = engine.limiter("longest", FixedWindow.of(2, LimitPolicy.MAX_SPAN));
        assertThat(longest.tryAcquire("k").allowed()).isTrue();
        assertThat(longest.tryAcquire("k").allowed()).isTrue();
        Decision third = longest.tryAcquire("k");
        assertThat(third.allowed()).isFalse();
        assertThat(third.retryAfter()).isPositive().isLessThanOrEqualTo(LimitPolicy.MAX_SPAN);

        assertThatThrownBy(() -> FixedWindow.of(10, Duration.ofDays(365)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("LimitPolicy.MAX_SPAN");
    }

    @Test
    void aQueueRateOfTheLongestSpanIsTakenAndReadBack() {
        SlidingWindowLog rate = SlidingWindowLog.of(5, LimitPolicy.MAX_SPAN);
        JobQueue<String> queue = newQueue(QueueOptions.builder().rate(rate).build());

        assertThat(queue.options().rate()).isEqualTo(rate);
    }

    @Test
    void aNullGroupMeansNoGroupWhereverAGroupIsNamed() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", JobOptions.builder().jobId("j").group(null).build());

        assertThat(job(queue, "j").group()).isNull();
        assertThat(queue.stats(null).counts().waiting()).isEqualTo(1);
        assertThat(queue.groupLimits(null)).isEqualTo(GroupLimits.none());
    }

    @Test
    void aNullGroupInAJobTakesTheGroupOfTheQueuesJobDefaults() {
        JobQueue<String> queue = newQueue(JobOptions.builder().group("tenant-1"));
        queue.add("n", "p", JobOptions.builder().jobId("j").group(null).build());

        assertThat(job(queue, "j").group()).isEqualTo("tenant-1");
    }

    @Test
    void theUngroupedJobsHaveNoLimitsOfTheirOwnToSetOrClear() {
        JobQueue<String> queue = newQueue();
        GroupLimits limits = GroupLimits.builder().rate(null).concurrency(2).build();

        assertThatThrownBy(() -> queue.setGroupLimits(null, limits))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("setGroupLimits needs a group's name, was null")
                .hasMessageContaining("setGroupDefaults");
        assertThatThrownBy(() -> queue.clearGroupLimits(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clearGroupLimits needs a group's name");
        assertThatThrownBy(() -> JobOptions.builder().group(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("group must be 1 to 512 characters, was empty");
    }
}
