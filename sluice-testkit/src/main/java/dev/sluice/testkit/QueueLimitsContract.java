package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Queue limits: a queue-wide rate and concurrency over all workers, per-group rates and concurrency from
 * defaults or a group's own limits, and every limit changed while the queue runs.
 */
public abstract class QueueLimitsContract extends QueueContractSupport {
    private static final Duration ONE_SECOND = Duration.ofSeconds(1);

    /** The threads the processors of this test ran on. */

    /** For subclasses, one per engine. */
    protected QueueLimitsContract() {}

    private static List<NewJob<String>> jobs(String prefix, String group, int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> new NewJob<>("n", "p", group == null ? withId(prefix + i) : inGroup(prefix + i, group)))
                .toList();
    }

    @Test
    void queueRateOfAnExactSlidingLogIsNeverExceededInAnyWindow() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .rate(SlidingWindowLog.of(150, ONE_SECOND))
                .build());
        queue.addBulk(IntStream.range(0, 1_000)
                .mapToObj(i -> new NewJob<>("n", "p", i % 3 == 0 ? inGroup("j" + i, "g" + i % 7) : withId("j" + i)))
                .toList());
        List<Long> starts = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            starts.add(clock.nanos());
            return Result.done();
        });

        for (long t = 0; t < 5 * SECOND; t += 7 * MS) {
            clock.advanceNanos(t - (clock.nanos() - T0));
            worker.runDue();
        }

        // starts at 0, 1.001 s, 2.002 s, 3.003 s, 4.004 s (the first 7 ms step at or after each second)
        assertThat(starts).hasSize(750);
        for (int i = 0; i + 150 < starts.size(); i++) {
            assertThat(starts.get(i + 150) - starts.get(i))
                    .as("151 starts at %d and %d ns span at least a second", starts.get(i), starts.get(i + 150))
                    .isGreaterThanOrEqualTo(SECOND);
        }
        assertThat(starts.subList(0, 150)).containsOnly(T0);
        assertThat(starts.subList(150, 300)).containsOnly(T0 + 1_001 * MS);
        assertThat(queue.counts()).isEqualTo(counts(250, 0, 0, 750, 0));
    }

    /**
     * A worker of high concurrency claims many jobs in one call (on Redis, one script call decides the queue's rate
     * and each group's for all of them): exactly what the rates allow starts at an instant, whatever the policy,
     * with the queue's rate binding (three groups) or the groups' (two).
     */
    @Test
    void aWorkerClaimingManyAtOnceStartsExactlyWhatTheQueueAndGroupRatesAllowAtAnInstant() {
        List<List<RatePolicy>> queueAndGroupRates = List.of(
                List.of(FixedWindow.of(7, ONE_SECOND), FixedWindow.of(3, ONE_SECOND)),
                List.of(SlidingWindowLog.of(7, ONE_SECOND), SlidingWindowLog.of(3, ONE_SECOND)),
                List.of(TokenBucket.of(7, ONE_SECOND), TokenBucket.of(3, ONE_SECOND)));
        int queues = 0;
        for (List<RatePolicy> rates : queueAndGroupRates) {
            for (List<String> groups : List.of(List.of("a", "b", "c"), List.of("a", "b"))) {
                JobQueue<String> queue = engine.queue(
                        "rated-" + queues++,
                        Codec.utf8(),
                        QueueOptions.builder()
                                .rate(rates.get(0))
                                .groupDefaults(
                                        GroupLimits.builder().rate(rates.get(1)).build())
                                .build());
                groups.forEach(group -> queue.addBulk(jobs(group, group, 20)));
                assertStartsPerInstant(queue, Math.min(7, 3 * groups.size()), groups, 3);
            }
        }
    }

    /**
     * Starts a worker of concurrency 20 on a clock that does not move, waits for {@code perInstant} starts, and
     * closes it: by the engine's start stamps exactly {@code perInstant} jobs started at that instant (the rates
     * allow no more at it, however long the worker runs), at most {@code perGroup} a group.
     */
    private void assertStartsPerInstant(JobQueue<String> queue, int perInstant, List<String> groups, int perGroup) {
        List<String> ran = new CopyOnWriteArrayList<>();
        Instant instant = clock.instant();
        Worker<String> worker = startedWorker(queue, recording(ran), 20);
        eventually().until(() -> ran.size() >= perInstant);
        worker.closeAsync(Duration.ZERO).join();

        List<Job<String>> jobs = new ArrayList<>(queue.jobs(JobState.WAITING, 0, 1_000));
        jobs.addAll(queue.jobs(JobState.COMPLETED, 0, 1_000));
        List<String> started = jobs.stream()
                .flatMap(job -> job.attempts().stream()
                        .filter(attempt -> attempt.startedAt().equals(instant))
                        .map(attempt -> job.id()))
                .toList();
        assertThat(started).as("%s", queue.options()).hasSize(perInstant);
        for (String group : groups) {
            assertThat(started.stream().filter(id -> id.startsWith(group)))
                    .as("%s, group %s", queue.options(), group)
                    .hasSizeLessThanOrEqualTo(perGroup);
        }
        clock.advance(Duration.ofMillis(1_001));
    }

    @Test
    void queueRateAndGroupRateAreTakenAllOrNothing() {
        JobQueue<String> queue = newQueue(
                QueueOptions.builder().rate(SlidingWindowLog.of(5, ONE_SECOND)).build());
        queue.setGroupLimits(
                "a",
                GroupLimits.builder().rate(SlidingWindowLog.of(2, ONE_SECOND)).build());
        queue.addBulk(List.of(
                new NewJob<>("n", "p", inGroup("a1", "a")),
                new NewJob<>("n", "p", inGroup("b1", "b")),
                new NewJob<>("n", "p", inGroup("a2", "a")),
                new NewJob<>("n", "p", inGroup("b2", "b")),
                new NewJob<>("n", "p", inGroup("a3", "a")),
                new NewJob<>("n", "p", inGroup("b3", "b")),
                new NewJob<>("n", "p", inGroup("b4", "b"))));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));

        worker.runDue();

        // a3 is refused by its group's rate without spending a permit of the queue's: b3 gets it
        assertThat(ran).containsExactly("a1", "b1", "a2", "b2", "b3");
        clock.advance(ONE_SECOND);
        worker.runDue();
        assertThat(ran).hasSize(7);
        assertThat(ran.subList(5, 7)).containsExactlyInAnyOrder("a3", "b4");
    }

    @Test
    void queueRateChangedAtRunTimeAppliesFromNowOn() {
        JobQueue<String> queue = newQueue();
        queue.addBulk(jobs("j", null, 20));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));

        queue.setRate(FixedWindow.of(3, ONE_SECOND));
        assertThat(worker.runDue()).isEqualTo(3);
        clock.advance(ONE_SECOND);
        assertThat(worker.runDue()).isEqualTo(3);

        queue.setRate(TokenBucket.of(5, ONE_SECOND));
        assertThat(worker.runDue()).isEqualTo(5);

        queue.setRate(null);
        assertThat(worker.runDue()).isEqualTo(9);
        assertThat(ran).hasSize(20).doesNotHaveDuplicates();
    }

    @Test
    void groupRateFromDefaultsAndOwnLimitsChangedAtRunTime() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .groupDefaults(GroupLimits.builder()
                        .rate(SlidingWindowLog.of(2, ONE_SECOND))
                        .build())
                .build());
        queue.setGroupLimits(
                "vip",
                GroupLimits.builder().rate(SlidingWindowLog.of(5, ONE_SECOND)).build());
        queue.addBulk(jobs("a", "a", 20));
        queue.addBulk(jobs("v", "vip", 20));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));

        worker.runDue();
        assertThat(ran).containsExactly("a0", "v0", "a1", "v1", "v2", "v3", "v4");

        ran.clear();
        clock.advance(ONE_SECOND);
        queue.setGroupLimits(
                "a",
                GroupLimits.builder().rate(SlidingWindowLog.of(3, ONE_SECOND)).build());
        worker.runDue();
        assertThat(ran.stream().filter(id -> id.startsWith("a"))).hasSize(3);
        assertThat(ran.stream().filter(id -> id.startsWith("v"))).hasSize(5);

        ran.clear();
        clock.advance(ONE_SECOND);
        queue.clearGroupLimits("vip");
        assertThat(queue.groupLimits("vip")).isEqualTo(queue.options().groupDefaults());
        worker.runDue();
        assertThat(ran.stream().filter(id -> id.startsWith("v"))).hasSize(2);

        ran.clear();
        clock.advance(ONE_SECOND);
        queue.setGroupDefaults(
                GroupLimits.builder().rate(SlidingWindowLog.of(4, ONE_SECOND)).build());
        worker.runDue();
        assertThat(ran.stream().filter(id -> id.startsWith("v")))
                .as("vip takes the new defaults")
                .hasSize(4);
        assertThat(ran.stream().filter(id -> id.startsWith("a")))
                .as("a keeps its own limits")
                .hasSize(3);
    }

    @Test
    void groupLimitsReportTheLimitsInForce() {
        GroupLimits defaults = GroupLimits.builder()
                .rate(TokenBucket.perSecond(10))
                .concurrency(4)
                .build();
        JobQueue<String> queue =
                newQueue(QueueOptions.builder().groupDefaults(defaults).build());
        GroupLimits own = GroupLimits.builder().rate(null).concurrency(2).build();

        assertThat(queue.groupLimits("x")).isEqualTo(defaults);
        queue.setGroupLimits("x", own);
        assertThat(queue.groupLimits("x")).isEqualTo(own);
        assertThat(queue.groupLimits("y")).isEqualTo(defaults);

        GroupLimits newDefaults = GroupLimits.builder().concurrency(9).build();
        queue.setGroupDefaults(newDefaults);
        assertThat(queue.groupLimits("x")).isEqualTo(own);
        assertThat(queue.groupLimits("y")).isEqualTo(newDefaults);

        queue.clearGroupLimits("x");
        assertThat(queue.groupLimits("x")).isEqualTo(newDefaults);
    }

    @Test
    void globalConcurrencyHoldsAcrossTwoWorkers() {
        JobQueue<String> queue = newQueue(QueueOptions.builder().concurrency(3).build());
        Blocker blocker = blocker();
        Worker<String> first = startedWorker(queue, blocker, 5);
        Worker<String> second = startedWorker(queue, blocker, 5);
        queue.addBulk(jobs("j", null, 10));

        eventually().until(() -> blocker.entered.size() == 3);
        assertThat(queue.counts().active()).isEqualTo(3);
        assertThat(first.active() + second.active()).isEqualTo(3);

        blocker.release(blocker.entered.get(0));
        eventually().until(() -> blocker.entered.size() == 4);
        assertThat(queue.counts().active()).isEqualTo(3);

        blocker.releaseAll();
        eventually().until(() -> queue.counts().completed() == 10);
        assertThat(blocker.maxRunningTotal()).isEqualTo(3);
        assertThat(blocker.entered).hasSize(10).doesNotHaveDuplicates();
    }

    @Test
    void raisingTheQueueConcurrencyAtRunTimeStartsMoreJobs() {
        JobQueue<String> queue = newQueue(QueueOptions.builder().concurrency(2).build());
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 10);
        queue.addBulk(jobs("j", null, 10));
        eventually().until(() -> blocker.entered.size() == 2);

        queue.setConcurrency(5);

        eventually().until(() -> blocker.entered.size() == 5);
        assertThat(queue.counts().active()).isEqualTo(5);

        queue.setConcurrency(1);
        blocker.releaseAll();
        eventually().until(() -> queue.counts().completed() == 10);
        assertThat(blocker.maxRunningTotal()).isEqualTo(5);
    }

    @Test
    void loweringTheQueueConcurrencyHoldsBackNewStarts() {
        JobQueue<String> queue = newQueue(QueueOptions.builder().concurrency(4).build());
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 10);
        queue.addBulk(jobs("j", null, 8));
        eventually().until(() -> blocker.entered.size() == 4);

        queue.setConcurrency(1);
        for (String id : List.copyOf(blocker.entered)) {
            blocker.release(id);
        }
        eventually().until(() -> queue.counts().completed() == 4 && blocker.entered.size() == 5);

        assertThat(queue.counts().active()).isEqualTo(1);
        assertThat(blocker.runningAtEntry.subList(4, 5)).containsOnly(1);
        blocker.releaseAll();
        eventually().until(() -> queue.counts().completed() == 8);
        assertThat(blocker.runningAtEntry.subList(4, 8)).containsOnly(1);
    }

    @Test
    void groupConcurrencyFromDefaultsAndOwnLimitsChangedAtRunTime() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .groupDefaults(GroupLimits.builder().concurrency(2).build())
                .build());
        queue.setGroupLimits("vip", GroupLimits.builder().concurrency(4).build());
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 20);
        queue.addBulk(jobs("a", "a", 10));
        queue.addBulk(jobs("v", "vip", 10));

        eventually().until(() -> blocker.running("a") == 2 && blocker.running("vip") == 4);
        assertThat(queue.counts().active()).isEqualTo(6);

        queue.setGroupLimits("a", GroupLimits.builder().concurrency(3).build());
        eventually().until(() -> blocker.running("a") == 3);

        queue.clearGroupLimits("vip");
        List<String> firstVips =
                blocker.entered.stream().filter(id -> id.startsWith("v")).toList();
        assertThat(firstVips).hasSize(4);
        firstVips.forEach(blocker::release);
        eventually()
                .until(() -> firstVips.stream().allMatch(id -> stateOf(queue, id) == JobState.COMPLETED)
                        && blocker.running("vip") == 2);
        long vipStarts = blocker.enteredWithPrefix("v");
        assertThat(vipStarts).isEqualTo(6);

        blocker.releaseAll();
        eventually().until(() -> queue.counts().completed() == 20);
        assertThat(blocker.maxRunning("a")).isEqualTo(3);
        assertThat(blocker.maxRunning("vip")).isEqualTo(4);
        List<Integer> vipEntries = new ArrayList<>();
        for (int i = 0; i < blocker.entered.size(); i++) {
            if (blocker.entered.get(i).startsWith("v")) {
                vipEntries.add(blocker.runningAtEntry.get(i));
            }
        }
        assertThat(vipEntries.subList(4, vipEntries.size()))
                .as("vip starts after its own limits were cleared see at most the default 2 running")
                .allMatch(n -> n <= 2);
    }

    @Test
    void aGroupAtItsConcurrencyIsSkippedWhileOthersGoOn() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .groupDefaults(GroupLimits.builder().concurrency(1).build())
                .build());
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 1);
        queue.add("n", "p", inGroup("a1", "a"));
        eventually().until(() -> blocker.entered.contains("a1"));
        queue.addBulk(List.of(
                new NewJob<>("n", "p", inGroup("a2", "a")),
                new NewJob<>("n", "p", inGroup("b1", "b")),
                new NewJob<>("n", "p", inGroup("b2", "b"))));
        List<String> ran = new ArrayList<>();
        Worker<String> manual = manualWorker(queue, recording(ran));

        manual.runDue();

        assertThat(ran).containsExactly("b1", "b2");
        assertThat(stateOf(queue, "a2")).isEqualTo(JobState.WAITING);
        blocker.release("a1");
        eventually().until(() -> stateOf(queue, "a1") == JobState.COMPLETED);
        eventually().until(() -> queue.job("a2").map(Job::state).orElseThrow() != JobState.WAITING);
    }

    @Test
    void concurrencyCountsActiveJobsOfEveryWorkerForGroups() {
        JobQueue<String> queue = newQueue();
        queue.setGroupLimits("g", GroupLimits.builder().concurrency(2).build());
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 3);
        startedWorker(queue, blocker, 3);
        queue.addBulk(jobs("g", "g", 12));

        eventually().until(() -> blocker.entered.size() == 2);
        for (int released = 0; released < 10; released++) {
            String next = blocker.entered.get(released);
            blocker.release(next);
            int expected = released + 3;
            eventually().until(() -> blocker.entered.size() == Math.min(12, expected));
        }
        blocker.releaseAll();
        eventually().until(() -> queue.counts().completed() == 12);
        assertThat(blocker.maxRunning("g")).isEqualTo(2);
    }

    @Test
    void aRateLimitedReturnFreesItsGroupsConcurrency() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .groupDefaults(GroupLimits.builder().concurrency(1).build())
                .build());
        queue.add("n", "p", inGroup("j", "g"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            return ran.size() == 1 ? Result.rateLimited(Result.Scope.GROUP, Duration.ofMillis(100)) : Result.done();
        });

        worker.runDue();
        clock.advance(Duration.ofMillis(100));
        worker.runDue();

        assertThat(ran).containsExactly("j", "j");
        assertThat(stateOf(queue, "j")).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void aJobReturnedByAClosingWorkerFreesItsGroupsConcurrency() throws Exception {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .concurrency(1)
                .groupDefaults(GroupLimits.builder().concurrency(1).build())
                .build());
        Blocker blocker = blocker();
        Worker<String> started = startedWorker(queue, blocker, 1);
        queue.add("n", "p", inGroup("j", "g"));
        eventually().until(() -> blocker.entered.contains("j"));

        var closing = started.closeAsync(Duration.ZERO);
        clock.runDue();
        closing.get(10, TimeUnit.SECONDS);
        assertThat(stateOf(queue, "j")).isEqualTo(JobState.WAITING);

        List<String> ran = new ArrayList<>();
        assertThat(manualWorker(queue, recording(ran)).runDue()).isEqualTo(1);
        assertThat(ran).containsExactly("j");
    }

    @Test
    void startedWorkerWaitsForTheQueueRateOnTheEngineClock() {
        JobQueue<String> queue = newQueue(
                QueueOptions.builder().rate(FixedWindow.of(2, ONE_SECOND)).build());
        List<String> ran = new CopyOnWriteArrayList<>();
        startedWorker(queue, recording(ran), 4);
        queue.addBulk(jobs("j", null, 5));

        eventually().until(() -> ran.size() == 2);
        assertThat(queue.counts().waiting()).isEqualTo(3);

        clock.advance(ONE_SECOND);
        eventually().until(() -> ran.size() == 4);
        clock.advance(ONE_SECOND);
        eventually().until(() -> ran.size() == 5);
        // the processor ran; its completion is recorded after it returns
        eventually().until(() -> queue.counts().completed() == 5);
        assertThat(queue.jobs(JobState.COMPLETED, 0, 10))
                .extracting(Job::startedAt)
                .containsExactlyInAnyOrder(atMillis(0), atMillis(0), atMillis(1_000), atMillis(1_000), atMillis(2_000));
    }

    /** A started worker of 2 slots recording into {@code ran}; job a1's first attempt returns rate-limited. */
    private void startedWorkerRateLimitingA1Once(
            JobQueue<String> queue, List<String> ran, Result.Scope scope, Duration retryAfter, int concurrency) {
        startedWorker(
                queue,
                ctx -> {
                    ran.add(ctx.job().id());
                    slotThreads.add(Thread.currentThread());
                    return ctx.job().id().equals("a1") && ctx.job().rateLimits() == 0
                            ? Result.rateLimited(scope, retryAfter)
                            : Result.done();
                },
                concurrency);
    }

    @Test
    void startedWorkerResumesEveryGroupWhenAQueueWidePauseEnds() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new CopyOnWriteArrayList<>();
        startedWorkerRateLimitingA1Once(queue, ran, Result.Scope.QUEUE, Duration.ofSeconds(5), 1);
        queue.add("n", "p", inGroup("a1", "a"));
        eventually().until(() -> job(queue, "a1").rateLimits() == 1);
        queue.add("n", "p", inGroup("b1", "b"));
        awaitSlotsParked();
        assertThat(ran).containsExactly("a1");

        clock.advance(Duration.ofSeconds(5));

        eventually().until(() -> queue.counts().completed() == 2);
        assertThat(job(queue, "a1").startedAt()).isEqualTo(atMillis(5_000));
        assertThat(job(queue, "b1").startedAt()).isEqualTo(atMillis(5_000));
    }

    @Test
    void startedWorkerResumesAGroupWhenItsRateLimitPauseEnds() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new CopyOnWriteArrayList<>();
        startedWorkerRateLimitingA1Once(queue, ran, Result.Scope.GROUP, Duration.ofSeconds(30), 2);
        queue.add("n", "p", inGroup("a1", "a"));
        eventually().until(() -> job(queue, "a1").rateLimits() == 1);
        queue.add("n", "p", inGroup("b1", "b"));
        eventually().until(() -> ran.contains("b1"));
        assertThat(stateOf(queue, "a1")).isEqualTo(JobState.WAITING);

        clock.advance(Duration.ofSeconds(30));

        eventually().until(() -> stateOf(queue, "a1") == JobState.COMPLETED);
        assertThat(job(queue, "a1").startedAt()).isEqualTo(atMillis(30_000));
    }

    @Test
    void startedWorkerHeldByTheQueueRateStartsAtOnceWhenTheRateIsLifted() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .rate(FixedWindow.of(1, Duration.ofHours(1)))
                .build());
        List<String> ran = new CopyOnWriteArrayList<>();
        startedWorker(
                queue,
                ctx -> {
                    slotThreads.add(Thread.currentThread());
                    return recording(ran).process(ctx);
                },
                1);
        queue.addBulk(jobs("j", null, 3));
        eventually().until(() -> ran.size() == 1);
        awaitSlotsParked();

        queue.setRate(null);

        eventually().until(() -> ran.size() == 3);
        eventually().until(() -> queue.counts().completed() == 3);
        assertThat(queue.jobs(JobState.COMPLETED, 0, 10))
                .extracting(Job::startedAt)
                .containsOnly(atMillis(0));
    }

    @Test
    void startedWorkerHeldByAGroupsLimitsStartsAtOnceWhenTheyAreRaised() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .groupDefaults(GroupLimits.builder().concurrency(1).build())
                .build());
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 4);
        queue.addBulk(jobs("a", "a", 3));
        queue.addBulk(jobs("b", "b", 3));
        eventually().until(() -> blocker.entered.size() == 2);

        queue.setGroupLimits("a", GroupLimits.builder().concurrency(3).build());
        eventually().until(() -> blocker.entered.size() == 4);
        assertThat(blocker.running("a")).isEqualTo(3);
        assertThat(blocker.running("b")).isEqualTo(1);

        queue.setGroupDefaults(GroupLimits.builder().concurrency(2).build());
        blocker.release("a0");
        eventually().until(() -> blocker.entered.size() == 5);
        assertThat(blocker.running("b")).isEqualTo(2);
    }

    @Test
    void aGroupBoundOnlyByItsOwnLimitsLeavesTheOthersUnbounded() {
        JobQueue<String> queue = newQueue();
        queue.setGroupLimits(
                "small",
                GroupLimits.builder()
                        .concurrency(1)
                        .rate(FixedWindow.of(2, ONE_SECOND))
                        .build());
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 10);
        queue.addBulk(jobs("s", "small", 3));
        queue.addBulk(jobs("o", "other", 3));
        queue.addBulk(jobs("u", null, 3));

        eventually().until(() -> blocker.entered.size() == 7);
        assertThat(blocker.running("small")).isEqualTo(1);
        assertThat(blocker.running("other")).isEqualTo(3);
        assertThat(blocker.running(null)).isEqualTo(3);

        blocker.release("s0");
        eventually().until(() -> blocker.entered.size() == 8);
        blocker.release("s1");
        eventually().until(() -> stateOf(queue, "s1") == JobState.COMPLETED);
        assertThat(stateOf(queue, "s2"))
                .as("small's rate of 2 per second is used up")
                .isEqualTo(JobState.WAITING);
        clock.advance(ONE_SECOND);
        eventually().until(() -> blocker.entered.contains("s2"));
    }
}
