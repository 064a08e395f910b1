package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.SluiceClock;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How the Redis engine keeps finished jobs (docs/redis-keys.md): each payload held once, in the kept job's record,
 * where every reader finds it; and a queue written by the earlier layout opens with everything it kept.
 */
class RedisKeptJobsTest {
    private final RedisCommands<String, String> redis = TestEngines.commands();

    @Test
    void keptJobsOfAQueueThatKeptThemInSortedSetsAreListedNewestFirstAndKeepTheirOrderAfterNewOnes() throws Exception {
        String prefix = TestEngines.newPrefix();
        List<String> finished = new ArrayList<>();
        try (Sluice sluice = TestEngines.on(SluiceClock.system(), prefix)) {
            JobQueue<String> queue = sluice.queue("q", Codec.utf8());
            run(queue, finished, "a", "b", "c");
        }
        String completed = prefix + ":queue:{q}:c";
        List<String> listed = redis.lrange(completed, 0, -1);
        assertThat(listed)
                .as("the kept list, newest first")
                .isEqualTo(List.of(finished.get(2), finished.get(1), finished.get(0)));
        redis.del(completed);
        for (int i = 0; i < finished.size(); i++) {
            redis.zadd(completed, ScoredValue.just(i + 1, finished.get(i)));
        }

        try (Sluice sluice = TestEngines.on(SluiceClock.system(), prefix)) {
            JobQueue<String> queue = sluice.queue("q", Codec.utf8());
            assertThat(redis.type(completed)).isEqualTo("list");
            assertThat(queue.counts().completed()).isEqualTo(3);
            run(queue, finished, "d");

            assertThat(queue.jobs(JobState.COMPLETED, 0, 10))
                    .extracting(Job::id)
                    .containsExactly(finished.get(3), finished.get(2), finished.get(1), finished.get(0));
            assertThat(queue.jobs(JobState.COMPLETED, 1, 2))
                    .extracting(Job::payload)
                    .containsExactly("c", "b");
        }
    }

    /** The payload is held once (not also in the payloads' hash), and every way of reading a kept job finds it. */
    @Test
    void aKeptJobsPayloadIsHeldInItsRecordAndReadByPagesListenersOfOtherProcessesAndItsRetry() throws Exception {
        String prefix = TestEngines.newPrefix();
        List<String> finished = new ArrayList<>();
        try (Sluice listening = TestEngines.on(SluiceClock.system(), prefix);
                Sluice working = TestEngines.on(SluiceClock.system(), prefix)) {
            List<String> heard = new CopyOnWriteArrayList<>();
            CountDownLatch completions = new CountDownLatch(3);
            listening.queue("q", Codec.utf8()).addListener(new QueueListener<>() {
                @Override
                public void onCompleted(Job<String> job) {
                    heard.add(job.payload());
                    completions.countDown();
                }
            });
            JobQueue<String> queue = working.queue("q", Codec.utf8());
            run(queue, finished, "a", "b");

            assertThat(redis.hexists(prefix + ":queue:{q}:p", finished.get(0))).isFalse();
            assertThat(queue.job(finished.get(0))).map(Job::payload).contains("a");
            assertThat(queue.payloadBytes(finished.get(1))).map(String::new).contains("b");
            assertThat(queue.jobs(JobState.COMPLETED, 0, 10))
                    .extracting(Job::payload)
                    .containsExactly("b", "a");

            queue.retry(finished.get(0), JobState.COMPLETED);
            List<String> processed = new CopyOnWriteArrayList<>();
            Worker<String> worker = queue.worker(
                    job -> {
                        processed.add(job.payload());
                        return Result.done();
                    },
                    WorkerOptions.concurrency(1));
            try {
                queue.whenFinished(finished.get(0)).get(10, TimeUnit.SECONDS);
            } finally {
                worker.close(Duration.ofSeconds(10));
            }
            assertThat(processed).as("what the retry ran with").containsExactly("a");
            assertThat(completions.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(heard).as("what the other process's listener heard").containsExactly("a", "b", "a");
        }
    }

    private static void run(JobQueue<String> queue, List<String> finished, String... payloads) throws Exception {
        Worker<String> worker = queue.worker(job -> Result.done(), WorkerOptions.concurrency(1));
        try {
            for (String payload : payloads) {
                String id = queue.add("job", payload).job().id();
                queue.whenFinished(id).get(10, TimeUnit.SECONDS);
                finished.add(id);
            }
        } finally {
            worker.close(Duration.ofSeconds(10));
        }
    }
}
