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
import java.util.List;
import org.junit.jupiter.api.Test;

/** What only a queue in Redis refuses: payloads over the engine's size limit, another codec than the stored one. */
class RedisQueueBadInputTest {

    private static Sluice engine(String prefix, int maxPayloadBytes) {
        return RedisSluice.builder()
                .client(TestEngines.client())
                .keyPrefix(prefix)
                .maxPayloadBytes(maxPayloadBytes)
                .build();
    }

    @Test
    void aPayloadOverTheLimitIsRefusedAndNothingOfTheBulkIsAdded() {
        try (Sluice sluice = engine(TestEngines.newPrefix(), 10)) {
            JobQueue<String> queue = sluice.queue("jobs", Codec.utf8());

            assertThat(queue.add("n", "0123456789").job().id())
                    .as("exactly the limit fits")
                    .isNotNull();
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
            assertThat(queue.counts()).isEqualTo(new JobCounts(1, 0, 0, 0, 0));
        }
    }

    @Test
    void theDefaultLimitIs512KiB() {
        try (Sluice sluice = RedisSluice.builder()
                .client(TestEngines.client())
                .keyPrefix(TestEngines.newPrefix())
                .build()) {
            JobQueue<byte[]> queue = sluice.queue("jobs", Codec.bytes());
            queue.add("fits", new byte[512 * 1024]);
            assertThatThrownBy(() -> queue.add("over", new byte[512 * 1024 + 1]))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("maxPayloadBytes 524288");
            assertThat(queue.counts().waiting()).isEqualTo(1);
        }
    }

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
    void aLimitOutOfRangeIsRefusedByTheBuilder() {
        assertThatThrownBy(() -> RedisSluice.builder().maxPayloadBytes(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to 536870912");
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
