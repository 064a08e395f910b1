package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.testkit.redis.RedisServer;
import dev.sluice.time.ManualClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A queue's {@code counts()} and {@code isPaused()} write nothing (issue 22: every health probe and metrics scrape
 * wrote to Redis, because each call applied what was due first), and the counts are what a call that applies it
 * reports: delayed jobs come due, leases run out (a job waits again, or fails for good and evicts a kept one), kept
 * jobs expire. Two engines stand for two processes, each on its own manual clock: the one whose clock stands still
 * holds the leases and renews nothing.
 */
@Tag("slow")
class RedisReadOnlyCountsTest {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Pattern RDB_CHANGES = Pattern.compile("rdb_changes_since_last_save:(\\d+)");

    private final ManualClock frozen = new ManualClock(START);
    private final ManualClock clock = new ManualClock(START);
    private final CountDownLatch go = new CountDownLatch(1);
    private final List<Thread> held = new ArrayList<>();

    @ParameterizedTest(name = "functions {0}, at {1} s")
    @CsvSource({"true, '0 10 31 46 51'", "true, '60'", "false, '0 10 31 46 51'", "false, '60'"})
    void countsWriteNothingAndMatchACallThatAppliedWhatIsDue(boolean functions, String seconds) throws Exception {
        try (RedisServer redis = RedisServer.start();
                Sluice a = engine(redis, frozen, functions);
                Sluice b = engine(redis, clock, functions);
                AutoCloseable release = go::countDown) {
            JobQueue<String> queue = b.queue("jobs", Codec.utf8());
            finishDoneAndBad(queue);
            JobQueue<String> holder = a.queue("jobs", Codec.utf8());
            hold(holder, "stuck-fails", 0);
            hold(holder, "stuck-waits", 1);
            queue.add(
                    "n",
                    "p",
                    JobOptions.builder()
                            .jobId("soon")
                            .delay(Duration.ofSeconds(10))
                            .build());
            queue.add(
                    "n",
                    "p",
                    JobOptions.builder()
                            .jobId("later")
                            .delay(Duration.ofSeconds(50))
                            .build());

            RedisClient admin = RedisClient.create(redis.uri());
            try (StatefulRedisConnection<String, String> connection = admin.connect()) {
                long at = 0;
                for (String second : seconds.split(" ")) {
                    clock.advance(Duration.ofSeconds(Long.parseLong(second) - at));
                    at = Long.parseLong(second);
                    long before = rdbChanges(connection);
                    JobCounts read = queue.counts();
                    assertThat(queue.isPaused()).isFalse();
                    assertThat(rdbChanges(connection)).as("writes at %d s", at).isEqualTo(before);

                    queue.resume(); // a call that writes, and so applies what is due first
                    assertThat(read).as("at %d s", at).isEqualTo(queue.counts());
                }
            } finally {
                admin.shutdown();
            }
            assertThat(queue.counts())
                    .as("soon, later and stuck-waits wait; stuck-fails is kept, evicting bad; done expired")
                    .isEqualTo(new JobCounts(3, 0, 0, 0, 1));
        }
        for (Thread thread : held) {
            thread.join(10_000);
        }
    }

    private static Sluice engine(RedisServer redis, ManualClock clock, boolean functions) {
        return RedisSluice.builder()
                .url(redis.uri())
                .keyPrefix("ro")
                .commandTimeout(Duration.ofSeconds(30))
                .redisFunctions(functions)
                .scriptClock(clock)
                .build();
    }

    /**
     * A completed job kept for 45 s, and a failed one kept for 40 s: at 60 s at once, a job that fails for good
     * evicts it as it expires, and it counts once.
     */
    private static void finishDoneAndBad(JobQueue<String> queue) {
        queue.add(
                "n",
                "p",
                JobOptions.builder()
                        .jobId("done")
                        .keepCompleted(Retention.keepFor(Duration.ofSeconds(45)))
                        .build());
        queue.add(
                "n",
                "p",
                JobOptions.builder()
                        .jobId("bad")
                        .attempts(1)
                        .keepFailed(Retention.keepFor(Duration.ofSeconds(40)))
                        .build());
        try (Worker<String> worker = queue.worker(
                ctx -> {
                    if (ctx.job().id().equals("bad")) {
                        throw new IllegalStateException("bad");
                    }
                    return Result.done();
                },
                WorkerOptions.manual())) {
            assertThat(worker.runDue()).isEqualTo(2);
        }
    }

    /**
     * Adds job {@code id}, kept after failing only while it is the last, and lets a worker of the frozen engine claim
     * it and hold it until the test ends, with {@code maxStalls}.
     */
    private void hold(JobQueue<String> queue, String id, int maxStalls) throws InterruptedException {
        queue.add(
                "n",
                "p",
                JobOptions.builder().jobId(id).keepFailed(Retention.keepLast(1)).build());
        CountDownLatch started = new CountDownLatch(1);
        Worker<String> worker = queue.worker(
                ctx -> {
                    started.countDown();
                    go.await();
                    return Result.done();
                },
                WorkerOptions.builder()
                        .autoStart(false)
                        .leaseTime(LEASE)
                        .maxStalls(maxStalls)
                        .build());
        held.add(Thread.ofVirtual().start(worker::runDue));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    }

    private static long rdbChanges(StatefulRedisConnection<String, String> connection) {
        Matcher changes = RDB_CHANGES.matcher(connection.sync().info("persistence"));
        assertThat(changes.find()).isTrue();
        return Long.parseLong(changes.group(1));
    }
}
