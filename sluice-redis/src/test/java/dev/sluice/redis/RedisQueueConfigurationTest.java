package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.QueueOptions;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A queue's configuration in Redis, shared by every process that opens the queue. */
class RedisQueueConfigurationTest {
    private static final GroupLimits TENANT = new GroupLimits(SlidingWindowLog.of(10, Duration.ofSeconds(1)), 3);

    @Test
    void aProcessOpeningTheQueueWithDefaultOptionsLeavesTheStoredLimitsAsTheyAre() {
        String prefix = TestEngines.newPrefix();
        try (Sluice worker = TestEngines.on(SluiceClock.system(), prefix);
                Sluice producer = TestEngines.on(SluiceClock.system(), prefix)) {
            worker.queue(
                    "jobs",
                    Codec.utf8(),
                    QueueOptions.builder().groupDefaults(TENANT).build());

            assertThat(producer.queue("jobs", Codec.utf8()).groupLimits("acme"))
                    .as("opened with the defaults: nothing overwritten")
                    .isEqualTo(TENANT);
        }
    }

    @Test
    void optionsGivenAtOpenAndLimitsSetAtRunTimeHoldForEveryProcess() {
        String prefix = TestEngines.newPrefix();
        try (Sluice first = TestEngines.on(SluiceClock.system(), prefix);
                Sluice second = TestEngines.on(SluiceClock.system(), prefix);
                Sluice third = TestEngines.on(SluiceClock.system(), prefix)) {
            var queue = first.queue(
                    "jobs",
                    Codec.utf8(),
                    QueueOptions.builder().groupDefaults(TENANT).build());
            GroupLimits other = new GroupLimits(TokenBucket.perSecond(5), 2);

            second.queue(
                    "jobs",
                    Codec.utf8(),
                    QueueOptions.builder().groupDefaults(other).build());
            assertThat(queue.groupLimits("acme"))
                    .as("given at open: written for all")
                    .isEqualTo(other);

            queue.setGroupLimits("acme", TENANT);
            assertThat(third.queue("jobs", Codec.utf8()).groupLimits("acme")).isEqualTo(TENANT);
            assertThat(third.queue("jobs", Codec.utf8()).groupLimits("globex")).isEqualTo(other);
        }
    }
}
