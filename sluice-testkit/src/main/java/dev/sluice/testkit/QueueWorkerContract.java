package dev.sluice.testkit;

import static dev.sluice.testkit.JobAssertions.assertAttempts;
import static dev.sluice.testkit.JobAssertions.attempt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Job;
import dev.sluice.queue.Job.Attempt.Outcome;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.Worker.CloseReport;
import dev.sluice.queue.WorkerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Workers: manual and started, and closing with a deadline on the engine clock: no new jobs are taken,
 * running ones may finish, and the ones still running at the deadline go back to waiting, nothing lost.
 */
public abstract class QueueWorkerContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueWorkerContract() {}

    @Test
    void closeStopsTakingJobsAndReturnsUnfinishedOnesAtTheDeadline() throws Exception {
        JobQueue<String> queue = newQueue();
        Blocker blocker = blocker();
        Worker<String> worker = startedWorker(queue, blocker, 2);
        queue.add("n", "p", withId("A"));
        queue.add("n", "p", withId("B"));
        queue.add("n", "p", withId("C"));
        eventually().until(() -> blocker.entered.size() == 2);
        // two slots take A then B, but each runs on its own thread: either may enter the processor first
        assertThat(blocker.entered).containsExactlyInAnyOrder("A", "B");
        assertThat(worker.active()).isEqualTo(2);

        CompletableFuture<CloseReport> closing = worker.closeAsync(Duration.ofSeconds(10));
        assertThat(closing).isNotDone();

        blocker.release("A");
        eventually().until(() -> stateOf(queue, "A") == JobState.COMPLETED);
        assertThat(stateOf(queue, "C")).as("a closing worker takes no new job").isEqualTo(JobState.WAITING);

        clock.advanceNanos(10 * SECOND - 1);
        assertThat(closing).isNotDone();
        assertThat(stateOf(queue, "B")).isEqualTo(JobState.ACTIVE);

        clock.advanceNanos(1);

        CloseReport report = closing.get(10, TimeUnit.SECONDS);
        assertThat(report).isEqualTo(new CloseReport(1, 1));
        eventually().until(() -> blocker.interrupted.contains("B"));
        Job<String> returned = job(queue, "B");
        assertThat(returned.state()).isEqualTo(JobState.WAITING);
        assertThat(returned.attemptsMade()).isZero();
        assertAttempts(returned, attempt(1, 0, 10_000, Outcome.INTERRUPTED, "its worker closed before it finished"));
        assertThat(queue.counts()).isEqualTo(counts(2, 0, 0, 1, 0));
        assertThat(blocker.entered).containsExactlyInAnyOrder("A", "B");

        blocker.releaseAll();
        List<String> ran = new ArrayList<>();
        assertThat(manualWorker(queue, recording(ran)).runDue()).isEqualTo(2);
        assertThat(ran).containsExactlyInAnyOrder("B", "C");
        Job<String> finished = job(queue, "B");
        assertThat(finished.attemptsMade()).isEqualTo(1);
        assertThat(finished.attempts())
                .extracting(Job.Attempt::outcome)
                .containsExactly(Outcome.INTERRUPTED, Outcome.COMPLETED);
    }

    @Test
    void closeCompletesAsSoonAsTheRunningJobsFinish() throws Exception {
        JobQueue<String> queue = newQueue();
        Blocker blocker = blocker();
        Worker<String> worker = startedWorker(queue, blocker, 3);
        queue.add("n", "p", withId("A"));
        queue.add("n", "p", withId("B"));
        eventually().until(() -> blocker.entered.size() == 2);

        CompletableFuture<CloseReport> closing = worker.closeAsync(Duration.ofMinutes(1));
        blocker.releaseAll();

        assertThat(closing.get(10, TimeUnit.SECONDS)).isEqualTo(new CloseReport(2, 0));
        assertThat(clock.nanos()).isEqualTo(T0);
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 2, 0));
    }

    @Test
    void closingAnIdleWorkerCompletesAtOnce() throws Exception {
        JobQueue<String> queue = newQueue();
        Worker<String> worker = startedWorker(queue, completing(), 4);
        assertThat(worker.closeAsync(Duration.ofMinutes(1)).get(10, TimeUnit.SECONDS))
                .isEqualTo(new CloseReport(0, 0));
        queue.add("n", "p", withId("after-close"));
        assertThat(stateOf(queue, "after-close")).isEqualTo(JobState.WAITING);
        assertThat(worker.active()).isZero();
    }

    @Test
    void aClosedWorkerTakesNoJobsButAnotherWorkerDoes() {
        JobQueue<String> queue = newQueue();
        Worker<String> worker = startedWorker(queue, completing(), 2);
        worker.close(Duration.ZERO);
        queue.add("n", "p", withId("j"));
        List<String> ran = new ArrayList<>();
        assertThat(manualWorker(queue, recording(ran)).runDue()).isEqualTo(1);
        assertThat(ran).containsExactly("j");
    }

    @Test
    void closeWithAZeroDeadlineReturnsEveryRunningJob() throws Exception {
        JobQueue<String> queue = newQueue();
        Blocker blocker = blocker();
        Worker<String> worker = startedWorker(queue, blocker, 3);
        for (String id : List.of("A", "B", "C")) {
            queue.add("n", "p", withId(id));
        }
        eventually().until(() -> blocker.entered.size() == 3);

        CompletableFuture<CloseReport> closing = worker.closeAsync(Duration.ZERO);
        clock.runDue();

        assertThat(closing.get(10, TimeUnit.SECONDS)).isEqualTo(new CloseReport(0, 3));
        assertThat(queue.counts()).isEqualTo(counts(3, 0, 0, 0, 0));
        eventually().until(() -> blocker.interrupted.size() == 3);
    }

    @Test
    void runDueOnAStartedOrClosedWorkerThrows() {
        JobQueue<String> queue = newQueue();
        Worker<String> started = startedWorker(queue, completing(), 1);
        assertThatThrownBy(started::runDue).isInstanceOf(IllegalStateException.class);

        Worker<String> manual = manualWorker(queue, completing());
        manual.close(Duration.ZERO);
        assertThatThrownBy(manual::runDue).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aManualWorkerCanBeStartedLater() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new CopyOnWriteArrayList<>();
        Worker<String> worker = track(queue.worker(
                recording(ran),
                WorkerOptions.builder().concurrency(3).autoStart(false).build()));
        queue.add("n", "p", withId("by-hand"));
        assertThat(worker.runDue()).isEqualTo(1);
        queue.add("n", "p", withId("queued"));
        assertThat(stateOf(queue, "queued")).isEqualTo(JobState.WAITING);

        worker.start();
        worker.start(); // a second start changes nothing

        eventually().until(() -> ran.size() == 2);
        queue.add("n", "p", withId("later"));
        eventually().until(() -> ran.size() == 3);
        assertThat(ran).containsExactly("by-hand", "queued", "later");
        assertThatThrownBy(worker::runDue).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void startedWorkerRunsJobsThatBecomeDueWhenTheClockMoves() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new CopyOnWriteArrayList<>();
        startedWorker(queue, recording(ran), 2);
        queue.add("n", "p", id("later").delay(Duration.ofSeconds(30)).build());
        queue.add("n", "p", withId("now"));
        eventually().until(() -> ran.contains("now"));
        assertThat(stateOf(queue, "later")).isEqualTo(JobState.DELAYED);

        clock.advance(Duration.ofSeconds(30));

        eventually().until(() -> ran.contains("later"));
        assertThat(job(queue, "later").startedAt()).isEqualTo(atMillis(30_000));
    }

    @Test
    void activeCountsTheJobsAWorkerIsRunning() {
        JobQueue<String> queue = newQueue();
        Blocker blocker = blocker();
        Worker<String> worker = startedWorker(queue, blocker, 5);
        for (int i = 0; i < 3; i++) {
            queue.add("n", "p", withId("j" + i));
        }
        eventually().until(() -> worker.active() == 3);
        blocker.release("j0");
        eventually().until(() -> worker.active() == 2);
        blocker.releaseAll();
        eventually().until(() -> worker.active() == 0 && queue.counts().completed() == 3);
    }

    @Test
    void progressAfterTheWorkerReturnedTheJobIsIgnored() throws Exception {
        JobQueue<String> queue = newQueue();
        List<Boolean> cancelled = new CopyOnWriteArrayList<>();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        Worker<String> worker = startedWorker(
                queue,
                ctx -> {
                    ctx.progress(20);
                    entered.countDown();
                    while (closed.getCount() > 0) {
                        try {
                            closed.await();
                        } catch (InterruptedException ignored) {
                            // keep going until the test says the close is over
                        }
                    }
                    cancelled.add(ctx.isCancelled());
                    ctx.progress(80);
                    return Result.done();
                },
                1);
        queue.add("n", "p", withId("j"));
        entered.await(10, TimeUnit.SECONDS);

        CompletableFuture<CloseReport> closing = worker.closeAsync(Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(1));
        eventually().until(() -> stateOf(queue, "j") == JobState.WAITING);
        closed.countDown();

        eventually().until(() -> cancelled.size() == 1);
        assertThat(cancelled).containsExactly(true);
        assertThat(closing.get(10, TimeUnit.SECONDS)).isEqualTo(new CloseReport(0, 1));
        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.WAITING);
        assertThat(job.progress()).isEqualTo(20);
        assertThat(job.attemptsMade()).isZero();
    }

    @Test
    void closingTheEngineGivesRunningJobsItsDeadlineOnTheEngineClock() throws Exception {
        JobQueue<String> queue = newQueue();
        Blocker blocker = blocker();
        startedWorker(queue, blocker, 1);
        queue.add("n", "p", withId("running"));
        eventually().until(() -> blocker.entered.contains("running"));

        Async<Boolean> closer = async(() -> {
            engine.close();
            return true;
        });
        eventually().until(() -> closer.isParked() || closer.future().isDone());
        assertThat(closer.future())
                .as("Sluice.close() waits up to 30 s for running jobs")
                .isNotDone();
        assertThat(blocker.interrupted).isEmpty();

        clock.advance(Duration.ofSeconds(30));

        assertThat(closer.future().get(10, TimeUnit.SECONDS)).isTrue();
        eventually().until(() -> blocker.interrupted.contains("running"));
    }
}
