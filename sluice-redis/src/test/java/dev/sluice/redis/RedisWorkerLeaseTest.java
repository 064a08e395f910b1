package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.testkit.redis.RedisServer;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Leases are held per worker: {@code :a} orders the workers that hold active jobs by when their lease ends, and
 * {@code :a:<worker>} holds each worker's active jobs. The layout is checked here, where the contract cannot see
 * it: a queue of the earlier layout (one lease per job) is rewritten when opened, and a claim still takes a lease
 * after Redis lost the queue, or after another process took the worker's lease, although the library remembers
 * having set it a moment before.
 */
class RedisWorkerLeaseTest {
    private static final String BASE = "sluice:queue:{orders}";
    private static final WorkerOptions ONE_SLOT_ONE_MINUTE = WorkerOptions.builder()
            .concurrency(1)
            .leaseTime(Duration.ofMinutes(1))
            .build();

    private RedisServer redis;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> keys;

    @BeforeEach
    void start() {
        redis = RedisServer.start();
        client = RedisClient.create(redis.uri());
        connection = client.connect();
        keys = connection.sync();
    }

    @AfterEach
    void stop() {
        connection.close();
        client.shutdown();
        redis.close();
    }

    @Test
    void aRunningJobIsHeldInItsWorkersSetUnderTheWorkersLease() throws Exception {
        try (Sluice sluice = engine()) {
            JobQueue<String> queue = sluice.queue("orders", Codec.utf8(), QueueOptions.defaults());
            CountDownLatch release = new CountDownLatch(1);
            long beforeClaim = System.currentTimeMillis();
            Held held = holdOneJob(queue, release);
            String id = held.id();
            String holder = held.holder();

            assertThat(keys.smembers(BASE + ":a:" + holder)).containsExactly(id);
            assertThat(keys.zscore(BASE + ":a", holder))
                    .as("a minute's lease from the claim")
                    .isGreaterThanOrEqualTo(micros(beforeClaim + 60_000));
            release.countDown();
            Awaitility.await().until(() -> queue.job(id).orElseThrow().state() == JobState.COMPLETED);
            assertThat(keys.exists(BASE + ":a:" + holder)).as("no job held").isZero();
            held.worker().close(Duration.ofSeconds(5));
        }
    }

    @Test
    void theLeasesOfTheEarlierLayoutBecomeTheirWorkersWhenTheQueueIsOpened() throws Exception {
        try (Sluice first = engine()) {
            JobQueue<String> queue = first.queue("orders", Codec.utf8(), QueueOptions.defaults());
            CountDownLatch release = new CountDownLatch(1);
            Held held = holdOneJob(queue, release);
            String id = held.id();
            String holder = held.holder();
            double leaseEnd = keys.zscore(BASE + ":a", holder);
            // the earlier layout: the job's own lease in :a, no worker's set, and no mark of the new layout
            keys.del(BASE + ":a:" + holder, BASE + ":a");
            keys.zadd(BASE + ":a", leaseEnd, id);
            keys.hdel(BASE + ":m", "leases");

            try (Sluice second = engine()) {
                second.queue("orders", Codec.utf8(), QueueOptions.defaults());
            }

            assertThat(keys.zrangeWithScores(BASE + ":a", 0, -1))
                    .singleElement()
                    .satisfies(lease -> {
                        assertThat(lease.getValue()).isEqualTo(holder);
                        assertThat(lease.getScore()).isEqualTo(leaseEnd);
                    });
            assertThat(keys.smembers(BASE + ":a:" + holder)).containsExactly(id);
            release.countDown();
            Awaitility.await().until(() -> queue.job(id).orElseThrow().state() == JobState.COMPLETED);
            held.worker().close(Duration.ofSeconds(5));
        }
    }

