package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Groups are created on first use and released when they have no waiting, delayed or active job and no
 * rate-limit pause; their own limits and their statistics outlive them, and no job is lost when work arrives
 * while a group is being released.
 */
public abstract class QueueGroupsContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueGroupsContract() {}

    @Test
    void groupStatsAndCountsOutliveTheGroupsIdleSpells() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepAll()));
        Worker<String> worker = manualWorker(queue, completing());
        queue.add("n", "p", inGroup("a1", "a"));
        worker.runDue();
        queue.add("n", "p", inGroup("a2", "a"));
        worker.runDue();
        assertThat(queue.stats("a").completed()).isEqualTo(2);
        assertThat(queue.stats("a").counts()).isEqualTo(counts(0, 0, 0, 2, 0));

        clock.advance(Duration.ofMinutes(5)); // idle: nothing waiting, delayed or running in group a
        queue.add("n", "p", inGroup("a3", "a"));
        worker.runDue();

        assertThat(queue.stats("a").completed()).isEqualTo(3);
        assertThat(queue.stats("a").waitTime().count()).isEqualTo(3);
        assertThat(queue.stats("a").counts()).isEqualTo(counts(0, 0, 0, 3, 0));
        assertThat(queue.remove("a1")).isTrue();
        assertThat(queue.stats("a").counts())
                .as("kept jobs are counted per group whether or not the group is working")
                .isEqualTo(counts(0, 0, 0, 2, 0));
        assertThat(queue.stats("b").counts()).isEqualTo(counts(0, 0, 0, 0, 0));
    }

    @Test
    void aGroupWithADelayedJobIsNotReleased() {
        JobQueue<String> queue = newQueue();
        Worker<String> worker = manualWorker(queue, completing());
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", id("a2").group("a").delay(Duration.ofSeconds(1)).build());
        worker.runDue();
        clock.advance(Duration.ofSeconds(1));
        worker.runDue();
        assertThat(queue.stats("a").completed()).isEqualTo(2);
    }

    @Test
    void ownLimitsOutliveTheGroup() {
        JobQueue<String> queue = newQueue();
        GroupLimits own = GroupLimits.builder().concurrency(3).build();
        queue.setGroupLimits("a", own);
        Worker<String> worker = manualWorker(queue, completing());
        queue.add("n", "p", inGroup("a1", "a"));
        worker.runDue();
        assertThat(queue.groupLimits("a")).isEqualTo(own);
        queue.add("n", "p", inGroup("a2", "a"));
        worker.runDue();
        assertThat(queue.groupLimits("a")).isEqualTo(own);
    }

    @Test
    void aGroupPausedByARateLimitIsNotReleasedBeforeThePauseEnds() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            return ctx.job().id().equals("a1")
                    ? Result.rateLimited(Result.Scope.GROUP, Duration.ofSeconds(10))
                    : Result.done();
        });
        queue.add("n", "p", inGroup("a1", "a"));
        worker.runDue();
        assertThat(queue.remove("a1")).isTrue();

        clock.advance(Duration.ofSeconds(5));
        queue.add("n", "p", inGroup("a2", "a"));
        worker.runDue();
        assertThat(ran).as("the pause outlives the group's jobs").containsExactly("a1");

        clock.advance(Duration.ofSeconds(5));
        worker.runDue();
        assertThat(ran).containsExactly("a1", "a2");
    }

    @Test
    void noJobIsLostWhenWorkArrivesWhileAGroupIsReleased() throws Exception {
        JobQueue<String> queue = engineOn(SluiceClock.system())
                .queue(
                        QUEUE,
                        Codec.utf8(),
                        QueueOptions.builder()
                                .groupDefaults(
                                        GroupLimits.builder().concurrency(1).build())
                                .jobDefaults(JobOptions.builder()
                                        .keepCompleted(Retention.keepNone())
                                        .build())
                                .build());
        Set<String> ran = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        ConcurrentHashMap<String, AtomicInteger> running = new ConcurrentHashMap<>();
        AtomicInteger overConcurrency = new AtomicInteger();
        startedWorker(
                queue,
                ctx -> {
                    AtomicInteger inGroup = running.computeIfAbsent(ctx.job().group(), g -> new AtomicInteger());
                    if (inGroup.incrementAndGet() > 1) {
                        overConcurrency.incrementAndGet();
                    }
                    if (!ran.add(ctx.job().id())) {
                        duplicates.incrementAndGet();
                    }
                    inGroup.decrementAndGet();
                    return Result.done();
                },
                8);

        int producers = 4;
        int perProducer = 1_500;
        ExecutorService pool = Executors.newFixedThreadPool(producers);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int producer = p;
                done.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < perProducer; i++) {
                        // few groups, each emptied and released again and again while jobs keep arriving
                        queue.add("n", "p", inGroup("p" + producer + "-" + i, "g" + (i % 3)));
                        if (i % 50 == 0) {
                            Thread.onSpinWait();
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get(20, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        int total = producers * perProducer;
        awaitCompleted(queue, total);
        assertThat(ran).hasSize(total);
        assertThat(duplicates).hasValue(0);
        assertThat(overConcurrency)
                .as("a released and recreated group kept its concurrency of 1")
                .hasValue(0);
        assertThat(queue.counts()).as("keepNone: nothing left").isEqualTo(counts(0, 0, 0, 0, 0));
    }

    @Test
    void groupCountsFollowAPriorityPollADelayedPromotionAndRemovals() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepAll()));
        List<String> seen = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            seen.add(ctx.job().id() + " " + queue.stats("g").counts());
            return Result.done();
        });
        queue.add("n", "p", id("low").group("g").priority(1).build());
        queue.add("n", "p", id("high").group("g").priority(5).build());
        queue.add("n", "p", id("later").group("g").delay(Duration.ofSeconds(1)).build());
        queue.add("n", "p", id("gone").group("g").delay(Duration.ofSeconds(1)).build());
        queue.add("n", "p", id("other").group("h").build());
        assertThat(queue.stats("g").counts()).isEqualTo(counts(2, 2, 0, 0, 0));

        assertThat(queue.remove("other")).isTrue();
        assertThat(worker.runDue()).isEqualTo(2);

        assertThat(seen).containsExactly("high " + counts(1, 2, 1, 0, 0), "low " + counts(0, 2, 1, 1, 0));
        assertThat(queue.stats("h").counts()).isEqualTo(counts(0, 0, 0, 0, 0));
        assertThat(queue.remove("gone")).isTrue();
        assertThat(queue.stats("g").counts()).isEqualTo(counts(0, 1, 0, 2, 0));
        clock.advance(Duration.ofSeconds(1));
        assertThat(queue.stats("g").counts()).isEqualTo(counts(1, 0, 0, 2, 0));
        queue.add("n", "p", id("waits").group("g").build());
        assertThat(queue.remove("waits")).isTrue();
        assertThat(queue.stats("g").counts()).isEqualTo(counts(1, 0, 0, 2, 0));
        assertThat(worker.runDue()).isEqualTo(1);
        assertThat(seen).last().isEqualTo("later " + counts(0, 0, 1, 2, 0));
        assertThat(queue.stats("g").counts()).isEqualTo(counts(0, 0, 0, 3, 0));
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 3, 0));
    }
}
