package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.testkit.QueueContractSupport.Events;
import dev.sluice.time.SluiceClock;
import io.lettuce.core.api.StatefulRedisConnection;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A local listener hears the changes of its own process only, from that process's calls, and makes no process
 * write events to Redis (regression: metrics listened to every process's events, so each instance counted every
 * instance's jobs and a sum over instances multiplied them).
 */
class RedisLocalListenerTest {
    @Test
    void eachProcessHearsOnlyItsOwnAddsAndAttemptsAndNoEventsAreWritten() {
        String prefix = TestEngines.newPrefix();
        try (Sluice producer = TestEngines.on(SluiceClock.system(), prefix);
                Sluice worker = TestEngines.on(SluiceClock.system(), prefix)) {
            JobQueue<String> adds = producer.queue("jobs", Codec.utf8());
            JobQueue<String> works = worker.queue("jobs", Codec.utf8());
            Events atProducer = new Events();
            Events atWorker = new Events();
            adds.addLocalListener(atProducer);
            works.addLocalListener(atWorker);

            for (int i = 0; i < 20; i++) {
                adds.add("n", "p", JobOptions.builder().jobId("j" + i).build());
            }
            try (Worker<String> running = works.worker(ctx -> Result.done(), WorkerOptions.concurrency(4))) {
                Awaitility.await()
                        .until(() -> atWorker.log.stream()
                                        .filter(e -> e.startsWith("completed"))
                                        .count()
                                == 20);
            }

            assertThat(atProducer.log).hasSize(20).allMatch(e -> e.startsWith("added "));
            assertThat(atWorker.log)
                    .allMatch(e -> e.startsWith("active ") || e.startsWith("completed ") || e.equals("drained"));
            try (StatefulRedisConnection<String, String> redis =
                    TestEngines.client().connect()) {
                assertThat(redis.sync().keys(prefix + ":queue:{jobs}:ev*"))
                        .as("no event stream")
                        .isEmpty();
                assertThat(redis.sync().exists(prefix + ":queue:{jobs}:listening"))
                        .isZero();
            }

            assertThat(works.removeListener(atWorker)).isTrue();
            assertThat(works.removeListener(atWorker)).isFalse();
        }
    }
}
