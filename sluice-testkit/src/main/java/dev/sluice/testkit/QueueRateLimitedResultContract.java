package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.Job;
import dev.sluice.queue.Job.Attempt.Outcome;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A processor that reports {@link Result#rateLimited}: the job goes back to waiting at the head of its group
 * without using an attempt, and the group (or the whole queue) pauses for the time given.
 */
public abstract class QueueRateLimitedResultContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueRateLimitedResultContract() {}

    /** Rate-limits each job whose id starts with {@code prefix} once, with {@code scope} and {@code pause}. */
    private Worker<String> rateLimitingOnce(
            JobQueue<String> queue, List<String> ran, String prefix, Result.Scope scope, Duration pause) {
        Set<String> limited = new HashSet<>();
        return manualWorker(queue, ctx -> {
            String id = ctx.job().id();
            ran.add(id);
            if (id.startsWith(prefix) && limited.add(id)) {
                return Result.rateLimited(scope, pause);
            }
            return Result.done();
        });
    }

    @Test
    void groupRateLimitPausesOnlyThatGroupAndUsesNoAttempt() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", inGroup("a2", "a"));
        queue.add("n", "p", inGroup("b1", "b"));
        queue.add("n", "p", inGroup("b2", "b"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = rateLimitingOnce(queue, ran, "a1", Result.Scope.GROUP, Duration.ofSeconds(10));

        worker.runDue();

        assertThat(ran).containsExactly("a1", "b1", "b2");
        Job<String> limited = job(queue, "a1");
        assertThat(limited.state()).isEqualTo(JobState.WAITING);
        assertThat(limited.attemptsMade()).isZero();
        assertThat(limited.rateLimits()).isEqualTo(1);
        assertThat(limited.attempts()).hasSize(1);
        assertThat(limited.attempts().get(0).outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(limited.attempts().get(0).error()).isEqualTo("rate limited (GROUP) for 10 s");
        assertThat(limited.attempts().get(0).startedAt()).isEqualTo(START);
        assertThat(limited.attempts().get(0).finishedAt()).isEqualTo(START);
        assertThat(queue.counts()).isEqualTo(counts(2, 0, 0, 2, 0));

        clock.advanceNanos(10 * SECOND - 1);
        worker.runDue();
        assertThat(ran).containsExactly("a1", "b1", "b2");

        clock.advanceNanos(1);
        worker.runDue();
        assertThat(ran).containsExactly("a1", "b1", "b2", "a1", "a2");
        Job<String> done = job(queue, "a1");
        assertThat(done.state()).isEqualTo(JobState.COMPLETED);
        assertThat(done.attemptsMade()).isEqualTo(1);
        assertThat(done.rateLimits()).isEqualTo(1);
        assertThat(done.attempts())
                .extracting(Job.Attempt::outcome)
                .containsExactly(Outcome.RATE_LIMITED, Outcome.COMPLETED);
    }

    @Test
    void groupRateLimitLetsNewJobsOfOtherGroupsRunDuringThePause() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", inGroup("a1", "a"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = rateLimitingOnce(queue, ran, "a", Result.Scope.GROUP, Duration.ofMinutes(1));
        worker.runDue();

        clock.advance(Duration.ofSeconds(10));
        queue.add("n", "p", inGroup("a2", "a"));
        queue.add("n", "p", inGroup("c1", "c"));
        worker.runDue();

        assertThat(ran).containsExactly("a1", "c1");
        assertThat(stateOf(queue, "a2")).isEqualTo(JobState.WAITING);
    }

    @Test
    void ungroupedRateLimitPausesOnlyTheUngroupedJobs() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("u1"));
        queue.add("n", "p", withId("u2"));
        queue.add("n", "p", inGroup("g1", "g"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = rateLimitingOnce(queue, ran, "u1", Result.Scope.GROUP, Duration.ofSeconds(3));

        worker.runDue();
        assertThat(ran).containsExactly("u1", "g1");

        clock.advance(Duration.ofSeconds(3));
        worker.runDue();
        assertThat(ran).containsExactly("u1", "g1", "u1", "u2");
    }

    @Test
    void queueRateLimitPausesEveryGroup() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", inGroup("a1", "a"));
        queue.add("n", "p", inGroup("b1", "b"));
        queue.add("n", "p", withId("u1"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = rateLimitingOnce(queue, ran, "a1", Result.Scope.QUEUE, Duration.ofSeconds(5));

        worker.runDue();
        assertThat(ran).containsExactly("a1");
        assertThat(job(queue, "a1").rateLimits()).isEqualTo(1);

        clock.advanceNanos(5 * SECOND - 1);
        queue.add("n", "p", inGroup("c1", "c"));
        worker.runDue();
        assertThat(ran)
                .as("nothing starts during a queue pause, not even new groups")
                .containsExactly("a1");

        clock.advanceNanos(1);
        worker.runDue();
        assertThat(ran).hasSize(5);
        assertThat(ran.subList(1, 5)).containsExactlyInAnyOrder("a1", "b1", "u1", "c1");
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 4, 0));
    }

    @Test
    void rateLimitedJobGoesBackAheadOfJobsOfEqualPriorityOnly() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", inGroup("first", "a"));
        queue.add("n", "p", inGroup("second", "a"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = rateLimitingOnce(queue, ran, "first", Result.Scope.GROUP, Duration.ofSeconds(1));
        worker.runDue();
        queue.add("n", "p", id("urgent").group("a").priority(1).build());
        queue.add("n", "p", inGroup("third", "a"));

        assertThat(ids(queue.jobs(JobState.WAITING, 0, 10))).containsExactly("urgent", "first", "second", "third");
        clock.advance(Duration.ofSeconds(1));
        worker.runDue();

        assertThat(ran).containsExactly("first", "urgent", "first", "second", "third");
    }

    @Test
    void maxRateLimitsBoundFailsTheJob() {
        JobQueue<String> queue = newQueue(JobOptions.builder().maxRateLimits(2).attempts(5));
        queue.add("n", "p", inGroup("j", "g"));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            return Result.rateLimited(Result.Scope.GROUP, Duration.ofSeconds(1));
        });

        worker.runDue();
        assertThat(job(queue, "j").rateLimits()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(1));
        worker.runDue();
        assertThat(job(queue, "j").rateLimits()).isEqualTo(2);
        assertThat(stateOf(queue, "j")).isEqualTo(JobState.WAITING);
        clock.advance(Duration.ofSeconds(1));
        worker.runDue();

        assertThat(ran).hasSize(3);
        Job<String> failed = job(queue, "j");
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.rateLimits()).isEqualTo(2);
        assertThat(failed.attemptsMade()).isZero();
        assertThat(failed.finishedAt()).isEqualTo(atMillis(2_000));
        assertThat(failed.failure().reason()).contains("rate limited");
        clock.advance(Duration.ofSeconds(5));
        assertThat(worker.runDue()).isZero();
    }

    @Test
    void maxRateLimitsZeroFailsOnTheFirstRateLimit() {
        JobQueue<String> queue = newQueue(JobOptions.builder().maxRateLimits(0));
        queue.add("n", "p", withId("j"));
        manualWorker(queue, ctx -> Result.rateLimited(Result.Scope.QUEUE, Duration.ofSeconds(1)))
                .runDue();
        Job<String> failed = job(queue, "j");
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failure().reason()).contains("rate limited");
        assertThat(failed.rateLimits()).isZero();
    }

    @Test
    void rateLimitedReturnsDoNotUseUpAttempts() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(1));
        queue.add("n", "p", inGroup("j", "g"));
        int[] calls = {0};
        Worker<String> worker = manualWorker(queue, ctx -> {
            calls[0]++;
            return calls[0] <= 3 ? Result.rateLimited(Result.Scope.GROUP, Duration.ofMillis(100)) : Result.done();
        });
        for (int i = 0; i < 4; i++) {
            worker.runDue();
            clock.advance(Duration.ofMillis(100));
        }
        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.COMPLETED);
        assertThat(job.attemptsMade()).isEqualTo(1);
        assertThat(job.rateLimits()).isEqualTo(3);
    }

    @Test
    void groupsPausedUntilDifferentTimesComeBackInTheOrderOfTheirTimes() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            Job<String> job = ctx.job();
            ran.add(job.id());
            if (job.rateLimits() > 0) {
                return Result.done();
            }
            long seconds = switch (job.group()) {
                case "a" -> 3;
                case "b" -> 1;
                case "c" -> 4;
                default -> 2;
            };
            return Result.rateLimited(Result.Scope.GROUP, Duration.ofSeconds(seconds));
        });
        for (String group : List.of("a", "b", "c", "d")) {
            queue.add("n", "p", inGroup(group + "1", group));
        }
        worker.runDue();
        ran.clear();

        for (int second = 1; second <= 4; second++) {
            advanceMillis(1_000);
            worker.runDue();
        }

        assertThat(ran).containsExactly("b1", "d1", "a1", "c1");
    }
}
