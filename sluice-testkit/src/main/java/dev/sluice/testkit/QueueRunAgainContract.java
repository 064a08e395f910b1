package dev.sluice.testkit;

import static dev.sluice.testkit.JobAssertions.assertAttempts;
import static dev.sluice.testkit.JobAssertions.attempt;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.Job.Attempt.Outcome;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Schedule;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@link Result#runAgainAfter}: a processor that asks to run its job again later (BullMQ's move-to-delayed).
 * The job goes to DELAYED and runs again once the delay has passed; the attempt is RESCHEDULED, uses none of
 * the job's attempts, is no failure, counts no rate limit and pauses neither its group nor the queue.
 */
public abstract class QueueRunAgainContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueRunAgainContract() {}

    /** Asks to run again after {@code delay} the first {@code times} times each job runs, then completes. */
    private Worker<String> runningAgain(JobQueue<String> queue, List<String> ran, int times, Duration delay) {
        Map<String, Integer> calls = new HashMap<>();
        return manualWorker(queue, ctx -> {
            String id = ctx.job().id();
            ran.add(id);
            if (calls.merge(id, 1, Integer::sum) <= times) {
                return Result.runAgainAfter(delay);
            }
            return Result.done("ready");
        });
    }

    @Test
    void aJobRunsAgainAfterTheDelayWithoutUsingAnAttempt() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(1));
        queue.add("n", "p", withId("j"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = runningAgain(queue, ran, 2, Duration.ofSeconds(30));

        worker.runDue();

        Job<String> delayed = job(queue, "j");
        assertThat(delayed.state()).isEqualTo(JobState.DELAYED);
        assertThat(delayed.runAt()).isEqualTo(START.plusSeconds(30));
        assertThat(delayed.attemptsMade()).isZero();
        assertThat(delayed.rateLimits()).isZero();
        assertThat(delayed.failure()).isNull();
        assertThat(queue.counts()).isEqualTo(counts(0, 1, 0, 0, 0));

        clock.advanceNanos(30 * SECOND - 1);
        worker.runDue();
        assertThat(ran).containsExactly("j");
        clock.advanceNanos(1);
        worker.runDue();
        clock.advance(Duration.ofSeconds(30));
        worker.runDue();

        Job<String> done = job(queue, "j");
        assertThat(ran).containsExactly("j", "j", "j");
        assertThat(done.state())
                .as("one attempt allowed, and used only by the run that completed")
                .isEqualTo(JobState.COMPLETED);
        assertThat(done.attemptsMade()).isEqualTo(1);
        assertThat(done.result()).isEqualTo("ready");
        assertAttempts(
                done,
                attempt(1, 0, 0, Outcome.RESCHEDULED, null),
                attempt(2, 30_000, 30_000, Outcome.RESCHEDULED, null),
                attempt(3, 60_000, 60_000, Outcome.COMPLETED, null));
        assertThat(queue.stats().failed()).isZero();
    }

    @Test
    void runningAgainPausesNeitherTheGroupNorTheQueue() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", inGroup("a2", "a"));
        queue.add("n", "p", inGroup("b1", "b"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            return ctx.job().id().equals("a1") && ctx.attempt() == 1
                    ? Result.runAgainAfter(Duration.ofMinutes(1))
                    : Result.done();
        });

        worker.runDue();

        assertThat(ran).containsExactly("a1", "b1", "a2");
        assertThat(queue.counts()).isEqualTo(counts(0, 1, 0, 2, 0));
    }

    @Test
    void aRescheduledJobTakesNoConcurrencySlotWhileDelayed() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .groupDefaults(GroupLimits.builder().concurrency(1).build())
                .build());
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", inGroup("a2", "a"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = runningAgain(queue, ran, 1, Duration.ofSeconds(5));

        worker.runDue();

        assertThat(ran).as("a1 waits delayed, not holding the group's one slot").containsExactly("a1", "a2");
        assertThat(stateOf(queue, "a1")).isEqualTo(JobState.DELAYED);
        assertThat(stateOf(queue, "a2")).isEqualTo(JobState.DELAYED);
    }

    @Test
    void runningAgainAfterNoDelayQueuesTheJobBehindTheReadyJobsOfItsGroup() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j1"));
        queue.add("n", "p", withId("j2"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = runningAgain(queue, ran, 1, Duration.ZERO);

        worker.runDue();

        assertThat(ran).containsExactly("j1", "j2", "j1", "j2");
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 2, 0));
    }

    @Test
    void aJobMayRunAgainMoreTimesThanItHasAttemptsAndRateLimits() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(1).maxRateLimits(1));
        queue.add("n", "p", withId("j"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = runningAgain(queue, ran, 5, Duration.ofSeconds(1));

        for (int i = 0; i < 6; i++) {
            worker.runDue();
            clock.advance(Duration.ofSeconds(1));
        }

        assertThat(ran).hasSize(6);
        assertThat(job(queue, "j").state()).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void theListenerHearsTheRescheduleAfterTheChange() {
        JobQueue<String> queue = newQueue();
        List<String> log = new CopyOnWriteArrayList<>();
        queue.addListener(new QueueListener<>() {
            @Override
            public void onRescheduled(Job<String> job, Duration delay) {
                log.add("rescheduled " + job.id() + " " + job.state() + " " + delay.toSeconds());
            }
        });
        queue.add("n", "p", withId("j"));
        runningAgain(queue, new ArrayList<>(), 1, Duration.ofSeconds(7)).runDue();

        told(queue);
        assertThat(log).containsExactly("rescheduled j DELAYED 7");
    }

    @Test
    void aRescheduledJobThatTimedOutMeanwhileIsNotMovedAgain() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(1).timeout(Duration.ofSeconds(1)));
        queue.add("n", "p", withId("j"));
        manualWorker(queue, ctx -> {
                    clock.advance(Duration.ofSeconds(2));
                    return Result.runAgainAfter(Duration.ofSeconds(10));
                })
                .runDue();

        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.FAILED);
        assertThat(job.attempts()).extracting(Job.Attempt::outcome).containsExactly(Outcome.TIMED_OUT);
    }

    @Test
    void aFixedRateRunThatRunsAgainNeitherAddsNorSkipsARun() {
        assertThat(runsWhenTheFirstRunsAgainAfter30s(Schedule.fixedRate(Duration.ofMinutes(1))))
                .containsExactly("0@0", "0@30", "60@60", "120@120");
    }

    @Test
    void aFixedDelayRunThatRunsAgainPlansTheNextRunFromWhenItCompletes() {
        assertThat(runsWhenTheFirstRunsAgainAfter30s(Schedule.fixedDelay(Duration.ofMinutes(1))))
                .containsExactly("0@0", "0@30", "90@90", "150@150");
    }

    /**
     * Runs the repeatable job for 150 s, its first run asking to run again after 30 s; returns each run as
     * "scheduled second@ran second", and checks that one next run is pending at the end.
     */
    private List<String> runsWhenTheFirstRunsAgainAfter30s(Schedule schedule) {
        JobQueue<String> queue = newQueue();
        queue.repeat("poll", schedule, new NewJob<>("poll", "p"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            long scheduled = Long.parseLong(ctx.job().id().substring("repeat:poll:".length()));
            ran.add((scheduled - START.toEpochMilli()) / 1_000 + "@" + (clock.nanos() - T0) / SECOND);
            return ran.size() == 1 ? Result.runAgainAfter(Duration.ofSeconds(30)) : Result.done();
        });

        for (int second = 0; second <= 150; second += 10) {
            worker.runDue();
            clock.advance(Duration.ofSeconds(10));
        }

        assertThat(queue.counts().waiting() + queue.counts().delayed())
                .as("one next run")
                .isEqualTo(1);
        return ran;
    }

    @Test
    void runAgainAfterRefusesABadDelay() {
        assertRejected(() -> Result.runAgainAfter(null), "runAgainAfter");
        assertRejected(() -> Result.runAgainAfter(Duration.ofSeconds(-1)), "runAgainAfter", "-1");
    }

    @Test
    void aJobThatRunsAgainManyTimesKeepsItsFirstAndLatestAttemptsOnly() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        int runs = Job.MAX_ATTEMPTS_RECORDED + 50;
        List<String> ran = new ArrayList<>();
        Worker<String> worker = runningAgain(queue, ran, runs - 1, Duration.ofSeconds(1));

        for (int i = 0; i < runs; i++) {
            worker.runDue();
            clock.advance(Duration.ofSeconds(1));
        }

        Job<String> done = job(queue, "j");
        assertThat(ran).hasSize(runs);
        assertThat(done.state()).isEqualTo(JobState.COMPLETED);
        List<Job.Attempt> attempts = done.attempts();
        assertThat(attempts).hasSize(Job.MAX_ATTEMPTS_RECORDED);
        assertThat(attempts.get(0).number()).isEqualTo(1);
        assertThat(attempts.get(0).startedAt()).isEqualTo(START);
        assertThat(attempts.get(1).number()).isEqualTo(runs - Job.MAX_ATTEMPTS_RECORDED + 2);
        assertThat(attempts.get(1).startedAt()).isEqualTo(START.plusSeconds(runs - Job.MAX_ATTEMPTS_RECORDED + 1));
        assertThat(attempts.get(attempts.size() - 1).number()).isEqualTo(runs);
        assertThat(attempts.get(attempts.size() - 1).outcome()).isEqualTo(Outcome.COMPLETED);
        assertThat(attempts.subList(1, attempts.size() - 1))
                .extracting(Job.Attempt::outcome)
                .containsOnly(Outcome.RESCHEDULED);
    }
}
