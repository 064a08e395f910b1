package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.Added;
import dev.sluice.queue.Backoff;
import dev.sluice.queue.Codec;
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
 * Every boundary in time is decided once, the same on every engine: at the exact instant {@code t} where a state
 * ends, the new state holds (a window ending at {@code t} no longer holds at {@code t}; something due at {@code t}
 * is due at {@code t}). Each test looks one nanosecond before and at the instant.
 */
public abstract class QueueTimeBoundaryContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueTimeBoundaryContract() {}

    @Test
    void aDeduplicationWindowEndingAtTAcceptsTheIdAtT() {
        JobQueue<String> queue = newQueue(JobOptions.builder().keepCompleted(Retention.keepNone()));
        JobOptions options = id("x").deduplicateFor(Duration.ofSeconds(10)).build();
        queue.add("n", "p", options);
        manualWorker(queue, taking(1_000)).runDue(); // finished at 1 s: the window ends at 11 s

        clock.advanceNanos(10 * SECOND - 1);
        assertThat(queue.add("n", "p", options).duplicate()).isTrue();
        clock.advanceNanos(1);
        Added<String> atT = queue.add("n", "p", options);

        assertThat(atT.duplicate()).isFalse();
        assertThat(atT.job().createdAt()).isEqualTo(atMillis(11_000));
    }

    @Test
    void aJobKeptForAnAgeIsRemovedWhenItReachesThatAge() {
        JobQueue<String> queue =
                newQueue(JobOptions.builder().keepCompleted(Retention.keepFor(Duration.ofSeconds(10))));
        queue.add("n", "p", withId("j"));
        manualWorker(queue, taking(1_000)).runDue(); // finished at 1 s

        clock.advanceNanos(10 * SECOND - 1);
        assertThat(stateOf(queue, "j")).isEqualTo(JobState.COMPLETED);
        clock.advanceNanos(1);

        assertThat(queue.job("j")).isEmpty();
        assertThat(queue.counts().completed()).isZero();
    }

    @Test
    void cleanRemovesAJobExactlyAsOldAsTheAgeGiven() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        manualWorker(queue, completing()).runDue(); // finished at 0

        clock.advanceNanos(10 * SECOND - 1);
        assertThat(queue.clean(JobState.COMPLETED, Duration.ofSeconds(10))).isZero();
        clock.advanceNanos(1);

        assertThat(queue.clean(JobState.COMPLETED, Duration.ofSeconds(10))).isEqualTo(1);
    }

    @Test
    void aDelayedJobDueAtTIsReadyAtT() {
        JobQueue<String> queue = newQueue();
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));
        queue.add("n", "p", id("j").delay(Duration.ofSeconds(5)).build());

        clock.advanceNanos(5 * SECOND - 1);
        assertThat(worker.runDue()).isZero();
        assertThat(stateOf(queue, "j")).isEqualTo(JobState.DELAYED);
        clock.advanceNanos(1);

        assertThat(stateOf(queue, "j")).isEqualTo(JobState.WAITING);
        assertThat(worker.runDue()).isEqualTo(1);
        assertThat(job(queue, "j").startedAt()).isEqualTo(atMillis(5_000));
    }

    @Test
    void aRetryDueAtTIsReadyAtT() {
        JobQueue<String> queue =
                newQueue(JobOptions.builder().attempts(2).backoff(Backoff.fixed(Duration.ofSeconds(3))));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().id());
            if (ctx.attempt() == 1) {
                throw new Boom("once");
            }
            return Result.done();
        });
        queue.add("n", "p", withId("j"));
        worker.runDue();

        clock.advanceNanos(3 * SECOND - 1);
        assertThat(worker.runDue()).isZero();
        clock.advanceNanos(1);

        assertThat(worker.runDue()).isEqualTo(1);
        assertThat(stateOf(queue, "j")).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void groupAndQueuePausesEndingAtTLetJobsStartAtT() {
        for (Result.Scope scope : Result.Scope.values()) {
            JobQueue<String> queue = engine.queue("paused-" + scope, Codec.utf8());
            List<String> ran = new ArrayList<>();
            long pausedAt = clock.nanos();
            Worker<String> worker = manualWorker(queue, ctx -> {
                ran.add(ctx.job().id());
                return ctx.job().rateLimits() == 0 ? Result.rateLimited(scope, Duration.ofSeconds(2)) : Result.done();
            });
            queue.add("n", "p", inGroup("j", "g"));
            worker.runDue();

            clock.advanceNanos(pausedAt + 2 * SECOND - 1 - clock.nanos());
            assertThat(worker.runDue())
                    .as("%s pause, 1 ns before it ends", scope)
                    .isZero();
            clock.advanceNanos(1);

            assertThat(worker.runDue()).as("%s pause, at its end", scope).isEqualTo(1);
            assertThat(ran).containsExactly("j", "j");
        }
    }
}
