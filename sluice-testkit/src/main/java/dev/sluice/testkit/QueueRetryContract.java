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
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import dev.sluice.queue.UnrecoverableJobException;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Failures: attempts, every kind of backoff with exact delays on the manual clock, unrecoverable failures,
 * processors that return null, and the failure recorded on the job.
 */
public abstract class QueueRetryContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueRetryContract() {}

    private JobQueue<String> queueWith(JobOptions.Builder defaults) {
        return newQueue(defaults);
    }

    @Test
    void retriesAtOnceWithoutBackoffThenFails() {
        JobQueue<String> queue = queueWith(JobOptions.builder().attempts(3));
        queue.add("n", "p", withId("j"));
        AtomicInteger calls = new AtomicInteger();
        Worker<String> worker = manualWorker(queue, ctx -> {
            calls.incrementAndGet();
            throw new Boom("broken " + ctx.attempt());
        });

        assertThat(worker.runDue()).isEqualTo(3);

        assertThat(calls).hasValue(3);
        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.FAILED);
        assertThat(job.attemptsMade()).isEqualTo(3);
        assertThat(job.finishedAt()).isEqualTo(START);
        assertThat(job.failure().reason()).isEqualTo("broken 3");
        assertThat(job.attempts()).extracting(a -> a.outcome()).containsOnly(Outcome.FAILED);
        assertThat(worker.runDue()).isZero();
    }

    @Test
    void failedJobRecordsReasonExceptionClassAndStackTrace() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        manualWorker(queue, ctx -> {
                    throw new Boom("disk on fire");
                })
                .runDue();

        Job.Failure failure = job(queue, "j").failure();
        assertThat(failure).isNotNull();
        assertThat(failure.reason()).isEqualTo("disk on fire");
        assertThat(failure.exceptionClass()).isEqualTo(Boom.class.getName());
        assertThat(failure.stackTrace())
                .contains(Boom.class.getName())
                .contains("disk on fire")
                .contains(QueueRetryContract.class.getName());
    }

    @Test
    void checkedExceptionsFailTheAttemptToo() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        manualWorker(queue, ctx -> {
                    throw new java.io.IOException("connection reset");
                })
                .runDue();
        Job.Failure failure = job(queue, "j").failure();
        assertThat(failure.reason()).isEqualTo("connection reset");
        assertThat(failure.exceptionClass()).isEqualTo("java.io.IOException");
    }

    @Test
    void retriesWithFixedBackoffAtExactTimes() {
        JobQueue<String> queue =
                queueWith(JobOptions.builder().attempts(3).backoff(Backoff.fixed(Duration.ofSeconds(2))));
        queue.add("n", "p", withId("j"));
        Worker<String> worker = manualWorker(queue, ctx -> {
            clock.advance(Duration.ofMillis(100));
            throw new Boom("no " + ctx.attempt());
        });

        assertThat(worker.runDue()).isEqualTo(1);
        Job<String> delayed = job(queue, "j");
        assertThat(delayed.state()).isEqualTo(JobState.DELAYED);
        assertThat(delayed.runAt()).isEqualTo(atMillis(2_100));
        assertThat(delayed.attemptsMade()).isEqualTo(1);

        clock.advanceNanos(2 * SECOND - 1);
        assertThat(worker.runDue()).isZero();
        clock.advanceNanos(1);
        assertThat(worker.runDue()).isEqualTo(1);
        assertThat(job(queue, "j").runAt()).isEqualTo(atMillis(4_200));

        clock.advance(Duration.ofSeconds(2));
        assertThat(worker.runDue()).isEqualTo(1);
        Job<String> failed = job(queue, "j");
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.runAt()).isNull();
        assertThat(failed.finishedAt()).isEqualTo(atMillis(4_300));
        assertAttempts(
                failed,
                attempt(1, 0, 100, Outcome.FAILED, "no 1"),
                attempt(2, 2_100, 2_200, Outcome.FAILED, "no 2"),
                attempt(3, 4_200, 4_300, Outcome.FAILED, "no 3"));
    }

    @Test
    void retriesWithExponentialBackoffThenFails() {
        JobQueue<String> queue = queueWith(JobOptions.builder()
                .attempts(6)
                .backoff(Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(5))));
        queue.add("n", "p", withId("j"));
        Worker<String> worker = manualWorker(queue, throwing("flaky"));

        long[] expectedDelaysMillis = {1_000, 2_000, 4_000, 5_000, 5_000};
        long now = 0;
        for (long delay : expectedDelaysMillis) {
            assertThat(worker.runDue()).isEqualTo(1);
            Job<String> job = job(queue, "j");
            assertThat(job.state()).isEqualTo(JobState.DELAYED);
            assertThat(job.runAt()).as("retry after %d ms", delay).isEqualTo(atMillis(now + delay));
            clock.advanceNanos(delay * MS - 1);
            assertThat(stateOf(queue, "j")).isEqualTo(JobState.DELAYED);
            clock.advanceNanos(1);
            assertThat(stateOf(queue, "j")).isEqualTo(JobState.WAITING);
            now += delay;
        }
        assertThat(worker.runDue()).isEqualTo(1);

        Job<String> failed = job(queue, "j");
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.attemptsMade()).isEqualTo(6);
        assertThat(failed.finishedAt()).isEqualTo(atMillis(17_000));
        assertThat(failed.attempts())
                .extracting(a -> a.startedAt())
                .containsExactly(
                        atMillis(0),
                        atMillis(1_000),
                        atMillis(3_000),
                        atMillis(7_000),
                        atMillis(12_000),
                        atMillis(17_000));
    }

    @Test
    void retriesWithJitteredBackoffWithinTheExponentialBound() {
        JobQueue<String> queue = queueWith(JobOptions.builder()
                .attempts(9)
                .backoff(Backoff.exponentialWithJitter(Duration.ofMillis(100), Duration.ofSeconds(2))));
        List<Duration> delays = new CopyOnWriteArrayList<>();
        queue.addListener(new QueueListener<>() {
            @Override
            public void onRetrying(Job<String> job, Throwable error, Duration delay) {
                delays.add(delay);
            }
        });
        queue.add("n", "p", withId("j"));
        Worker<String> worker = manualWorker(queue, throwing("flaky"));

        for (int failedAttempt = 1; failedAttempt <= 8; failedAttempt++) {
            // a zero delay (probability about 1e-8 per retry) would run the next attempt in the same runDue
            assertThat(worker.runDue()).isEqualTo(1);
            told(queue);
            Duration delay = delays.get(failedAttempt - 1);
            long bound = Math.min(2_000, 100L << (failedAttempt - 1));
            assertThat(delay)
                    .as("jittered delay after attempt %d", failedAttempt)
                    .isBetween(Duration.ZERO, Duration.ofMillis(bound));
            Job<String> job = job(queue, "j");
            assertThat(job.state()).isEqualTo(JobState.DELAYED);
            Duration resolution = differences().timeResolution();
            assertThat(job.runAt())
                    .isBetween(
                            clock.instant().plus(delay).minus(resolution.multipliedBy(2)),
                            clock.instant().plus(delay));
            clock.advance(delay);
        }
        assertThat(worker.runDue()).isEqualTo(1);
        assertThat(stateOf(queue, "j")).isEqualTo(JobState.FAILED);
        assertThat(delays).hasSize(8);
        assertThat(delays).as("full jitter: not every delay is the bound").doesNotHaveDuplicates();
    }

    @Test
    void retriesWithACustomBackoffFunction() {
        List<Integer> askedFor = new CopyOnWriteArrayList<>();
        List<String> errors = new CopyOnWriteArrayList<>();
        Backoff custom = Backoff.custom((failedAttempt, error) -> {
            askedFor.add(failedAttempt);
            errors.add(error.getMessage());
            return Duration.ofMillis(300L * failedAttempt);
        });
        JobQueue<String> queue = queueWith(JobOptions.builder().attempts(3).backoff(custom));
        queue.add("n", "p", withId("j"));
        Worker<String> worker = manualWorker(queue, ctx -> {
            throw new Boom("e" + ctx.attempt());
        });

        worker.runDue();
        assertThat(job(queue, "j").runAt()).isEqualTo(atMillis(300));
        clock.advance(Duration.ofMillis(300));
        worker.runDue();
        assertThat(job(queue, "j").runAt()).isEqualTo(atMillis(900));
        clock.advance(Duration.ofMillis(600));
        worker.runDue();

        assertThat(stateOf(queue, "j")).isEqualTo(JobState.FAILED);
        assertThat(askedFor).containsExactly(1, 2);
        assertThat(errors).containsExactly("e1", "e2");
    }

    @Test
    void customBackoffReturningNullFailsTheJobWithAClearReason() {
        JobQueue<String> queue =
                queueWith(JobOptions.builder().attempts(5).backoff(Backoff.custom((attempt, error) -> null)));
        queue.add("n", "p", withId("j"));
        Worker<String> worker = manualWorker(queue, throwing("first failure"));

        assertThat(worker.runDue()).isEqualTo(1);

        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.FAILED);
        assertThat(job.attemptsMade()).isEqualTo(1);
        assertThat(job.failure().reason()).containsIgnoringCase("backoff").contains("null");
    }

    @Test
    void customBackoffReturningANegativeDelayFailsTheJobWithAClearReason() {
        JobQueue<String> queue = queueWith(
                JobOptions.builder().attempts(5).backoff(Backoff.custom((attempt, error) -> Duration.ofSeconds(-3))));
        queue.add("n", "p", withId("j"));
        Worker<String> worker = manualWorker(queue, throwing("first failure"));

        assertThat(worker.runDue()).isEqualTo(1);

        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.FAILED);
        assertThat(job.failure().reason())
                .contains("backoff")
                .contains("returned -3 s for attempt 1")
                .contains("a backoff must return zero or a positive duration");
    }

    @Test
    void customBackoffThatThrowsFailsTheJob() {
        JobQueue<String> queue = queueWith(JobOptions.builder().attempts(5).backoff(Backoff.custom((attempt, error) -> {
            throw new IllegalStateException("backoff exploded");
        })));
        queue.add("n", "p", withId("j"));
        manualWorker(queue, throwing("first failure")).runDue();

        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.FAILED);
        assertThat(job.failure().reason()).containsIgnoringCase("backoff");
    }

    @Test
    void aBackoffAskedAfterATimeoutRunsOutsideTheQueuesLock() {
        // pins issue 9: after a timeout the backoff ran under the lock, so it could not read the queue from another
        // thread
        AtomicReference<JobQueue<String>> queueRef = new AtomicReference<>();
        List<Long> waitingSeenByBackoff = new CopyOnWriteArrayList<>();
        Backoff readsTheQueue = Backoff.custom((failedAttempt, error) -> {
            try {
                waitingSeenByBackoff.add(CompletableFuture.supplyAsync(
                                () -> queueRef.get().counts().waiting())
                        .get(5, TimeUnit.SECONDS));
            } catch (Exception e) {
                throw new IllegalStateException("the queue could not be read from another thread", e);
            }
            return Duration.ofSeconds(10);
        });
        JobQueue<String> queue = queueWith(
                JobOptions.builder().attempts(2).timeout(Duration.ofSeconds(1)).backoff(readsTheQueue));
        queueRef.set(queue);
        queue.add("n", "p", withId("j"));
        queue.add("n", "p", withId("other"));
        Worker<String> worker = manualWorker(queue, ctx -> {
            if (ctx.job().id().equals("j")) {
                clock.advance(Duration.ofSeconds(2));
            }
            return Result.done();
        });

        worker.runDue();

        assertThat(waitingSeenByBackoff).containsExactly(1L);
        assertThat(stateOf(queue, "j")).isEqualTo(JobState.DELAYED);
        assertThat(job(queue, "j").runAt()).isEqualTo(atMillis(11_000));
    }

    @Test
    void aCustomBackoffLongerThanTheClockCanCountDelaysTheJobForGood() {
        Backoff forAges = Backoff.custom((failedAttempt, error) -> Duration.ofDays(365L * 1_000_000));
        JobQueue<String> queue = queueWith(JobOptions.builder().attempts(2).backoff(forAges));
        queue.add("n", "p", withId("j"));
        Worker<String> worker = manualWorker(queue, throwing("no"));

        assertThat(worker.runDue()).isEqualTo(1);

        assertThat(stateOf(queue, "j")).isEqualTo(JobState.DELAYED);
        assertThat(queue.counts()).isEqualTo(counts(0, 1, 0, 0, 0));
        clock.advance(Duration.ofDays(365L * 10));
        assertThat(worker.runDue()).isZero();
    }

    @Test
    void unrecoverableExceptionFailsAtOnceWhateverAttemptsRemain() {
        JobQueue<String> queue = queueWith(JobOptions.builder().attempts(10).backoff(Backoff.none()));
        Events events = new Events();
        queue.addListener(events);
        queue.add("n", "p", withId("j"));
        AtomicInteger calls = new AtomicInteger();
        Worker<String> worker = manualWorker(queue, ctx -> {
            calls.incrementAndGet();
            throw new UnrecoverableJobException("bad input: no email address");
        });

        assertThat(worker.runDue()).isEqualTo(1);

        assertThat(calls).hasValue(1);
        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.FAILED);
        assertThat(job.attemptsMade()).isEqualTo(1);
        assertThat(job.failure().reason()).isEqualTo("bad input: no email address");
        assertThat(job.failure().exceptionClass()).isEqualTo(UnrecoverableJobException.class.getName());
        told(queue);
        assertThat(events.log).noneMatch(e -> e.startsWith("retrying"));
        assertThat(events.log).contains("failed j");
    }

    @Test
    void processorReturningNullFailsTheJobAtOnceWithAClearReason() {
        JobQueue<String> queue = queueWith(JobOptions.builder().attempts(3));
        Events events = new Events();
        queue.addListener(events);
        queue.add("n", "p", withId("j"));
        AtomicInteger calls = new AtomicInteger();
        Worker<String> worker = manualWorker(queue, ctx -> {
            calls.incrementAndGet();
            return null;
        });

        assertThat(worker.runDue()).isEqualTo(1);
        assertThat(worker.runDue()).as("nothing is left to retry").isZero();

        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.FAILED);
        assertThat(job.attemptsMade()).isEqualTo(1);
        assertThat(job.failure().reason())
                .contains("returned null")
                .contains("without a retry")
                .contains("Result.done()");
        assertThat(job.attempts()).extracting(a -> a.outcome()).containsExactly(Outcome.FAILED);
        assertThat(calls).hasValue(1);
        told(queue);
        assertThat(events.log).noneMatch(e -> e.startsWith("retrying"));
        assertThat(events.log).contains("failed j");
    }

    @Test
    void aRetriedJobQueuesBehindJobsThatBecameReadyBeforeIt() {
        JobQueue<String> queue = queueWith(JobOptions.builder().attempts(2));
        queue.add("n", "p", withId("flaky"));
        queue.add("n", "p", withId("steady1"));
        queue.add("n", "p", withId("steady2"));
        List<String> ran = new ArrayList<>();
        AtomicBoolean failedOnce = new AtomicBoolean();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            if (ctx.job().id().equals("flaky") && failedOnce.compareAndSet(false, true)) {
                throw new Boom("once");
            }
            return Result.done();
        });

        assertThat(worker.runDue()).isEqualTo(4);

        assertThat(ran).containsExactly("flaky", "steady1", "steady2", "flaky");
    }

    @Test
    void aJobThatSucceedsOnALaterAttemptCompletes() {
        JobQueue<String> queue =
                queueWith(JobOptions.builder().attempts(4).backoff(Backoff.fixed(Duration.ofSeconds(1))));
        queue.add("n", "p", withId("j"));
        Worker<String> worker = manualWorker(queue, ctx -> {
            if (ctx.attempt() < 3) {
                throw new Boom("not yet");
            }
            return Result.done("third time");
        });

        worker.runDue();
        clock.advance(Duration.ofSeconds(1));
        worker.runDue();
        clock.advance(Duration.ofSeconds(1));
        worker.runDue();

        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.COMPLETED);
        assertThat(job.attemptsMade()).isEqualTo(3);
        assertThat(job.result()).isEqualTo("third time");
        assertThat(job.failure()).isNull();
        assertThat(job.attempts())
                .extracting(a -> a.outcome())
                .containsExactly(Outcome.FAILED, Outcome.FAILED, Outcome.COMPLETED);
    }
}
