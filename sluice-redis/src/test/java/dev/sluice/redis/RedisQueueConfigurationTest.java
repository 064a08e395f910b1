package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.queue.Backoff;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A queue's configuration in Redis, shared by every process that opens the queue. */
class RedisQueueConfigurationTest {
    private static final GroupLimits TENANT = GroupLimits.builder()
            .rate(SlidingWindowLog.of(10, Duration.ofSeconds(1)))
            .concurrency(3)
            .build();

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
            GroupLimits other = GroupLimits.builder()
                    .rate(TokenBucket.perSecond(5))
                    .concurrency(2)
                    .build();

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

    @Test
    void aJobsCustomBackoffIsNeverReplacedByAnotherProcesssFunction() {
        // regression: a custom backoff crossed processes as its position in a list, so a worker in another JVM
        // retried a job meant to wait an hour after its own function at the same position (10 ms here)
        String prefix = TestEngines.newPrefix();
        ManualClock clock = new ManualClock();
        try (Sluice producer = TestEngines.on(clock, prefix);
                Sluice worker = TestEngines.on(clock, prefix)) {
            Backoff anHour = Backoff.custom((attempt, error) -> Duration.ofHours(1));
            producer.queue("jobs", Codec.utf8())
                    .add(
                            "hourly",
                            "p",
                            JobOptions.builder().attempts(3).backoff(anHour).build());
            JobQueue<String> there = worker.queue("jobs", Codec.utf8());
            Backoff tenMillis = Backoff.custom((attempt, error) -> Duration.ofMillis(10));
            there.add(
                    "local",
                    "p",
                    JobOptions.builder().attempts(3).backoff(tenMillis).build());

            try (Worker<String> failing = there.worker(
                    ctx -> {
                        throw new IllegalStateException("downstream down");
                    },
                    WorkerOptions.manual())) {
                failing.runDue();
            }

            Job<String> hourly = there.jobs(JobState.FAILED, 0, 10).stream()
                    .filter(job -> job.name().equals("hourly"))
                    .findFirst()
                    .orElseThrow();
            assertThat(hourly.failure().reason()).contains("custom backoff").contains("another process");
            assertThat(there.counts().delayed())
                    .as("the local job, after its own function")
                    .isEqualTo(1);
        }
    }
}
