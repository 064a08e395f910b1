package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Redis queue through a Redis that is killed and started again with its append-only file: no acknowledged job is
 * lost, an add while Redis is down fails within the command timeout saying its outcome is unknown, and producers and
 * the running worker go on by themselves once Redis is back.
 */
class RedisQueueOutageTest {
    private RedisServer redis;

    @BeforeEach
    void startRedis() {
        redis = RedisServer.start("--appendonly", "yes", "--appendfsync", "always");
    }

    @AfterEach
    void stopRedis() {
        redis.close();
    }

    /** Adds job {@code id}, trying again while Redis is unavailable, as a producer that keeps its job would. */
    private static void addUntilAccepted(JobQueue<String> queue, String id) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .ignoreException(SluiceException.class)
                .until(() -> queue.add("n", "p", JobOptions.builder().jobId(id).build()) != null);
    }

    @Test
    void acknowledgedJobsSurviveAKilledRedisAndEveryoneGoesOnByThemselves() throws Exception {
        try (Sluice sluice = RedisSluice.builder()
                .url(redis.uri())
                .commandTimeout(Duration.ofMillis(500))
                .build()) {
            JobQueue<String> queue = sluice.queue("jobs", Codec.utf8());
            List<String> acknowledged = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                queue.add("n", "p", JobOptions.builder().jobId("before" + i).build());
                acknowledged.add("before" + i);
            }
            Worker<String> worker = queue.worker(
                    ctx -> {
                        Thread.sleep(20);
                        return Result.done();
                    },
                    WorkerOptions.concurrency(2).withLeaseTime(Duration.ofSeconds(10)));
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> queue.counts().completed() >= 3);

            redis.kill();
            long started = System.nanoTime();
            assertThatThrownBy(() -> queue.add(
                            "n", "p", JobOptions.builder().jobId("during").build()))
                    .isInstanceOf(SluiceException.class)
                    .hasMessageContaining("outcome is unknown");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
            Thread.sleep(500);
            redis.restart();

            for (int i = 0; i < 20; i++) {
                addUntilAccepted(queue, "after" + i);
                acknowledged.add("after" + i);
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(50))
                    .ignoreException(SluiceException.class)
                    .until(() -> acknowledged.stream()
                            .allMatch(id -> queue.job(id)
                                    .map(j -> j.state() == JobState.COMPLETED)
                                    .orElse(false)));
            worker.close(Duration.ofSeconds(5));
            assertThat(queue.counts().waiting()
                            + queue.counts().active()
                            + queue.counts().delayed())
                    .isZero();
        }
    }
}
