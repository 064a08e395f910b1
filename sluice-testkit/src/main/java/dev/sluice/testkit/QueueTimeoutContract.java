package dev.sluice.testkit;

import static dev.sluice.testkit.JobAssertions.assertAttempts;
import static dev.sluice.testkit.JobAssertions.attempt;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.Backoff;
import dev.sluice.queue.Job;
import dev.sluice.queue.Job.Attempt.Outcome;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Timeouts on the engine clock: an attempt that runs longer than its timeout ends TIMED_OUT, its thread is
 * interrupted, the job is retried or failed, and what the processor returns later is ignored.
 */
public abstract class QueueTimeoutContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueTimeoutContract() {}

    @Test
    void attemptRunningPastItsTimeoutIsInterruptedAndRetried() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(2).timeout(Duration.ofSeconds(1)));
        AtomicInteger calls = new AtomicInteger();
        List<String> interrupted = new CopyOnWriteArrayList<>();
        CountDownLatch never = new CountDownLatch(1);
        CountDownLatch entered = new CountDownLatch(1);
        startedWorker(
                queue,
                ctx -> {
                    if (calls.incrementAndGet() == 1) {
                        entered.countDown();
                        try {
                            never.await();
                        } catch (InterruptedException e) {
                            interrupted.add(ctx.job().id());
                            throw e;
                        }
                    }
                    return Result.done("second try");
                },
                1);
        queue.add("n", "p", withId("slow"));
        eventually().until(() -> entered.getCount() == 0);

        clock.advanceNanos(SECOND - 1);
        assertThat(stateOf(queue, "slow")).isEqualTo(JobState.ACTIVE);
        clock.advanceNanos(1);

        eventually().until(() -> stateOf(queue, "slow") == JobState.COMPLETED);
        assertThat(interrupted).containsExactly("slow");
        Job<String> job = job(queue, "slow");
        assertThat(job.attemptsMade()).isEqualTo(2);
        assertThat(job.result()).isEqualTo("second try");
        assertAttempts(
                job,
                attempt(1, 0, 1_000, Outcome.TIMED_OUT, "timed out"),
                attempt(2, 1_000, 1_000, Outcome.COMPLETED, null));
    }

    @Test
    void timedOutLastAttemptFailsTheJobWithoutAnExceptionClass() {
        JobQueue<String> queue = newQueue(JobOptions.builder().timeout(Duration.ofMillis(500)));
        queue.add("n", "p", withId("j"));
        AtomicBoolean sawInterrupt = new AtomicBoolean();
        AtomicBoolean sawCancelled = new AtomicBoolean();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ctx.progress(10);
            clock.advance(Duration.ofSeconds(2)); // the work takes 2 s of engine time
            sawInterrupt.set(Thread.interrupted());
            sawCancelled.set(ctx.isCancelled());
            ctx.progress(90); // ignored: the attempt has ended
            return Result.done("too late");
        });

        assertThat(worker.runDue()).isEqualTo(1);

        assertThat(sawInterrupt).as("the processor's thread was interrupted").isTrue();
        assertThat(sawCancelled).as("the context says the attempt ended").isTrue();
        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.FAILED);
        assertThat(job.result()).isNull();
        assertThat(job.progress()).isEqualTo(10);
        assertThat(job.finishedAt()).isEqualTo(atMillis(500));
        assertThat(job.failure().reason()).contains("timed out");
        assertThat(job.failure().exceptionClass()).isNull();
        assertAttempts(job, attempt(1, 0, 500, Outcome.TIMED_OUT, "timed out"));
    }

    @Test
    void lateReturnIsIgnoredAndTheWorkerSlotStaysBusyUntilIt() {
        JobQueue<String> queue = newQueue(JobOptions.builder().timeout(Duration.ofSeconds(1)));
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch entered = new CountDownLatch(1);
        List<String> ran = new CopyOnWriteArrayList<>();
        Worker<String> worker = startedWorker(
                queue,
                ctx -> {
                    ran.add(ctx.job().id());
                    if (ctx.job().id().equals("stubborn")) {
                        entered.countDown();
                        boolean done = false;
                        while (!done) {
                            try {
                                release.await(); // ignores interrupts
                                done = true;
                            } catch (InterruptedException ignored) {
                                // keep waiting
                            }
                        }
                        return Result.done("late");
                    }
                    return Result.done();
                },
                1);
        queue.add("n", "p", withId("stubborn"));
        eventually().until(() -> entered.getCount() == 0);
        queue.add("n", "p", withId("next"));

        clock.advance(Duration.ofSeconds(1));

        eventually().until(() -> stateOf(queue, "stubborn") == JobState.FAILED);
        assertThat(worker.active())
                .as("the slot stays busy while the processor has not returned")
                .isEqualTo(1);
        assertThat(stateOf(queue, "next")).isEqualTo(JobState.WAITING);
        assertThat(ran).containsExactly("stubborn");

        release.countDown();

        eventually().until(() -> stateOf(queue, "next") == JobState.COMPLETED);
        Job<String> stubborn = job(queue, "stubborn");
        assertThat(stubborn.state()).isEqualTo(JobState.FAILED);
        assertThat(stubborn.result()).isNull();
        assertThat(stubborn.failure().reason()).contains("timed out");
        assertAttempts(stubborn, attempt(1, 0, 1_000, Outcome.TIMED_OUT, "timed out"));
    }

    @Test
    void aTimeoutInsideRunDueInterruptsOnlyThatAttemptAndNotTheCaller() {
        // pins issue 9: the interrupt stayed set on runDue's caller, and the next attempt saw it at entry
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(2).timeout(Duration.ofSeconds(1)));
        queue.add("n", "p", withId("j"));
        List<Boolean> interruptedAtEntry = new CopyOnWriteArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            interruptedAtEntry.add(Thread.currentThread().isInterrupted());
            clock.advance(Duration.ofSeconds(2)); // times out at 1 s, ignores the interrupt
            return Result.done();
        });

        assertThat(worker.runDue()).isEqualTo(2);

        assertThat(interruptedAtEntry).containsExactly(false, false);
        assertThat(Thread.interrupted())
                .as("runDue's caller is not left interrupted")
                .isFalse();
        assertAttempts(
                job(queue, "j"),
                attempt(1, 0, 1_000, Outcome.TIMED_OUT, "timed out"),
                attempt(2, 2_000, 3_000, Outcome.TIMED_OUT, "timed out"));
    }

    @Test
    void aTimeoutsInterruptNeverReachesTheSlotsNextJob() throws Exception {
        // pins issue 9: the interrupt was sent after the lock was released and could land on the next job
        JobQueue<String> queue = newQueue();
        List<String> interruptedNext = new CopyOnWriteArrayList<>();
        AtomicInteger nextDone = new AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<CountDownLatch> release =
                new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<CountDownLatch> entered =
                new java.util.concurrent.atomic.AtomicReference<>();
        startedWorker(
                queue,
                ctx -> {
                    if (ctx.job().name().equals("slow")) {
                        entered.get().countDown();
                        while (true) {
                            try {
                                release.get().await();
                                return Result.done();
                            } catch (InterruptedException ignored) {
                                // returns only when released
                            }
                        }
                    }
                    for (int i = 0; i < 2_000; i++) {
                        if (Thread.currentThread().isInterrupted()) {
                            interruptedNext.add(ctx.job().id());
                            break;
                        }
                        Thread.onSpinWait();
                    }
                    nextDone.incrementAndGet();
                    return Result.done();
                },
                1);
        for (int rep = 0; rep < 200; rep++) {
            release.set(new CountDownLatch(1));
            entered.set(new CountDownLatch(1));
            queue.add(
                    "slow", "p", id("slow" + rep).timeout(Duration.ofSeconds(1)).build());
            entered.get().await(10, java.util.concurrent.TimeUnit.SECONDS);
            queue.add("next", "p", withId("next" + rep));
            CountDownLatch letGo = release.get();
            Thread releaser = Thread.ofPlatform().start(letGo::countDown);
            clock.advance(Duration.ofSeconds(1));
            releaser.join();
            int want = rep + 1;
            eventually().until(() -> nextDone.get() == want);
        }

        assertThat(interruptedNext).isEmpty();
    }

    @Test
    void jobFinishingWithinItsTimeoutIsNotTimedOutLater() {
        JobQueue<String> queue = newQueue(JobOptions.builder().timeout(Duration.ofSeconds(1)));
        queue.add("n", "p", withId("quick"));
        Worker<String> worker = manualWorker(queue, taking(999));

        worker.runDue();
        clock.advance(Duration.ofSeconds(5));

        Job<String> job = job(queue, "quick");
        assertThat(job.state()).isEqualTo(JobState.COMPLETED);
        assertAttempts(job, attempt(1, 0, 999, Outcome.COMPLETED, null));
        assertThat(Thread.interrupted())
                .as("the test thread was not interrupted")
                .isFalse();
    }

    @Test
    void eachAttemptGetsItsOwnTimeout() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(3).timeout(Duration.ofSeconds(1)));
        queue.add("n", "p", withId("j"));
        Worker<String> worker = manualWorker(queue, ctx -> {
            clock.advance(Duration.ofMillis(700)); // under the timeout each time
            if (ctx.attempt() < 3) {
                throw new Boom("retry me");
            }
            return Result.done();
        });

        assertThat(worker.runDue()).isEqualTo(3);

        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.COMPLETED);
        assertAttempts(
                job,
                attempt(1, 0, 700, Outcome.FAILED, "retry me"),
                attempt(2, 700, 1_400, Outcome.FAILED, "retry me"),
                attempt(3, 1_400, 2_100, Outcome.COMPLETED, null));
    }

    @Test
    void timedOutAttemptIsRetriedAfterItsBackoffCountedFromTheTimeout() {
        JobQueue<String> queue = newQueue(JobOptions.builder()
                .attempts(2)
                .timeout(Duration.ofSeconds(1))
                .backoff(Backoff.fixed(Duration.ofSeconds(5))));
        queue.add("n", "p", withId("j"));
        List<JobState> stateWhenReturning = new CopyOnWriteArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            if (ctx.attempt() == 1) {
                clock.advance(Duration.ofSeconds(2)); // times out at 1 s, returns at 2 s
                Thread.interrupted();
                stateWhenReturning.add(job(queue, "j").state());
            }
            return Result.done();
        });

        assertThat(worker.runDue()).isEqualTo(1);

        assertThat(stateWhenReturning).containsExactly(JobState.DELAYED);
        Job<String> delayed = job(queue, "j");
        assertThat(delayed.state()).isEqualTo(JobState.DELAYED);
        assertThat(delayed.runAt()).isEqualTo(atMillis(6_000));
        assertThat(delayed.attemptsMade()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(4));
        assertThat(worker.runDue()).isEqualTo(1);
        assertAttempts(
                job(queue, "j"),
                attempt(1, 0, 1_000, Outcome.TIMED_OUT, "timed out"),
                attempt(2, 6_000, 6_000, Outcome.COMPLETED, null));
    }

    @Test
    void aTimedOutAttemptTellsTheBackoffItsNumberAndTheLastOneFailsTheJob() {
        List<String> asked = new CopyOnWriteArrayList<>();
        JobQueue<String> queue = newQueue(JobOptions.builder()
                .attempts(2)
                .timeout(Duration.ofSeconds(1))
                .backoff(Backoff.custom((failedAttempt, error) -> {
                    asked.add(failedAttempt + " " + error);
                    return Duration.ofSeconds(failedAttempt * 10L);
                })));
        queue.add("n", "p", withId("j"));
        Worker<String> worker = manualWorker(queue, ctx -> {
            clock.advance(Duration.ofSeconds(2)); // every attempt times out at 1 s
            Thread.interrupted();
            return Result.done();
        });

        assertThat(worker.runDue()).isEqualTo(1);
        assertThat(job(queue, "j").runAt()).as("10 s after the timeout at 1 s").isEqualTo(atMillis(11_000));
        clock.advance(Duration.ofSeconds(9));
        assertThat(worker.runDue()).isEqualTo(1);

        Job<String> failed = job(queue, "j");
        assertThat(asked).startsWith("1 null");
        assertThat(failed.state()).as("the second of two attempts timed out").isEqualTo(JobState.FAILED);
        assertThat(failed.attemptsMade()).isEqualTo(2);
        assertThat(failed.failure().reason()).contains("timed out");
    }
}
