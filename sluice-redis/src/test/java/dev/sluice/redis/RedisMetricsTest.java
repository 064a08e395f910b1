package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Backoff;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueMetrics;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A queue's metrics are told of their own process's changes only, and make no process write events to Redis
 * (regression: metrics listened to every process's events, so each instance counted every instance's jobs and a
 * sum over instances multiplied them); a wait is measured by the engine, whichever process made the job ready.
 */
class RedisMetricsTest {
    /** Metrics that log each add, start and completion. */
    private static final class Log implements QueueMetrics {
        final List<String> log = new CopyOnWriteArrayList<>();

        @Override
        public void added(String group) {
            log.add("added");
        }

        @Override
        public void started(String group, Duration waited) {
            log.add("started " + waited);
        }

        @Override
        public void completed(String group, Duration processing) {
            log.add("completed");
        }

        @Override
        public void retrying(String group, dev.sluice.queue.Job.Attempt.Outcome outcome, Duration processing) {
            log.add("retrying " + outcome + " " + processing);
        }
    }

    @Test
    void eachProcessIsToldOnlyOfItsOwnAddsAndAttemptsAndNoEventsAreWritten() {
        String prefix = TestEngines.newPrefix();
        try (Sluice producer = TestEngines.on(SluiceClock.system(), prefix);
                Sluice worker = TestEngines.on(SluiceClock.system(), prefix)) {
            JobQueue<String> adds = producer.queue("jobs", Codec.utf8());
            JobQueue<String> works = worker.queue("jobs", Codec.utf8());
            Log atProducer = new Log();
            Log atWorker = new Log();
            adds.addMetrics(atProducer);
            works.addMetrics(atWorker);

            for (int i = 0; i < 20; i++) {
                adds.add("n", "p", JobOptions.builder().jobId("j" + i).build());
            }
            try (Worker<String> running = works.worker(ctx -> Result.done(), WorkerOptions.concurrency(4))) {
                Awaitility.await()
                        .until(() -> atWorker.log.stream()
                                        .filter(e -> e.equals("completed"))
                                        .count()
                                == 20);
            }

            assertThat(atProducer.log).hasSize(20).containsOnly("added");
            assertThat(atWorker.log).hasSize(40).allMatch(e -> e.startsWith("started ") || e.equals("completed"));
            try (StatefulRedisConnection<String, String> redis =
                    TestEngines.client().connect()) {
                assertThat(redis.sync().keys(prefix + ":queue:{jobs}:ev*"))
                        .as("no event stream")
                        .isEmpty();
                assertThat(redis.sync().exists(prefix + ":queue:{jobs}:listening"))
                        .isZero();
            }
        }
    }

    @Test
    void aRetryStartedInAnotherProcessWaitsFromTheEndOfTheBackoffTheFirstProcessSet() {
        String prefix = TestEngines.newPrefix();
        ManualClock clock = new ManualClock();
        try (Sluice first = TestEngines.on(clock, prefix);
                Sluice second = TestEngines.on(clock, prefix)) {
            JobQueue<String> atFirst = first.queue("jobs", Codec.utf8());
            JobQueue<String> atSecond = second.queue("jobs", Codec.utf8());
            Log firstLog = new Log();
            Log secondLog = new Log();
            atFirst.addMetrics(firstLog);
            atSecond.addMetrics(secondLog);
            atFirst.add(
                    "n",
                    "p",
                    JobOptions.builder()
                            .jobId("j")
                            .attempts(2)
                            .backoff(Backoff.fixed(Duration.ofSeconds(1)))
                            .build());

            try (Worker<String> failing = atFirst.worker(
                    ctx -> {
                        clock.advance(Duration.ofMillis(30));
                        throw new IllegalStateException("first attempt fails");
                    },
                    WorkerOptions.manual())) {
                failing.runDue();
            }
            clock.advance(Duration.ofMillis(1_250));
            try (Worker<String> completing = atSecond.worker(ctx -> Result.done(), WorkerOptions.manual())) {
                completing.runDue();
            }

            assertThat(firstLog.log).containsExactly("added", "started PT0S", "retrying FAILED PT0.03S");
            assertThat(secondLog.log).containsExactly("started PT0.25S", "completed");
        }
    }
}
