package dev.sluice.demo;

import static dev.sluice.demo.CommandRuns.listed;
import static dev.sluice.demo.CommandRuns.on;
import static dev.sluice.demo.CommandRuns.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.demo.CommandRuns.Ran;
import dev.sluice.demo.CommandRuns.RedisKeysOf;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.redis.RedisSluice;
import dev.sluice.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The commands that look after queues write nothing for a queue that does not exist, on a real Redis: each fails
 * naming the queues that do, and no key holds the name given; and a queue obliterated no longer exists for them.
 */
class MissingQueuesOnRedisTest {
    private static final AtomicInteger QUEUES = new AtomicInteger();
    private static final RedisServer REDIS = CommandRuns.REDIS;

    private Sluice engine;

    @BeforeEach
    void connect() {
        engine = RedisSluice.builder().url(REDIS.uri()).build();
    }

    @AfterEach
    void close() {
        engine.close();
    }

    /** A new queue of the test's engine, of UTF-8 text. */
    private JobQueue<String> newQueue() {
        return engine.queue("missing-" + QUEUES.incrementAndGet(), Codec.utf8());
    }

    @Test
    void obliterateRemovesEveryKeyOfAQueueWithoutWorkers() throws Exception {
        JobQueue<String> queue = newQueue();
        String q = queue.name();
        queue.add("charge", "x", JobOptions.builder().jobId("a").group("acme").build());
        queue.add("charge", "x", JobOptions.builder().delay(Duration.ofHours(1)).build());
        engine.close(); // nothing of this process uses the queue any more
        try (RedisKeysOf keys = new RedisKeysOf("*{" + q + "}*")) {
            assertThat(keys.now()).isNotEmpty();
            assertThat(on(q, "obliterate").json().toString())
                    .isEqualTo("{\"queue\":\"" + q + "\",\"obliterated\":true}");
            assertThat(keys.now()).isEmpty();
        }
        assertThat(listed(q)).isNull();
        try (Sluice other = RedisSluice.connect(REDIS.uri())) {
            on(q, "stats").failsWith(QueueCommands.doesNotExist(q, other.queueNames()));
        }
    }

    @Test
    void noCommandCreatesAQueueThatDoesNotExist() throws Exception {
        String existing = newQueue().name();
        String[][] commands = {
            {"stats"},
            {"jobs", "--state", "failed"},
            {"jobs", "--state", "waiting", "--group", "g"},
            {"job", "7"},
            {"retry", "7"},
            {"retry", "--all-failed"},
            {"remove", "7"},
            {"promote", "7"},
            {"pause"},
            {"pause", "--group", "g"},
            {"resume"},
            {"resume", "--group", "g"},
            {"clean", "--state", "failed"},
            {"drain", "--delayed"},
            {"obliterate", "--force"},
            {"groups"},
            {"workers"},
        };
        for (String[] command : commands) {
            Ran ran = on(
                    "typo",
                    command[0],
                    List.of(command).subList(1, command.length).toArray(String[]::new));
            ran.failsWith(QueueCommands.doesNotExist("typo", engine.queueNames()));
            assertThat(ran.err()).as(command[0]).startsWith("sluice: queue 'typo' does not exist (queues: ");
        }
        assertThat(run("queues", "--redis", REDIS.uri()).out()).doesNotContain("typo");
        assertThat(listed(existing)).isNotNull();
        try (RedisKeysOf typo = new RedisKeysOf("*typo*");
                RedisKeysOf other = new RedisKeysOf("*{" + existing + "}*")) {
            assertThat(typo.now()).isEmpty();
            assertThat(other.now()).as("the check sees the keys of a queue").isNotEmpty();
        }
    }
}
