package dev.sluice.redis;

import dev.sluice.Sluice;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.testkit.redis.RedisServer;
import java.time.Duration;
import org.awaitility.Awaitility;

/** What the tests of a Redis outage share: an engine that notices one quickly, and a wait for its end. */
final class Outages {
    private Outages() {}

    /** An engine on {@code redis} whose calls time out after 500 ms and that tries again every 100 ms. */
    static Sluice quickToNotice(RedisServer redis) {
        return RedisSluice.builder()
                .url(redis.uri())
                .commandTimeout(Duration.ofMillis(500))
                .retryInterval(Duration.ofMillis(100))
                .build();
    }

    /** Waits until the engine of {@code queue} reaches Redis again: an add of job "after" goes through. */
    static void awaitReconnected(JobQueue<String> queue) {
        Awaitility.await("the engine reconnected")
                .atMost(Duration.ofSeconds(20))
                .ignoreExceptions()
                .until(() -> queue.add(
                                "after",
                                "p",
                                JobOptions.builder().jobId("after").build())
                        != null);
    }
}
