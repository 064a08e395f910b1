package dev.sluice.testkit;

import static dev.sluice.testkit.JobAssertions.assertAttempts;
import static dev.sluice.testkit.JobAssertions.attempt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Job;
import dev.sluice.queue.Job.Attempt.Outcome;
import dev.sluice.queue.JobNotFoundException;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code retry(id, state)}: a finished job, completed as well as failed, runs again with fresh attempts,
 * keeping its id, options and history; the caller names the state the job is in, so a completed job is never
 * re-run by a retry meant for a failed one.
 */
public abstract class QueueRetryFinishedContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueRetryFinishedContract() {}

    @Test
    void aCompletedJobRunsAgainWithFreshAttemptsAndKeepsItsHistory() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(2));
        queue.add("n", "p", withId("j"));
        int[] runs = {0};
        Worker<String> worker = manualWorker(queue, ctx -> {
            clock.advance(Duration.ofSeconds(1));
            return Result.done("run " + ++runs[0]);
        });
        worker.runDue();
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 1, 0));

        queue.retry("j", JobState.COMPLETED);

        Job<String> back = job(queue, "j");
        assertThat(back.state()).isEqualTo(JobState.WAITING);
        assertThat(back.attemptsMade()).isZero();
        assertThat(back.result()).as("the old result is cleared").isNull();
        assertThat(back.finishedAt()).isNull();
        assertThat(back.attempts()).hasSize(1);
        assertThat(queue.counts()).isEqualTo(counts(1, 0, 0, 0, 0));

        worker.runDue();

        Job<String> done = job(queue, "j");
        assertThat(done.state()).isEqualTo(JobState.COMPLETED);
        assertThat(done.result()).isEqualTo("run 2");
        assertThat(done.attemptsMade()).isEqualTo(1);
        assertAttempts(
                done, attempt(1, 0, 1_000, Outcome.COMPLETED, null), attempt(2, 1_000, 2_000, Outcome.COMPLETED, null));
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 1, 0));
        assertThat(queue.stats().completed())
                .as("completions counted, not jobs")
                .isEqualTo(2);
    }

    @Test
    void aFailedJobIsRetriedByNamingItsState() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        boolean[] healthy = {false};
        Worker<String> worker = manualWorker(queue, ctx -> {
            if (!healthy[0]) {
                throw new Boom("down");
            }
            return Result.done();
        });
        worker.runDue();

        queue.retry("j", JobState.FAILED);
        healthy[0] = true;
        worker.runDue();

        assertThat(stateOf(queue, "j")).isEqualTo(JobState.COMPLETED);
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 1, 0));
    }

    @Test
    void aRetryMustNameTheStateTheJobIsIn() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("ok"));
        queue.add("fail", "p", withId("bad"));
        queue.add("n", "p", id("waiting").delay(Duration.ofHours(1)).build());
        manualWorker(queue, ctx -> {
                    if (ctx.job().name().equals("fail")) {
                        throw new Boom("no");
                    }
                    return Result.done();
                })
                .runDue();

        assertThatThrownBy(() -> queue.retry("ok"))
                .as("retry(id) retries failed jobs only")
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("COMPLETED")
                .hasMessageContaining("FAILED");
        assertThatThrownBy(() -> queue.retry("bad", JobState.COMPLETED))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'bad'")
                .hasMessageContaining("is FAILED");
        assertThatThrownBy(() -> queue.retry("waiting", JobState.COMPLETED))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("DELAYED");
        assertThat(queue.counts()).isEqualTo(counts(0, 1, 0, 1, 1));
    }

    @Test
    void aRetryFromAStateThatIsNotFinishedIsRefused() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        for (JobState state : List.of(JobState.WAITING, JobState.DELAYED, JobState.ACTIVE)) {
            assertRejected(() -> queue.retry("j", state), "FAILED", "COMPLETED", state.name());
        }
        assertRejected(() -> queue.retry("j", null), "FAILED", "COMPLETED", "null");
        assertRejected(() -> queue.retry(null, JobState.COMPLETED), "id");
        assertThat(stateOf(queue, "j")).isEqualTo(JobState.WAITING);
    }

    @Test
    void aCompletedJobThatItsRetentionRemovedCannotBeRetried() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepNone()));
        queue.add("n", "p", withId("j"));
        manualWorker(queue, completing()).runDue();

        assertThatThrownBy(() -> queue.retry("j", JobState.COMPLETED))
                .isInstanceOf(JobNotFoundException.class)
                .hasMessageContaining("'j'");
    }

    @Test
    void aRetriedCompletedJobLeavesTheCompletedListAndComesBackToItWhenItCompletesAgain() {
        JobQueue<String> queue = newQueue();
        for (String id : List.of("c1", "c2", "c3")) {
            queue.add("n", "p", withId(id));
        }
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            clock.advance(Duration.ofSeconds(1));
            ran.add(ctx.job().id());
            return Result.done();
        });
        worker.runDue();

        queue.retry("c1", JobState.COMPLETED);
        assertThat(ids(queue.jobs(JobState.COMPLETED, 0, 10))).containsExactly("c3", "c2");
        worker.runDue();

        assertThat(ran).containsExactly("c1", "c2", "c3", "c1");
        assertThat(ids(queue.jobs(JobState.COMPLETED, 0, 10))).containsExactly("c1", "c3", "c2");
        assertThat(queue.stats((String) null).counts()).isEqualTo(counts(0, 0, 0, 3, 0));
    }

    @Test
    void aRetriedCompletedJobIsCountedOnceAgainstRetention() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepLast(2)));
        queue.add("n", "p", withId("a"));
        queue.add("n", "p", withId("b"));
        Worker<String> worker = manualWorker(queue, taking(1_000));
        worker.runDue();

        queue.retry("a", JobState.COMPLETED);
        worker.runDue();

        assertThat(ids(queue.jobs(JobState.COMPLETED, 0, 10))).containsExactly("a", "b");
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 2, 0));
    }
}
