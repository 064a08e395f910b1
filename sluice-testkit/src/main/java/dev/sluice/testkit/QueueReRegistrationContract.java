package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.RepeatableJob;
import dev.sluice.queue.Result;
import dev.sluice.queue.Schedule;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Registering a repeatable job again under its id: the same schedule and template leave it as it is and answer
 * it; another payload, job name or options replace its pending run with one of the new template.
 */
public abstract class QueueReRegistrationContract extends QueueContractSupport {
    private static final Schedule EVERY_10S = Schedule.fixedRate(Duration.ofSeconds(10));

    /** For subclasses, one per engine. */
    protected QueueReRegistrationContract() {}

    /** Registers "r" at the start, runs its first run and moves the clock 4 s, with its next run pending. */
    private JobQueue<String> registeredAndRunOnce(NewJob<String> template) {
        JobQueue<String> queue = newQueue();
        Worker<String> worker = manualWorker(queue, completing());
        queue.repeat("r", EVERY_10S, template);
        worker.runDue();
        clock.advance(Duration.ofSeconds(4));
        assertThat(pendingRuns(queue, "r")).hasSize(1);
        return queue;
    }

    @Test
    void theSameScheduleAndTemplateAnswerTheRegistrationAsItIs() {
        JobQueue<String> queue = registeredAndRunOnce(new NewJob<>("report", "p"));

        RepeatableJob<String> again = queue.repeat("r", EVERY_10S, new NewJob<>("report", "p"));

        assertThat(again).isEqualTo(queue.repeatables().get(0));
        assertThat(again.runs()).isEqualTo(2);
        assertThat(again.nextRun()).isEqualTo(atMillis(10_000));
    }

    @Test
    void anotherPayloadReplacesThePendingRun() {
        JobQueue<String> queue = registeredAndRunOnce(new NewJob<>("report", "old"));

        RepeatableJob<String> again = queue.repeat("r", EVERY_10S, new NewJob<>("report", "new"));

        assertThat(again.template().payload()).isEqualTo("new");
        assertThat(pendingRuns(queue, "r"))
                .isNotEmpty()
                .allSatisfy(run -> assertThat(run.payload()).isEqualTo("new"));
    }

    @Test
    void anotherJobNameReplacesThePendingRun() {
        JobQueue<String> queue = registeredAndRunOnce(new NewJob<>("report", "p"));

        queue.repeat("r", EVERY_10S, new NewJob<>("summary", "p"));

        assertThat(pendingRuns(queue, "r"))
                .isNotEmpty()
                .allSatisfy(run -> assertThat(run.name()).isEqualTo("summary"));
    }

    @Test
    void otherOptionsReplaceThePendingRun() {
        JobQueue<String> queue = registeredAndRunOnce(new NewJob<>("report", "p"));

        queue.repeat(
                "r",
                EVERY_10S,
                new NewJob<>("report", "p", JobOptions.builder().priority(7).build()));

        assertThat(pendingRuns(queue, "r"))
                .isNotEmpty()
                .allSatisfy(run -> assertThat(run.options().priority()).isEqualTo(7));
    }

    @Test
    void reRegisteringWhileTheFixedDelayRunIsRunningLetsItFinishAndWaitsFromItsEnd() {
        JobQueue<String> queue = newQueue();
        Schedule fixedDelay = Schedule.fixedDelay(Duration.ofSeconds(10));
        List<String> ran = new ArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.job().payload());
            if (ran.size() == 1) {
                queue.repeat("r", fixedDelay, new NewJob<>("report", "new"));
            }
            clock.advance(Duration.ofSeconds(3));
            return Result.done();
        });
        queue.repeat("r", fixedDelay, new NewJob<>("report", "old"));

        worker.runDue();

        String first = "repeat:r:" + START.toEpochMilli();
        assertThat(queue.job(first))
                .hasValueSatisfying(j -> assertThat(j.state()).isEqualTo(JobState.COMPLETED));
        assertThat(queue.counts()).isEqualTo(counts(0, 1, 0, 1, 0));
        clock.advance(Duration.ofSeconds(7)); // 10 s after the start: the running run counted as the first
        worker.runDue();
        assertThat(ran).containsExactly("old");
        clock.advance(Duration.ofSeconds(3)); // 10 s after the first run ended
        worker.runDue();
        assertThat(ran).containsExactly("old", "new");
    }
}
