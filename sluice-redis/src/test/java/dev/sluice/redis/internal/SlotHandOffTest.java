package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Processor;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.redis.LostClaims;
import dev.sluice.redis.RedisSluice;
import dev.sluice.redis.ServerWithAdmin;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An add where a worker of the same process idles claims the job for that worker's idle slot in the same call: the
 * job starts without a claim call of the slot's own, and a claim whose reply is lost is given back, not left to its
 * lease.
 */
class SlotHandOffTest {
    private ServerWithAdmin redis;

    @BeforeEach
    void start() {
        redis = ServerWithAdmin.start();
    }

    @AfterEach
    void stop() {
        redis.close();
    }

    @Test
    void aJobAddedWhereASlotIdlesStartsWithoutAClaimCallOfTheSlotsOwn() throws Exception {
        try (Sluice sluice = RedisSluice.builder().url(redis.uri()).build()) {
            RedisJobQueue<String> queue = (RedisJobQueue<String>) sluice.queue("jobs", Codec.utf8());
            BlockingQueue<String> started = new LinkedBlockingQueue<>();
            Worker<String> worker = queue.worker(
                    ctx -> {
                        started.add(ctx.payload());
                        return Result.done();
                    },
                    WorkerOptions.concurrency(1));
            Awaitility.await("the slot idles").atMost(Duration.ofSeconds(10)).until(() -> queue.idleSlots.idle() == 1);
            long before = redis.scriptCalls();
            long watched = redis.calls("bzpopmin");
            long sortedSetAdds = redis.calls("zadd");
            int jobs = 10;
            for (int i = 0; i < jobs; i++) {
                Awaitility.await("the slot idles")
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> queue.idleSlots.idle() == 1);
                queue.add("job", "job " + i);
                assertThat(started.poll(10, TimeUnit.SECONDS)).isEqualTo("job " + i);
            }
            Awaitility.await("the last job's ending is recorded")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> queue.idleSlots.idle() == 1);

