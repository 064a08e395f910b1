package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobNotFoundException;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Waiting for jobs. {@code whenFinished(id)} completes with the job's final snapshot, completed with its
 * result or failed with its reason, also for a job that has already finished, and fails with {@link
 * JobNotFoundException} for an id the queue does not hold or a job removed before it finishes. {@code
 * awaitIdle(timeout)} returns once no job is waiting, delayed or active, or {@code false} when the timeout
 * passes on the engine clock.
 */
public abstract class QueueAwaitContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueAwaitContract() {}

    private static <R> R result(CompletableFuture<R> future) throws Exception {
        return future.get(10, TimeUnit.SECONDS);
    }

    // ------------------------------------------------------------------------------------------ whenFinished

    @Test
    void whenFinishedCompletesWithTheCompletedJobAndItsResult() throws Exception {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        CompletableFuture<Job<String>> finished = queue.whenFinished("j");
        assertThat(finished).isNotDone();

        manualWorker(queue, ctx -> {
                    clock.advance(Duration.ofSeconds(2));
                    return Result.done("{\"total\":42}");
                })
                .runDue();

        Job<String> job = result(finished);
        assertThat(job.state()).isEqualTo(JobState.COMPLETED);
        assertThat(job.result()).isEqualTo("{\"total\":42}");
        assertThat(job.finishedAt()).isEqualTo(START.plusSeconds(2));
        assertThat(job.attemptsMade()).isEqualTo(1);
    }

    @Test
    void whenFinishedCompletesNormallyWithAFailedJobAndItsReasonAfterTheLastAttempt() throws Exception {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(2));
        queue.add("n", "p", withId("j"));
        CompletableFuture<Job<String>> finished = queue.whenFinished("j");
        Worker<String> worker = manualWorker(queue, throwing("card declined"));

        worker.runDue();

        Job<String> job = result(finished);
        assertThat(job.state()).isEqualTo(JobState.FAILED);
        assertThat(job.attemptsMade())
                .as("not after the first, retried attempt")
                .isEqualTo(2);
        assertThat(job.failure().reason()).isEqualTo("card declined");
        assertThat(job.failure().exceptionClass()).isEqualTo(Boom.class.getName());
        assertThat(job.result()).isNull();
    }

    @Test
    void whenFinishedWaitsThroughRetriesDelaysAndRateLimits() throws Exception {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(3));
        queue.add("n", "p", id("j").delay(Duration.ofSeconds(5)).build());
        CompletableFuture<Job<String>> finished = queue.whenFinished("j");
        int[] calls = {0};
        Worker<String> worker = manualWorker(queue, ctx -> switch (++calls[0]) {
            case 1 -> throw new Boom("flaky");
            case 2 -> Result.rateLimited(Result.Scope.GROUP, Duration.ofSeconds(1));
            default -> Result.done("third call");
        });

        worker.runDue();
        clock.advance(Duration.ofSeconds(5));
        worker.runDue();
        assertThat(finished).isNotDone();
        clock.advance(Duration.ofSeconds(1));
        worker.runDue();

        Job<String> job = result(finished);
        assertThat(job.state()).isEqualTo(JobState.COMPLETED);
        assertThat(job.result()).isEqualTo("third call");
        assertThat(calls[0]).isEqualTo(3);
    }

    @Test
    void whenFinishedOfAJobThatAlreadyFinishedIsCompleteAtOnce() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("ok"));
        queue.add("fail", "p", withId("bad"));
        manualWorker(queue, ctx -> {
                    if (ctx.job().name().equals("fail")) {
                        throw new Boom("no");
                    }
                    return Result.done("yes");
                })
                .runDue();

        CompletableFuture<Job<String>> ok = queue.whenFinished("ok");
        CompletableFuture<Job<String>> bad = queue.whenFinished("bad");

        assertThat(ok).isCompleted();
        assertThat(ok.join().result()).isEqualTo("yes");
        assertThat(bad).isCompleted();
        assertThat(bad.join().state()).isEqualTo(JobState.FAILED);
        assertThat(bad.join().failure().reason()).isEqualTo("no");
    }

    @Test
    void everyWaiterOfAJobHearsTheSameOutcome() throws Exception {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        CompletableFuture<Job<String>> first = queue.whenFinished("j");
        CompletableFuture<Job<String>> second = queue.whenFinished("j");

        manualWorker(queue, ctx -> Result.done("r")).runDue();

        assertThat(result(first).result()).isEqualTo("r");
        assertThat(result(second).result()).isEqualTo("r");
    }

    @Test
    void whenFinishedHearsTheOutcomeOfAJobItsRetentionRemovesAsItFinishes() throws Exception {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepNone()));
        queue.add("n", "p", withId("j"));
        CompletableFuture<Job<String>> finished = queue.whenFinished("j");

        manualWorker(queue, ctx -> Result.done("gone")).runDue();

        assertThat(result(finished).result()).isEqualTo("gone");
        assertThat(queue.job("j")).isEmpty();
        assertThat(failureOf(queue.whenFinished("j")))
                .as("once removed, the id is unknown")
                .isInstanceOf(JobNotFoundException.class);
    }

    @Test
    void whenFinishedOfAnUnknownIdFailsWithJobNotFound() {
        JobQueue<String> queue = newQueue();

        CompletableFuture<Job<String>> finished = queue.whenFinished("ghost");

        assertThat(finished).isCompletedExceptionally();
        assertThat(failureOf(finished))
                .isInstanceOf(JobNotFoundException.class)
                .hasMessageContaining("ghost")
                .hasMessageContaining(QUEUE)
                .satisfies(e -> assertThat(((JobNotFoundException) e).jobId()).isEqualTo("ghost"));
    }

    @Test
    void whenFinishedOfAJobRemovedBeforeItFinishesFailsWithJobNotFound() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("removed"));
        queue.add("n", "p", id("drained").delay(Duration.ofSeconds(1)).build());
        CompletableFuture<Job<String>> removed = queue.whenFinished("removed");
        CompletableFuture<Job<String>> drained = queue.whenFinished("drained");

        queue.remove("removed");
        queue.drain(true);

        assertThat(failureOf(removed))
                .isInstanceOf(JobNotFoundException.class)
                .hasMessageContaining("removed before it finished");
        assertThat(failureOf(drained)).isInstanceOf(JobNotFoundException.class);
    }

    @Test
    void whenFinishedOfAJobRetriedAfterItFinishedWaitsForTheNewOutcome() throws Exception {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        boolean[] healthy = {false};
        Worker<String> worker = manualWorker(queue, ctx -> {
            if (!healthy[0]) {
                throw new Boom("down");
            }
            return Result.done("up");
        });
        worker.runDue();
        assertThat(queue.whenFinished("j").join().state()).isEqualTo(JobState.FAILED);

        queue.retry("j");
        CompletableFuture<Job<String>> again = queue.whenFinished("j");
        assertThat(again).isNotDone();
        healthy[0] = true;
        worker.runDue();

        assertThat(result(again).result()).isEqualTo("up");
    }

    @Test
    void whenFinishedFailsWhenTheEngineClosesFirst() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        CompletableFuture<Job<String>> finished = queue.whenFinished("j");

        engine.close();

        assertThat(failureOf(finished))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(QUEUE);
        assertThatThrownBy(() -> queue.whenFinished("j"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void whenFinishedCallbacksMayUseTheQueue() throws Exception {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        CompletableFuture<JobState> seen = queue.whenFinished("j").thenApply(job -> stateOf(queue, job.id()));

        manualWorker(queue, completing()).runDue();

        assertThat(result(seen)).isEqualTo(JobState.COMPLETED);
    }

    /**
     * A future completes on a thread of its own, never on a worker's: a callback may block, here on another job of
     * the same queue that the only worker must run, without stalling that worker (the issue asked whether a
     * callback run on the Redis worker's call lane could stall it).
     */
    @Test
    void whenFinishedCallbacksMayBlockOnTheQueueWithoutStallingItsWorker() throws Exception {
        JobQueue<String> queue = engineOn(SluiceClock.system()).queue("blocking-callbacks", Codec.utf8());
        track(queue.worker(ctx -> Result.done(ctx.payload()), WorkerOptions.concurrency(1)));
        for (int rep = 0; rep < 20; rep++) {
            String first = queue.add("first", "a" + rep).job().id();
            CompletableFuture<Object> chained = queue.whenFinished(first).thenApply(done -> {
                try {
                    String second =
                            queue.add("second", "b" + done.payload()).job().id();
                    return queue.whenFinished(second).get(20, TimeUnit.SECONDS).result();
                } catch (Exception e) {
                    return e;
                }
            });

            assertThat(chained.get(30, TimeUnit.SECONDS)).as("rep %d", rep).isEqualTo("ba" + rep);
        }
    }

    @Test
    void whenFinishedRejectsANullId() {
        JobQueue<String> queue = newQueue();
        assertRejected(() -> queue.whenFinished(null), "id");
    }

    @Test
    void whenFinishedGivesAResultInTheCodecItWasStoredWith() throws Exception {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        CompletableFuture<Job<String>> finished = queue.whenFinished("j");
        byte[] pdf = {'%', 'P', 'D', 'F', (byte) 0xff, 0};

        manualWorker(queue, ctx -> Result.done(pdf, Codec.bytes())).runDue();

        assertThat(result(finished).result(Codec.bytes())).containsExactly(pdf);
    }

    // ------------------------------------------------------------------------------------------ awaitIdle

    @Test
    void awaitIdleOfAnEmptyQueueReturnsTrueAtOnce() throws Exception {
        JobQueue<String> queue = newQueue();
        assertThat(queue.awaitIdle(Duration.ZERO)).isTrue();
        assertThat(queue.awaitIdle(Duration.ofHours(1))).isTrue();
    }

    @Test
    void awaitIdleWithZeroTimeoutOnlyLooks() throws Exception {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        assertThat(queue.awaitIdle(Duration.ZERO)).isFalse();
    }

    @Test
    void awaitIdleReturnsOnceEveryJobHasFinished() {
        JobQueue<String> queue = newQueue();
        for (int i = 0; i < 20; i++) {
            queue.add("n", "p", withId("j" + i));
        }
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 4);
        eventually().until(() -> blocker.runningTotal() == 4);

        Async<Boolean> waiter = async(() -> awaitIdle(queue, Duration.ofHours(1)));
        eventually().until(waiter::isParked);
        assertThat(waiter.future()).isNotDone();
        blocker.releaseAll();

        assertThat(waiter.future().join()).isTrue();
        assertThat(blocker.returned).hasSize(20);
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 20, 0));
    }

    @Test
    void awaitIdleWaitsForDelayedJobsAndGivesUpWhenTheTimeoutPassesOnTheEngineClock() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", id("later").delay(Duration.ofSeconds(30)).build());
        int tasksBefore = clock.pendingTasks();

        Async<Boolean> waiter = async(() -> awaitIdle(queue, Duration.ofSeconds(10)));
        eventually().until(() -> waiter.isParked() && clock.pendingTasks() > tasksBefore);
        clock.advanceNanos(10 * SECOND - 1);
        assertThat(waiter.future()).as("1 ns before the timeout").isNotDone();
        clock.advanceNanos(1);

        assertThat(waiter.future().join()).isFalse();
        assertThat(queue.counts()).isEqualTo(counts(0, 1, 0, 0, 0));
    }

    @Test
    void awaitIdleReturnsWhenTheLastJobIsRemoved() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("a"));
        queue.add("n", "p", id("b").delay(Duration.ofSeconds(30)).build());

        Async<Boolean> waiter = async(() -> awaitIdle(queue, Duration.ofSeconds(10)));
        eventually().until(waiter::isParked);
        queue.remove("a");
        assertThat(waiter.future()).as("b is still delayed").isNotDone();
        queue.drain(true);

        assertThat(waiter.future().join()).isTrue();
    }

    @Test
    void awaitIdleIsNotFooledByAJobThatGoesBackToWaitingOrDelayed() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(2));
        queue.add("n", "p", withId("j"));
        Async<Boolean> waiter = async(() -> awaitIdle(queue, Duration.ofMinutes(10)));
        eventually().until(waiter::isParked);
        int[] calls = {0};
        Worker<String> worker = manualWorker(queue, ctx -> switch (++calls[0]) {
            case 1 -> throw new Boom("again");
            case 2 -> Result.runAgainAfter(Duration.ofSeconds(1));
            default -> Result.done();
        });

        worker.runDue();

        assertThat(calls[0]).isEqualTo(2);
        assertThat(queue.counts()).isEqualTo(counts(0, 1, 0, 0, 0));
        assertThat(waiter.future()).as("the job is delayed again").isNotDone();
        clock.advance(Duration.ofSeconds(1));
        worker.runDue();
        assertThat(waiter.future().join()).isTrue();
    }

    @Test
    void awaitIdleOnAClosedEngineThrows() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        Async<Boolean> waiter = async(() -> awaitIdle(queue, Duration.ofSeconds(10)));
        eventually().until(waiter::isParked);

        engine.close();

        assertThat(failureOf(waiter.future())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> queue.awaitIdle(Duration.ZERO)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void awaitIdleRejectsABadTimeout() {
        JobQueue<String> queue = newQueue();
        assertRejected(() -> queue.awaitIdle(null), "timeout");
        assertRejected(() -> queue.awaitIdle(Duration.ofSeconds(-1)), "timeout", "-1");
    }

    @Test
    void withRealWorkersEveryWaiterHearsItsOwnJobsOutcome() throws Exception {
        for (int rep = 0; rep < 10; rep++) {
            JobQueue<String> queue = engineOn(SluiceClock.system()).queue("outcomes-" + rep, Codec.utf8());
            track(queue.worker(
                    ctx -> {
                        if (ctx.payload().startsWith("fail")) {
                            throw new Boom(ctx.payload());
                        }
                        return Result.done("done " + ctx.payload());
                    },
                    WorkerOptions.concurrency(4)));
            Map<String, CompletableFuture<Job<String>>> outcomes = new HashMap<>();
            for (int i = 0; i < 300; i++) {
                String payload = (i % 5 == 0 ? "fail" : "ok") + i;
                String id = queue.add("n", payload).job().id();
                outcomes.put(payload, queue.whenFinished(id));
            }

            for (Map.Entry<String, CompletableFuture<Job<String>>> outcome : outcomes.entrySet()) {
                Job<String> job = outcome.getValue().get(30, TimeUnit.SECONDS);
                String payload = outcome.getKey();
                assertThat(job.payload()).as("rep %d", rep).isEqualTo(payload);
                if (payload.startsWith("fail")) {
                    assertThat(job.state()).isEqualTo(JobState.FAILED);
                    assertThat(job.failure().reason()).isEqualTo(payload);
                } else {
                    assertThat(job.state()).isEqualTo(JobState.COMPLETED);
                    assertThat(job.result()).isEqualTo("done " + payload);
                }
            }
            assertThat(queue.awaitIdle(Duration.ofSeconds(30))).isTrue();
        }
    }

    private static boolean awaitIdle(JobQueue<String> queue, Duration timeout) {
        try {
            return queue.awaitIdle(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
