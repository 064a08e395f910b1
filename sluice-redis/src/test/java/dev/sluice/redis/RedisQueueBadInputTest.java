package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Result;
import dev.sluice.queue.Schedule;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What only a queue in Redis meets: names that hold its key separators, another codec than the stored one. */
class RedisQueueBadInputTest {

    @Test
    void idsAndGroupsMayHoldTheKeySeparatorsAndBraces() {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        try (Sluice sluice = TestEngines.on(clock)) {
            JobQueue<String> queue = sluice.queue("jobs", Codec.utf8());
            String id = "a:b|c{d}e";
            String group = "g}{:|";
            queue.add("n", "p", JobOptions.builder().jobId(id).group(group).build());
            queue.repeat(
                    "r|e:p{", Schedule.fixedRate(Duration.ofSeconds(10)), new NewJob<>("n", "p", JobOptions.empty()));
            Worker<String> worker = queue.worker(ctx -> Result.done(), WorkerOptions.manual());

            assertThat(worker.runDue()).isEqualTo(2);
            clock.advance(Duration.ofSeconds(10));
            assertThat(worker.runDue()).as("the repeatable's next run came due").isEqualTo(1);

            Job<String> job = queue.job(id).orElseThrow();
            assertThat(job.state()).isEqualTo(JobState.COMPLETED);
            assertThat(job.group()).isEqualTo(group);
            assertThat(queue.stats(group).completed()).isEqualTo(1);
            assertThat(queue.repeatables().get(0).runs()).isEqualTo(3);
        }
    }

    @Test
    void aQueueOpenedWithAnotherCodecByAnotherProcessIsRefusedAndLeftAsItWas() {
        String prefix = TestEngines.newPrefix();
        try (Sluice first = TestEngines.on(SluiceClock.system(), prefix);
                Sluice second = TestEngines.on(SluiceClock.system(), prefix)) {
            first.queue("jobs", Codec.utf8()).add("n", "p");

            assertThatThrownBy(() -> second.queue("jobs", Codec.bytes()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("queue 'jobs' in Redis was created with codec named 'utf8'")
                    .hasMessageContaining("cannot be opened with codec named 'bytes'");
            assertThat(second.queue("jobs", Codec.utf8()).counts()).isEqualTo(new JobCounts(1, 0, 0, 0, 0));
        }
    }
}
