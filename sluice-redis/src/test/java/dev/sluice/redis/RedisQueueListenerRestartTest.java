package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueListener;
import dev.sluice.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A listener follows another process's events through a restart of Redis (its append-only file keeps the queue):
 * it hears what happened before and after, without being told again or told of anything missed.
 */
@Tag("slow")
class RedisQueueListenerRestartTest {
    private RedisServer redis;

    @BeforeEach
    void start() {
        redis = RedisServer.start("--appendonly", "yes", "--appendfsync", "always");
    }

    @AfterEach
    void stop() {
        redis.close();
    }

    @Test
    void aListenerHearsAnotherProcessesEventsBeforeAndAfterRedisRestarts() {
        try (Sluice listening = engine();
                Sluice producing = engine()) {
            List<String> added = new CopyOnWriteArrayList<>();
            List<Long> missed = new CopyOnWriteArrayList<>();
            listening.queue("jobs", Codec.utf8()).addListener(new QueueListener<>() {
                @Override
                public void onAdded(Job<String> job) {
                    added.add(job.id());
                }

                @Override
                public void onEventsMissed(long count) {
                    missed.add(count);
                }
            });
            JobQueue<String> queue = producing.queue("jobs", Codec.utf8());
            queue.add("job", "x", JobOptions.builder().jobId("before").build());
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> added.contains("before"));

            redis.restart();
            Awaitility.await("the producer adds again once Redis is back")
                    .atMost(Duration.ofSeconds(20))
                    .ignoreExceptions()
                    .until(() -> queue.add(
                                    "job",
                                    "x",
                                    JobOptions.builder().jobId("after").build())
                            != null);

            Awaitility.await("the listener hears the add after the restart")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> added.contains("after"));
            assertThat(added).containsExactly("before", "after");
            assertThat(missed).isEmpty();
        }
    }

    private Sluice engine() {
        return RedisSluice.builder()
                .url(redis.uri())
                .commandTimeout(Duration.ofMillis(500))
                .retryInterval(Duration.ofMillis(200))
                .build();
    }
}