            // per job the add, which claims it, and the slot's call that records its ending (and finds nothing
            // more), and a write of the worker's statistics once a second at most; without the hand-off the slot
            // makes a claim call of its own between them (3 per job)
            assertThat(redis.scriptCalls() - before)
                    .as("script calls for %d jobs", jobs)
                    .isBetween(2L * jobs, 2L * jobs + 2);
            // nor do the adds wake this or another process through Redis: per job one ZADD of its waiting set, one
            // of the worker's lease (held per worker, written again only once a third of it has passed), and no
            // wake-up marker (which a lease lowering the queue's next due time would set, in the first add of a queue
            // with nothing due)
            assertThat(redis.calls("zadd") - sortedSetAdds)
                    .as("ZADDs while %d jobs were added and run", jobs)
                    .isEqualTo(jobs + 1L);
            assertThat(redis.calls("bzpopmin") - watched)
                    .as("waits of the watcher begun while %d jobs were added and run", jobs)
                    .isLessThanOrEqualTo(1);
            worker.close();
            assertThat(queue.counts().completed()).isEqualTo(jobs);
        }
    }

    @Test
    void aBulkAddClaimsForEveryIdleSlotOfTheWorkerAndAnnouncesNoMore() throws Exception {
        try (Sluice sluice = RedisSluice.builder().url(redis.uri()).build()) {
            RedisJobQueue<String> queue = (RedisJobQueue<String>) sluice.queue("jobs", Codec.utf8());
            List<String> ran = new CopyOnWriteArrayList<>();
            CountDownLatch release = new CountDownLatch(1);
            queue.worker(
                    ctx -> {
                        ran.add(ctx.payload());
                        release.await();
                        return Result.done();
                    },
                    WorkerOptions.concurrency(4));
            Awaitility.await("the slots idle").atMost(Duration.ofSeconds(10)).until(() -> queue.idleSlots.idle() == 4);
            long before = redis.scriptCalls();

            queue.addBulk(List.of(job("a"), job("b"), job("c"), job("d"), job("e"), job("f")));

            Awaitility.await("four jobs run").atMost(Duration.ofSeconds(10)).until(() -> ran.size() == 4);
            assertThat(redis.scriptCalls() - before)
                    .as("the add alone started all four: no slot claimed")
                    .isEqualTo(1);
            assertThat(queue.counts().waiting()).isEqualTo(2);
            release.countDown();
            assertThat(queue.awaitIdle(Duration.ofSeconds(10))).isTrue();
            assertThat(ran).containsExactlyInAnyOrder("a", "b", "c", "d", "e", "f");
        }
    }

    @Test
    void aJobAnAddClaimedForAnIdleSlotWhoseReplyWasLostRunsOnceSoonAfterAndCountsNoStall() throws Exception {
        try (Sluice sluice = LostClaims.engineLosingReplies(redis.uri())) {
            RedisJobQueue<String> queue = (RedisJobQueue<String>) sluice.queue("jobs", Codec.utf8());
            BlockingQueue<String> started = new LinkedBlockingQueue<>();
            queue.worker(
                    ctx -> {
                        started.add(ctx.job().id());
                        return Result.done();
                    },
                    LostClaims.oneSlotHeldForAMinute());
            Awaitility.await("the slot idles").atMost(Duration.ofSeconds(10)).until(() -> queue.idleSlots.idle() == 1);

            // Redis holds every command for 1.5 s: the add times out, and Redis runs it (and its claim) after
            redis.admin().sync().clientPause(1500);
            assertThatThrownBy(() -> queue.add(
                            "job", "x", JobOptions.builder().jobId("a").build()))
                    .isInstanceOf(SluiceException.class);

            assertThat(started.poll(15, TimeUnit.SECONDS)).isEqualTo("a");
            Awaitility.await("the job completed")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> queue.job("a").map(Job::state).orElse(null) == JobState.COMPLETED);
            Job<String> job = queue.job("a").orElseThrow();
            LostClaims.assertRanOnceAfterLostClaims(job);
            assertThat(started.poll(200, TimeUnit.MILLISECONDS))
                    .as("it ran once")
                    .isNull();
        }
    }

    @Test
    void producersOnManyThreadsWithTwoWorkersClosingMidwayRunEveryJobOnce() throws Exception {
        for (int round = 0; round < 5; round++) {
            try (Sluice sluice = RedisSluice.builder().url(redis.uri()).build()) {
                JobQueue<String> queue = sluice.queue("jobs-" + round, Codec.utf8());
                Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
                Processor<String> counting = ctx -> {
                    runs.computeIfAbsent(ctx.payload(), k -> new AtomicInteger())
                            .incrementAndGet();
                    if (ctx.payload().hashCode() % 7 == 0) {
                        Thread.sleep(1);
                    }
                    return Result.done();
                };
                Worker<String> first = queue.worker(counting, WorkerOptions.concurrency(3));
                Worker<String> second = queue.worker(counting, WorkerOptions.concurrency(5));
                int producers = 6;
                int perProducer = 150;
                List<Thread> threads = new ArrayList<>();
                for (int p = 0; p < producers; p++) {
                    int producer = p;
                    threads.add(Thread.ofPlatform().start(() -> {
                        for (int i = 0; i < perProducer; i++) {
                            queue.add("job", producer + "-" + i);
                        }
                    }));
                }
                Awaitility.await("jobs have begun to run")
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> runs.size() >= 50);
                // one worker closes while jobs are added and handed to its idle slots; the other runs the rest
                assertThat(first.closeAsync(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS))
                        .isNotNull();
                for (Thread thread : threads) {
                    thread.join();
                }
                assertThat(queue.awaitIdle(Duration.ofSeconds(20))).isTrue();
                assertThat(queue.counts().completed()).isEqualTo(producers * perProducer);
                assertThat(runs).hasSize(producers * perProducer);
                assertThat(runs.values()).allSatisfy(n -> assertThat(n).hasValue(1));
                second.close();
            }
        }
    }

    private static NewJob<String> job(String payload) {
        return new NewJob<>("job", payload, JobOptions.empty());
    }
}