    @Test
    void aClaimAfterRedisLostTheQueueTakesALeaseAgain() throws Exception {
        try (Sluice sluice = engine()) {
            JobQueue<String> queue = sluice.queue("orders", Codec.utf8(), QueueOptions.defaults());
            CountDownLatch secondRuns = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Worker<String> worker = queue.worker(
                    ctx -> {
                        if (ctx.payload().equals("second")) {
                            secondRuns.countDown();
                            release.await();
                        }
                        return Result.done();
                    },
                    ONE_SLOT_ONE_MINUTE);
            String first = queue.add("job", "first", JobOptions.empty()).job().id();
            Awaitility.await().until(() -> queue.job(first).orElseThrow().state() == JobState.COMPLETED);

            keys.flushall();
            Awaitility.await("an add goes through once the settings are restored")
                    .ignoreExceptions()
                    .until(() -> queue.add("job", "second", JobOptions.empty()) != null);
            assertThat(secondRuns.await(10, TimeUnit.SECONDS)).isTrue();

            String holder = awaitHolder();
            assertThat(keys.smembers(BASE + ":a:" + holder)).hasSize(1);
            release.countDown();
            worker.close(Duration.ofSeconds(5));
        }
    }

    @Test
    void aClaimAfterAnotherProcessTookTheWorkersLeaseTakesOneAgainThoughItsClockIsBehind() throws Exception {
        ManualClock behind = new ManualClock();
        ManualClock ahead = new ManualClock(ManualClock.DEFAULT_START.plus(Duration.ofMinutes(2)));
        try (Sluice slow = engine(behind);
                Sluice fast = engine(ahead)) {
            JobQueue<String> queue = slow.queue("orders", Codec.utf8(), QueueOptions.defaults());
            JobQueue<String> other = fast.queue("orders", Codec.utf8(), QueueOptions.defaults());
            List<List<String>> holdersWhileRunning = new ArrayList<>();
            Worker<String> worker = queue.worker(
                    ctx -> {
                        holdersWhileRunning.add(keys.zrange(BASE + ":a", 0, -1));
                        return Result.done();
                    },
                    WorkerOptions.builder()
                            .autoStart(false)
                            .leaseTime(Duration.ofMinutes(1))
                            .build());
            queue.add("job", "first", JobOptions.empty());
            assertThat(worker.runDue()).isOne();
            // to the other process, a minute ahead of the worker's lease, that lease ran out: its next call that may
            // write takes it (counts() writes nothing)
            other.resume();
            assertThat(keys.zrange(BASE + ":a", 0, -1)).isEmpty();

            behind.advance(Duration.ofSeconds(1));
            queue.add("job", "second", JobOptions.empty());
            assertThat(worker.runDue()).isOne();

            assertThat(holdersWhileRunning).hasSize(2);
            assertThat(holdersWhileRunning.get(0)).hasSize(1);
            assertThat(holdersWhileRunning.get(1))
                    .as("the worker's lease while its second job runs")
                    .isEqualTo(holdersWhileRunning.get(0));
        }
    }

    /** A worker of one slot under a minute's lease, the job it runs until released, and the worker's name in Redis. */
    private record Held(Worker<String> worker, String id, String holder) {}

    private Held holdOneJob(JobQueue<String> queue, CountDownLatch release) {
        Worker<String> worker = queue.worker(
                ctx -> {
                    release.await();
                    return Result.done();
                },
                ONE_SLOT_ONE_MINUTE);
        String id = queue.add("job", "a", JobOptions.empty()).job().id();
        return new Held(worker, id, awaitHolder());
    }

    /** The one worker that holds a lease, once one does. */
    private String awaitHolder() {
        List<String> holders = Awaitility.await("a worker holds a lease")
                .until(() -> keys.zrange(BASE + ":a", 0, -1), list -> !list.isEmpty());
        assertThat(holders).hasSize(1);
        return holders.get(0);
    }

    private static double micros(long epochMillis) {
        return epochMillis * 1000.0;
    }

    private Sluice engine() {
        return builder().build();
    }

    /** An engine whose scripts take their time from {@code clock}: a process whose clock differs from another's. */
    private Sluice engine(SluiceClock clock) {
        return builder().clock(clock).scriptClock(clock).build();
    }

    private RedisSluice.Builder builder() {
        return RedisSluice.builder()
                .url(redis.uri())
                .commandTimeout(Duration.ofSeconds(2))
                .retryInterval(Duration.ofMillis(200));
    }
}
