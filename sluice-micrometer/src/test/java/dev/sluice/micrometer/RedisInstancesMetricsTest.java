package dev.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * Two instances of an application sharing one Redis, each with its own registry, as Prometheus scrapes them
 * (regression: each instance's meters listened to every instance's events, so a sum over instances counted every
 * job once per instance).
 */
class RedisInstancesMetricsTest {
    private static double count(SimpleMeterRegistry registry, String name) {
        return registry.get(name).tags(MeterNames.QUEUE, "mail").counter().count();
    }

    @Test
    void eachInstanceCountsWhatItDidSoThatASumOverInstancesCountsEachJobOnce() {
        String prefix = RedisEngines.newPrefix();
        SimpleMeterRegistry producerRegistry = new SimpleMeterRegistry();
        SimpleMeterRegistry workerRegistry = new SimpleMeterRegistry();
        try (Sluice producer = RedisEngines.newEngine(prefix);
                Sluice worker = RedisEngines.newEngine(prefix);
                SluiceMetrics producerMetrics = SluiceMetrics.bind(producer, producerRegistry);
                SluiceMetrics workerMetrics = SluiceMetrics.bind(worker, workerRegistry)) {
            JobQueue<String> adds = producer.queue("mail", Codec.utf8());
            JobQueue<String> works = worker.queue("mail", Codec.utf8());
            for (int i = 0; i < 30; i++) {
                adds.add("n", "p" + i);
            }
            try (Worker<String> running = works.worker(ctx -> Result.done(), WorkerOptions.concurrency(4))) {
                await().until(() -> count(workerRegistry, MeterNames.QUEUE_JOBS_COMPLETED) == 30);
            }

            assertThat(count(producerRegistry, MeterNames.QUEUE_JOBS_ADDED)).isEqualTo(30);
            assertThat(count(workerRegistry, MeterNames.QUEUE_JOBS_ADDED)).isZero();
            assertThat(count(producerRegistry, MeterNames.QUEUE_JOBS_COMPLETED)).isZero();
            assertThat(workerRegistry
                            .get(MeterNames.QUEUE_WAIT)
                            .tags(MeterNames.QUEUE, "mail")
                            .timer()
                            .count())
                    .isEqualTo(30);
        }
    }
}
