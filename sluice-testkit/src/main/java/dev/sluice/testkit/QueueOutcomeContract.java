package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.sluice.queue.Added;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueFullException;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.RepeatableJob;
import dev.sluice.queue.Result;
import dev.sluice.queue.Schedule;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * How calls and attempts end, as a caller sees it: the events a change causes are told (a removal, a drain, a
 * repeatable's registration or its next run, a timeout while the processor still runs, a progress report), a job rate-limited past its {@code maxRateLimits} fails as any failure does, {@code awaitIdle} tells
 * idle from busy exactly and hears a closing engine as any call does, and {@code jobs(ACTIVE)} lists the running
 * jobs by start time, then in the order they became ready.
 */
public abstract class QueueOutcomeContract extends QueueContractSupport {
    private static final Schedule EVERY_MINUTE = Schedule.fixedRate(Duration.ofMinutes(1));

    /** For subclasses, one per engine. */
    protected QueueOutcomeContract() {}

    /** The id of the run of repeatable {@code id} due {@code minutes} after the start. */
    private static String runOf(String id, long minutes) {
        return "repeat:" + id + ":" + atMillis(minutes * 60_000).toEpochMilli();
    }

    private Events listening(JobQueue<String> queue) {
        Events events = new Events();
        queue.addListener(events);
        return events;
    }

    // ------------------------------------------------------------------------------ events a change causes

    @Test
    void registeringARepeatableTellsOfItsFirstRunAndTheNext() {
        JobQueue<String> queue = newQueue();
        Events events = listening(queue);

        RepeatableJob<String> repeatable = queue.repeat("r", EVERY_MINUTE, new NewJob<>("n", "p"));

        assertThat(repeatable.id()).isEqualTo("r");
        told(queue);
        assertThat(events.log).containsExactly("added " + runOf("r", 0), "added " + runOf("r", 1));
    }

    @Test
    void aRepeatableRunComingDueTellsOfTheNextRunAsTheClockMoves() {
        JobQueue<String> queue = newQueue();
        queue.repeat("r", EVERY_MINUTE, new NewJob<>("n", "p"));
        Events events = listening(queue);

        clock.advance(Duration.ofMinutes(1));

        told(queue);
        assertThat(events.log).containsExactly("added " + runOf("r", 2));
        assertThat(stateOf(queue, runOf("r", 1))).isEqualTo(JobState.WAITING);
    }

    @Test
    void removingARepeatablesPendingRunTellsOfTheNextRun() {
        JobQueue<String> queue = newQueue();
        queue.repeat("r", EVERY_MINUTE, new NewJob<>("n", "p"));
        Events events = listening(queue);

        assertThat(queue.remove(runOf("r", 1))).isTrue();

        told(queue);
        assertThat(events.log).containsExactly("added " + runOf("r", 2));
        assertThat(queue.remove(runOf("r", 1))).isFalse();
    }

    @Test
    void drainingARepeatablesPendingRunTellsOfTheNextRun() {
        JobQueue<String> queue = newQueue();
        queue.repeat("r", EVERY_MINUTE, new NewJob<>("n", "p"));
        Events events = listening(queue);

        assertThat(queue.drain(true)).as("the run due now and the pending one").isEqualTo(2);

        told(queue);
        assertThat(events.log).containsExactly("added " + runOf("r", 2));
        assertThat(queue.counts()).isEqualTo(counts(0, 1, 0, 0, 0));
    }

    @Test
    void removingARepeatableSaysWhetherThereWasOne() {
        JobQueue<String> queue = newQueue();
        queue.repeat("r", EVERY_MINUTE, new NewJob<>("n", "p"));

        assertThat(queue.removeRepeatable("r")).isTrue();
        assertThat(queue.removeRepeatable("r")).isFalse();
        assertThat(queue.repeatables()).isEmpty();
    }

    @Test
    void aTimeoutTellsOfTheFailureWhileTheProcessorStillRuns() {
        JobQueue<String> queue = newQueue();
        Events events = listening(queue);
        queue.add("n", "p", id("j").timeout(Duration.ofSeconds(1)).attempts(1).build());
        List<String> seenAtTimeout = new CopyOnWriteArrayList<>();
        manualWorker(queue, ctx -> {
                    clock.advance(Duration.ofSeconds(1)); // the attempt times out here, on this thread
                    Thread.interrupted(); // the timeout interrupts the processor; the wait below must not end so
                    told(queue);
                    seenAtTimeout.addAll(events.log);
                    return Result.done();
                })
                .runDue();

        assertThat(seenAtTimeout).containsExactly("added j", "active j", "failed j", "drained");
        assertThat(stateOf(queue, "j")).isEqualTo(JobState.FAILED);
    }

    @Test
    void progressIsToldWhileTheProcessorRuns() {
        JobQueue<String> queue = newQueue();
        Events events = listening(queue);
        queue.add("n", "p", withId("j"));
        List<String> seenAfterProgress = new CopyOnWriteArrayList<>();
        manualWorker(queue, ctx -> {
                    ctx.progress(40);
                    told(queue);
                    seenAfterProgress.addAll(events.log);
                    return Result.done();
                })
                .runDue();

        assertThat(seenAfterProgress).containsExactly("added j", "active j", "progress j 40");
    }

    // ------------------------------------------------------------------------------ rate limited for good

    @Test
    void aJobRateLimitedPastItsMaxRateLimitsFailsAndTheQueueIsDrained() throws Exception {
        JobQueue<String> queue = newQueue(JobOptions.builder().maxRateLimits(1));
        Events events = listening(queue);
        queue.add("n", "p", withId("j"));
        manualWorker(queue, ctx -> Result.rateLimited(Result.Scope.QUEUE, Duration.ofSeconds(5)))
                .runDue();
        assertThat(stateOf(queue, "j")).isEqualTo(JobState.WAITING);
        clock.advance(Duration.ofSeconds(5));

        manualWorker(queue, ctx -> Result.rateLimited(Result.Scope.QUEUE, Duration.ofSeconds(5)))
                .runDue();

        Job<String> failed = job(queue, "j");
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failure().reason()).contains("rate limited 2 times", "maxRateLimits 1");
        told(queue);
        assertThat(events.log)
                .containsExactly("added j", "active j", "rate-limited j QUEUE PT5S", "active j", "failed j", "drained");
        assertThat(events.snapshotOf("failed j").state()).isEqualTo(JobState.FAILED);
        assertThat(queue.awaitIdle(Duration.ZERO)).isTrue();
        assertThat(queue.stats().failed()).isEqualTo(1);
    }

    // ------------------------------------------------------------------------------ awaitIdle exactly

    @Test
    void aQueueWithAWaitingAndADelayedJobIsNotIdle() throws Exception {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("waits"));
        queue.add("n", "p", id("later").delay(Duration.ofMinutes(1)).build());

        assertThat(queue.awaitIdle(Duration.ZERO)).isFalse();
    }

    @Test
    void aQueueWithARunningAndAWaitingJobIsNotIdle() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("runs"));
        queue.add("n", "p", withId("waits"));
        List<Boolean> idleWhileRunning = new CopyOnWriteArrayList<>();
        manualWorker(queue, ctx -> {
                    if (ctx.job().id().equals("runs")) {
                        idleWhileRunning.add(queue.awaitIdle(Duration.ZERO));
                    }
                    return Result.done();
                })
                .runDue();

        assertThat(idleWhileRunning).containsExactly(false);
    }

    @Test
    void removingAJobThatLeavesAWaitingAndADelayedOneDoesNotEndAnIdleWait() throws Exception {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("waits"));
        queue.add("n", "p", withId("removed"));
        queue.add("n", "p", id("later").delay(Duration.ofHours(1)).build());

        assertRemovingLeavesTheIdleWaitToItsTimeout(queue, "one job waits and one is delayed: not idle");
    }

    @Test
    void removingAJobThatLeavesARunningAndAWaitingOneDoesNotEndAnIdleWait() throws Exception {
        JobQueue<String> queue = newQueue();
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 1);
        queue.add("n", "p", withId("runs"));
        eventually().until(() -> blocker.entered.contains("runs"));
        queue.add("n", "p", withId("waits"));
        queue.add("n", "p", id("removed").delay(Duration.ofHours(1)).build());

        assertRemovingLeavesTheIdleWaitToItsTimeout(queue, "one job runs and one waits: not idle");
    }

    /** An idle wait of 10 s, then job "removed" is removed: the wait must still end by its timeout, false. */
    private void assertRemovingLeavesTheIdleWaitToItsTimeout(JobQueue<String> queue, String why) throws Exception {
        int tasksBefore = clock.pendingTasks();
        Async<Boolean> waiter = async(() -> awaitIdle(queue, Duration.ofSeconds(10)));
        eventually().until(() -> waiter.isParked() && clock.pendingTasks() > tasksBefore);

        assertThat(queue.remove("removed")).isTrue();
        clock.advance(Duration.ofSeconds(10));

        assertThat(waiter.future().get(10, TimeUnit.SECONDS)).as(why).isFalse();
        assertThat(stateOf(queue, "waits"))
                .as("the waiter left the queue usable")
                .isEqualTo(JobState.WAITING);
    }

    @Test
    void aJobEndingWhileOthersAreDelayedAndRunningIsNoDrain() {
        JobQueue<String> queue = newQueue();
        Events events = listening(queue);
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 2);
        queue.add("n", "p", withId("a"));
        queue.add("n", "p", withId("b"));
        eventually().until(() -> blocker.entered.size() == 2);
        queue.add("n", "p", id("later").delay(Duration.ofHours(1)).build());

        blocker.release("a");
        eventually().until(() -> events.log.contains("completed a"));
        blocker.release("b");
        eventually().until(() -> events.log.contains("completed b"));

        assertThat(events.log).doesNotContain("drained");
    }

    @Test
    void aJobEndingWhileOthersWaitAndAreDelayedIsNoDrain() {
        JobQueue<String> queue = newQueue();
        Events events = listening(queue);
        queue.add("n", "p", withId("a"));
        queue.add("n", "p", withId("b"));
        queue.add("n", "p", id("later").delay(Duration.ofHours(1)).build());

        manualWorker(queue, completing()).runDue();

        told(queue);
        assertThat(events.log)
                .containsExactly(
                        "added a", "added b", "added later", "active a", "completed a", "active b", "completed b");
    }

    @Test
    void anIdleWaitEndedByTheEngineClosingThrowsWhatAnyCallThen() throws Exception {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("waits"));
        Async<Boolean> waiter = async(() -> awaitIdle(queue, Duration.ofHours(1)));
        eventually().until(waiter::isParked);

        engine.close();

        Throwable ended = failureOf(waiter.future());
        assertThatThrownBy(() -> queue.awaitIdle(Duration.ZERO))
                .isInstanceOf(IllegalStateException.class)
                .satisfies(direct -> assertThat(ended)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessage(direct.getMessage()));
    }

    @Test
    void anInterruptedIdleWaitLeavesTheQueueUsable() throws Exception {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("waits"));
        CountDownLatch interrupted = new CountDownLatch(1);
        Async<Boolean> waiter = async(() -> {
            try {
                return queue.awaitIdle(Duration.ofHours(1));
            } catch (InterruptedException e) {
                interrupted.countDown();
                return null;
            }
        });
        eventually().until(waiter::isParked);

        waiter.thread().interrupt();

        assertThat(interrupted.await(10, TimeUnit.SECONDS)).isTrue();
        queue.add("n", "p", withId("after"));
        assertThat(queue.counts()).isEqualTo(counts(2, 0, 0, 0, 0));
    }

    private static Boolean awaitIdle(JobQueue<String> queue, Duration timeout) {
        try {
            return queue.awaitIdle(timeout);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------------------ jobs(ACTIVE) order

    @Test
    void activeJobsAreListedByStartTimeThoughAddedInAnotherOrder() {
        JobQueue<String> queue = newQueue();
        queue.setGroupLimits("g", GroupLimits.builder().concurrency(1).build());
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 3);
        queue.add("n", "p", inGroup("g1", "g"));
        queue.add("n", "p", inGroup("g2", "g"));
        queue.add("n", "p", withId("free"));
        eventually().until(() -> blocker.entered.size() == 2);

        clock.advance(Duration.ofSeconds(1));
        blocker.release("g1");
        eventually().until(() -> blocker.entered.contains("g2"));

        assertThat(queue.jobs(JobState.ACTIVE, 0, 10))
                .extracting(Job::id, Job::startedAt)
                .containsExactly(tuple("free", START), tuple("g2", atMillis(1_000)));
    }

    @Test
    void activeJobsStartedAtOnceAreListedInTheOrderTheyBecameReady() {
        JobQueue<String> queue = newQueue();
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 2);
        queue.add("n", "p", withId("b"));
        queue.add("n", "p", withId("a"));
        eventually().until(() -> blocker.entered.size() == 2);

        assertThat(queue.jobs(JobState.ACTIVE, 0, 10))
                .extracting(Job::id, Job::startedAt)
                .containsExactly(tuple("b", START), tuple("a", START));
    }

    // ------------------------------------------------------------------------------ the engine closing

    @Test
    void anAddWhosePayloadIsBeingEncodedWhenTheEngineClosesFailsAsAClosedEngine() throws InterruptedException {
        CountDownLatch encoding = new CountDownLatch(3);
        CountDownLatch goOn = new CountDownLatch(1);
        Codec<String> slow = new Codec<>() {
            @Override
            public byte[] encode(String payload) {
                if (payload.equals("slow")) {
                    encoding.countDown();
                    try {
                        goOn.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return Codec.utf8().encode(payload);
            }

            @Override
            public String decode(byte[] bytes) {
                return Codec.utf8().decode(bytes);
            }
        };
        JobQueue<String> queue = engine.queue("slow", slow);
        List<Async<?>> calls = List.of(
                async(() -> queue.add("n", "slow")),
                async(() -> queue.addBulk(List.of(new NewJob<>("n", "slow")))),
                async(() -> queue.repeat("r", EVERY_MINUTE, new NewJob<>("n", "slow"))));
        try {
            assertThat(encoding.await(10, TimeUnit.SECONDS)).isTrue();
            engine.close();
        } finally {
            goOn.countDown();
        }

        for (Async<?> call : calls) {
            assertThat(failureOf(call.future()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(engine.toString())
                    .hasMessageContaining("closed");
        }
    }

    @Test
    void aClosedEngineIsNamedBeforeTheBadArgumentsOfEveryCall() {
        JobQueue<String> queue = newQueue();

        engine.close();

        Map<String, ThrowingCallable> uses = new LinkedHashMap<>();
        uses.put("awaitIdle", () -> queue.awaitIdle(null));
        uses.put("whenFinished", () -> queue.whenFinished(null));
        uses.put("payloadBytes", () -> queue.payloadBytes(null));
        uses.put("remove", () -> queue.remove(null));
        uses.put("retry", () -> queue.retry(null, null));
        uses.put("clean", () -> queue.clean(null, null));
        uses.put("repeat", () -> queue.repeat(null, null, null));
        uses.put("removeRepeatable", () -> queue.removeRepeatable(null));
        uses.put("addBulkAsync", () -> queue.addBulkAsync(null));
        uses.put("setGroupDefaults", () -> queue.setGroupDefaults(null));
        uses.put("setGroupLimits", () -> queue.setGroupLimits("", null));
        uses.put("clearGroupLimits", () -> queue.clearGroupLimits(""));
        uses.put("groupLimits", () -> queue.groupLimits(""));
        uses.put("stats", () -> queue.stats(""));
        uses.put("removeListener", () -> queue.removeListener(null));
        uses.forEach((what, call) -> assertThatThrownBy(call)
                .as(what)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(engine.toString())
                .hasMessageContaining("closed"));
    }

    // ------------------------------------------------------------------------------ bounds and bulk answers

    @Test
    void aBulkNamingOneIdTwiceNeedsRoomForOneJob() {
        JobQueue<String> queue = newQueue(QueueOptions.builder().maxQueued(1).build());

        List<Added<String>> answers =
                queue.addBulk(List.of(new NewJob<>("n", "p", withId("x")), new NewJob<>("n", "q", withId("x"))));

        assertThat(answers).extracting(Added::duplicate).containsExactly(false, true);
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));
    }

    @Test
    void aBulkOfDuplicatesOnlyIsAnsweredThoughTheQueueHoldsMoreThanItsBound() {
        JobQueue<String> queue = newQueue(QueueOptions.builder().maxQueued(1).build());
        queue.add("n", "p", withId("mine"));
        queue.repeat("r", EVERY_MINUTE, new NewJob<>("n", "p")); // its run due now and the next: 2 jobs more

        List<Added<String>> answers = queue.addBulk(List.of(new NewJob<>("n", "p", withId("mine"))));

        assertThat(answers).extracting(Added::duplicate).containsExactly(true);
        assertThat(queue.counts()).isEqualTo(counts(2, 1, 0, 0, 0));
    }

    @Test
    void aFullQueueSaysHowManyWaitingAndDelayedJobsItHolds() {
        JobQueue<String> queue = newQueue(QueueOptions.builder().maxQueued(2).build());
        queue.add("n", "p", withId("waits"));
        queue.add("n", "p", id("later").delay(Duration.ofMinutes(1)).build());

        assertThatThrownBy(() -> queue.add("n", "p", withId("more")))
                .isInstanceOf(QueueFullException.class)
                .hasMessageContaining("holds 2 waiting or delayed jobs, at most 2, and 1 more do not fit");
    }

    @Test
    void theFirstJobOfABulkIsNamedByItsIndexInAnError() {
        JobQueue<String> queue = newQueue();

        assertThatThrownBy(() -> queue.addBulk(List.of(new NewJob<>(
                        "first",
                        "p",
                        JobOptions.builder()
                                .deduplicateFor(Duration.ofMinutes(1))
                                .build()))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("job 0 ('first') of the bulk sets deduplicateFor without a jobId")
                .hasMessageEndingWith("; nothing was added");
        assertThatThrownBy(() -> queue.add(
                        "single",
                        "p",
                        JobOptions.builder()
                                .deduplicateFor(Duration.ofMinutes(1))
                                .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("job 'single' sets deduplicateFor without a jobId")
                .hasMessageEndingWith("de-duplication needs the producer's id");
    }

    @Test
    void delayedJobsDueAtOnceKeepTheOrderTheyWereAdded() {
        JobQueue<String> queue = newQueue();
        for (String id : List.of("d1", "d2", "d3")) {
            queue.add("n", "p", id(id).delay(Duration.ofMinutes(1)).build());
        }
        assertThat(ids(queue.jobs(JobState.DELAYED, 0, 10))).containsExactly("d1", "d2", "d3");

        clock.advance(Duration.ofMinutes(1));

        assertThat(ids(queue.jobs(JobState.WAITING, 0, 10))).containsExactly("d1", "d2", "d3");
    }

    // ------------------------------------------------------------------------------ what a worker counts

    @Test
    void aManualWorkerCountsTheOneJobItRunsAndNoneAfter() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("a"));
        queue.add("n", "p", withId("b"));
        List<Integer> activeInside = new CopyOnWriteArrayList<>();
        AtomicReference<Worker<String>> worker = new AtomicReference<>();
        worker.set(manualWorker(queue, ctx -> {
            activeInside.add(worker.get().active());
            return Result.done();
        }));

        assertThat(worker.get().runDue()).isEqualTo(2);

        assertThat(activeInside).containsExactly(1, 1);
        assertThat(worker.get().active()).isZero();
    }

    @Test
    void aWorkerClosedWithAZeroDeadlineCountsNoJobAfterReturningThem() {
        JobQueue<String> queue = newQueue();
        Blocker blocker = blocker();
        Worker<String> worker = startedWorker(queue, blocker, 2);
        queue.add("n", "p", withId("a"));
        queue.add("n", "p", withId("b"));
        eventually().until(() -> blocker.entered.size() == 2);

        assertThat(worker.close(Duration.ZERO)).isEqualTo(new Worker.CloseReport(0, 2));

        assertThat(worker.active()).isZero();
    }

    @Test
    void anAttemptIsCancelledOnceItsTimeoutPassed() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("j").timeout(Duration.ofSeconds(1)).attempts(1).build());
        List<Boolean> cancelled = new CopyOnWriteArrayList<>();
        manualWorker(queue, ctx -> {
                    cancelled.add(ctx.isCancelled());
                    clock.advance(Duration.ofSeconds(1));
                    cancelled.add(ctx.isCancelled());
                    return Result.done();
                })
                .runDue();

        assertThat(cancelled).containsExactly(false, true);
    }
}
