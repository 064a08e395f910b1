package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Idle workers wait in Redis for the queue's wake-up marker instead of polling, and another process's change that
 * lets a job start wakes them at once. "At once" is asserted as well under the 5 s after which an idle worker claims
 * again anyway, so that each case fails if its wake-up is missing.
 */
class RedisIdleWorkersTest {
    /** Far under the 5 s an idle worker waits before it claims again unwoken. */
    private static final Duration WOKEN_WITHIN = Duration.ofMillis(2500);

    private ServerWithAdmin redis;
    private Sluice workers;
    private Sluice producers;

    @BeforeEach
    void start() {
        redis = ServerWithAdmin.start();
        workers = RedisSluice.builder().url(redis.uri()).build();
        producers = RedisSluice.builder().url(redis.uri()).build();
    }

    @AfterEach
    void stop() {
        try {
            workers.close();
            producers.close();
        } finally {
            redis.close();
        }
    }

    @Test
    void idleWorkersSendAlmostNothingToRedisWhileTheyWait() throws Exception {
        JobQueue<String> queue = workers.queue("jobs", Codec.utf8());
        CountDownLatch ran = new CountDownLatch(1);
        try (Worker<String> worker = queue.worker(
                ctx -> {
                    ran.countDown();
                    return Result.done();
                },
                WorkerOptions.concurrency(8))) {
            queue.add("warm-up", "x");
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> calls("bzpopmin") > 0);
            redis.admin().sync().configResetstat();

            Thread.sleep(3000);

            // polling every 50 ms would make 60 claim calls in 3 s; waiting in Redis, one claim round (eight
            // slots, batched) each time the watcher's 5 s wait ends
            assertThat(calls("evalsha") + calls("fcall"))
                    .as("claim calls of eight idle slots in 3 s")
                    .isLessThanOrEqualTo(8);
        }
    }

    @Test
    void aJobAddedByAnotherProcessStartsAtOnce() throws Exception {
        Starts starts = idleWorker(QueueOptions.defaults());

        long addedAt = System.nanoTime();
        producers.queue("jobs", Codec.utf8()).add("job", "added elsewhere");

        assertThat(starts.await("added elsewhere") - addedAt).isLessThan(WOKEN_WITHIN.toNanos());
    }

    @Test
    void aDelayedJobAddedByAnotherProcessStartsWhenItIsDue() throws Exception {
        Starts starts = idleWorker(QueueOptions.defaults());

        long addedAt = System.nanoTime();
        producers
                .queue("jobs", Codec.utf8())
                .add(
                        "job",
                        "due in 1 s",
                        JobOptions.builder().delay(Duration.ofSeconds(1)).build());

        long took = starts.await("due in 1 s") - addedAt;
        assertThat(took).isBetween(TimeUnit.MILLISECONDS.toNanos(990), WOKEN_WITHIN.toNanos());
    }

    @Test
    void anotherProcessResumingTheQueueWakesItsWorkers() throws Exception {
        Starts starts = idleWorker(QueueOptions.defaults());
        JobQueue<String> elsewhere = producers.queue("jobs", Codec.utf8());
        elsewhere.pause();
        elsewhere.add("job", "waits for resume");
        Thread.sleep(300);
        assertThat(starts.started).doesNotContainKey("waits for resume");

        long resumedAt = System.nanoTime();
        elsewhere.resume();

        assertThat(starts.await("waits for resume") - resumedAt).isLessThan(WOKEN_WITHIN.toNanos());
    }

    @Test
    void aJobLeavingActiveInAnotherProcessLetsTheNextStartUnderTheQueuesConcurrency() throws Exception {
        QueueOptions one = QueueOptions.builder().concurrency(1).build();
        JobQueue<String> elsewhere = producers.queue("jobs", Codec.utf8(), one);
        CountDownLatch holding = new CountDownLatch(1);
        Worker<String> other = elsewhere.worker(
                ctx -> {
                    holding.countDown();
                    Thread.sleep(60_000);
                    return Result.done();
                },
                WorkerOptions.concurrency(1));
        elsewhere.add("job", "held elsewhere");
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        Starts starts = new Starts();
        workers.queue("jobs", Codec.utf8(), one)
                .worker(
                        ctx -> {
                            starts.started.put(ctx.payload(), System.nanoTime());
                            return Result.done();
                        },
                        WorkerOptions.concurrency(2));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> calls("bzpopmin") > 0);
        Thread.sleep(200);

        long closedAt = System.nanoTime();
        // its deadline passes at once: the job goes back to waiting, and the queue's one place is free
        other.closeAsync(Duration.ZERO);

        assertThat(starts.await("held elsewhere") - closedAt).isLessThan(WOKEN_WITHIN.toNanos());
    }

    @Test
    void aProducerWaitingForRoomAddsAtOnceWhenAWorkerOfAnotherProcessTakesAJob() throws Exception {
        CompletableFuture<?> second = secondWaitsForRoom();

        Starts starts = new Starts();
        long startedAt = System.nanoTime();
        workers.queue("jobs", Codec.utf8(), BOUNDED)
                .worker(
                        ctx -> {
                            starts.started.put(ctx.payload(), System.nanoTime());
                            return Result.done();
                        },
                        WorkerOptions.concurrency(1));

        second.get(10, TimeUnit.SECONDS);
        assertThat(System.nanoTime() - startedAt).isLessThan(WOKEN_WITHIN.toNanos());
        starts.await("second");
    }

    @Test
    void aProducerWaitingForRoomAddsAtOnceWhenAnotherProcessRemovesAJob() throws Exception {
        CompletableFuture<?> second = secondWaitsForRoom();

        long removedAt = System.nanoTime();
        assertThat(workers.queue("jobs", Codec.utf8(), BOUNDED).remove("first")).isTrue();

        second.get(10, TimeUnit.SECONDS);
        assertThat(System.nanoTime() - removedAt).isLessThan(WOKEN_WITHIN.toNanos());
    }

    private static final QueueOptions BOUNDED = QueueOptions.builder()
            .maxQueued(1)
            .whenFull(QueueOptions.WhenFull.block(Duration.ofSeconds(30)))
            .build();

    /**
     * The producers' process adds job "first" to a queue of room for one, then "second", which waits for room: the
     * future it returns, once that process waits for room in Redis.
     */
    private CompletableFuture<?> secondWaitsForRoom() throws Exception {
        JobQueue<String> queue = producers.queue("jobs", Codec.utf8(), BOUNDED);
        queue.add("job", "first", JobOptions.builder().jobId("first").build());
        CompletableFuture<?> second = queue.addAsync("job", "second");
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> calls("bzpopmin") > 0);
        Thread.sleep(200);
        assertThat(second).as("waits for room").isNotDone();
        return second;
    }

    /** When each payload started, in the first process: its worker has run one job and waits for more. */
    private static final class Starts {
        final Map<String, Long> started = new ConcurrentHashMap<>();

        long await(String payload) {
            Awaitility.await(payload).atMost(Duration.ofSeconds(10)).until(() -> started.containsKey(payload));
            return started.get(payload);
        }
    }

    private Starts idleWorker(QueueOptions options) throws Exception {
        JobQueue<String> queue = workers.queue("jobs", Codec.utf8(), options);
        Starts starts = new Starts();
        queue.worker(
                ctx -> {
                    starts.started.put(ctx.payload(), System.nanoTime());
                    return Result.done();
                },
                WorkerOptions.concurrency(2));
        queue.add("warm-up", "warm-up");
        starts.await("warm-up");
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> calls("bzpopmin") > 0);
        // let the watcher's wait begin after the worker's last claim; the engine closes the worker
        Thread.sleep(200);
        return starts;
    }

    private long calls(String command) {
        return redis.calls(command);
    }
}
