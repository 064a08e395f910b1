package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueStats;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * A queue claims without writing records (its attempts beside them, see Active jobs in queue-state.lua) only while
 * every job not finished completes without its record: a kept job, one with a de-duplication window, and a queue
 * whose count of such jobs Redis lost make it claim by writing records, and their completions keep what they must.
 */
class RedisPlainQueueTest {
    private final String prefix = TestEngines.newPrefix();
    private final String base = prefix + ":queue:{plain}";
    /** Per job id: whether its attempt was a field of its own while it ran. */
    private final Map<String, Boolean> byAttempt = new ConcurrentHashMap<>();

    private Worker<String> worker(JobQueue<String> queue) {
        return queue.worker(
                ctx -> {
                    byAttempt.put(
                            ctx.job().id(),
                            TestEngines.hasAttempt(base, ctx.job().id()));
                    return Result.done();
                },
                WorkerOptions.manual());
    }

    private static JobOptions plain(String id) {
        return JobOptions.builder()
                .jobId(id)
                .keepCompleted(Retention.keepNone())
                .build();
    }

    private static void runAll(Worker<String> worker) {
        while (worker.runDue() > 0) {
            // until nothing is due
        }
    }

    @Test
    void aJobThatNeedsItsRecordMakesTheQueueWriteRecordsUntilItFinishes() {
        try (Sluice sluice = TestEngines.on(new ManualClock(Instant.parse("2026-01-01T00:00:00Z")), prefix)) {
            JobQueue<String> queue = sluice.queue("plain", Codec.utf8());
            queue.add("n", "p", plain("first"));
            Worker<String> worker = worker(queue);
            runAll(worker);
            assertThat(byAttempt).containsEntry("first", true);

            JobOptions once = JobOptions.builder()
                    .jobId("once")
                    .keepCompleted(Retention.keepNone())
                    .deduplicateFor(Duration.ofHours(1))
                    .build();
            queue.add("n", "p", plain("a"));
            queue.add("n", "p", once);
            queue.add("n", "p", plain("b"));
            // finishes last: a job kept by none that finishes after it would take it out of the kept ones
            queue.add(
                    "n",
                    "p",
                    JobOptions.builder()
                            .jobId("kept")
                            .keepCompleted(Retention.keepAll())
                            .build());
            runAll(worker);

            assertThat(byAttempt)
                    .containsEntry("a", false)
                    .containsEntry("once", false)
                    .containsEntry("b", false)
                    .containsEntry("kept", false);
            assertThat(queue.job("kept"))
                    .hasValueSatisfying(job -> assertThat(job.state()).isEqualTo(JobState.COMPLETED));
            assertThat(queue.job("a")).isEmpty();
            assertThat(queue.add("n", "again", once).duplicate())
                    .as("its id remembered for its window")
                    .isTrue();
        }
    }

    @Test
    void aQueueWhoseCountRedisLostWritesRecordsUntilItHoldsNoJob() {
        try (Sluice sluice = TestEngines.on(new ManualClock(Instant.parse("2026-01-01T00:00:00Z")), prefix)) {
            JobQueue<String> queue = sluice.queue("plain", Codec.utf8());
            queue.add("n", "p", plain("a"));
            queue.add("n", "p", plain("b"));
            TestEngines.commands().hdel(base + ":m", "sp");
            Worker<String> worker = worker(queue);
            runAll(worker);
            assertThat(byAttempt).containsEntry("a", false).containsEntry("b", false);

            queue.add("n", "p", plain("c"));
            runAll(worker);
            assertThat(byAttempt).containsEntry("c", true);
        }
    }

    /**
     * A call's completions in a plain queue move the counts of each group once for all of them (held.completed in
     * queue-moves.lua); failures between them see the counts as each completion left them. Whatever way a worker's
     * calls gather them, every job is counted once, in its group and in the queue, and the groups are let go.
     */
    @Test
    void completionsGatheredInOneCallAreEachCountedOnceInTheirGroups() {
        try (Sluice sluice = TestEngines.on(SluiceClock.system(), prefix)) {
            JobQueue<String> queue = sluice.queue("plain", Codec.utf8());
            int jobs = 300;
            List<NewJob<String>> batch = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                batch.add(new NewJob<>(
                        "n",
                        Integer.toString(i),
                        JobOptions.builder()
                                .group("g" + i % 3)
                                .attempts(1)
                                .keepCompleted(Retention.keepNone())
                                .build()));
            }
            queue.addBulk(batch);
            Worker<String> worker = queue.worker(
                    ctx -> {
                        if (Integer.parseInt(ctx.job().payload()) % 10 == 7) {
                            throw new IllegalStateException("a failure between completions");
                        }
                        return Result.done();
                    },
                    WorkerOptions.concurrency(20));
            try {
                // completed jobs are kept by none: the queue's total counts them
                await().atMost(Duration.ofSeconds(30))
                        .untilAsserted(() -> assertThat(queue.stats().completed()
                                        + queue.counts().failed())
                                .isEqualTo(jobs));
            } finally {
                worker.close();
            }

            assertThat(queue.counts()).isEqualTo(new JobCounts(0, 0, 0, 0, jobs / 10));
            assertThat(queue.stats().completed()).isEqualTo(jobs - jobs / 10);
            for (int g = 0; g < 3; g++) {
                QueueStats group = queue.stats("g" + g);
                assertThat(group.completed()).as("g%d completed", g).isEqualTo(90);
                assertThat(group.failed()).as("g%d failed", g).isEqualTo(10);
                assertThat(group.counts().active()).as("g%d active", g).isZero();
            }
            assertThat(TestEngines.commands().hlen(base + ":j"))
                    .as("records left: the failed jobs'")
                    .isEqualTo(jobs / 10);
        }
    }
}
