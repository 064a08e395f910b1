package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.Gcra;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How a scope with a rate comes back from a pause by {@link Result#rateLimited}: at a quarter of its rate (and of its
 * burst) in the first second after the pause, half in the next, then whole, instead of releasing at once every job
 * that waited through the pause; an adaptive rate at its cut rate, climbing by its rule.
 */
public abstract class QueueRecoveryContract extends QueueContractSupport {
    /** For subclasses, one per engine. */
    protected QueueRecoveryContract() {}

    private static final Duration ONE_SECOND = Duration.ofSeconds(1);
    private static final long MS = SECOND / 1_000;

    /** 8 a second with a burst of 8: without a ramp, 8 jobs would start the instant a pause ends. */
    private static final Gcra EIGHT = Gcra.of(8, ONE_SECOND, 8);

    /** When each job started, by id. */
    private record Start(String id, long at) {}

    /** The starts of the first three seconds after a pause that ended at {@code end}, and those at {@code end}. */
    private record Ramp(int atOnce, int first, int second, int third) {
        static Ramp of(List<Start> starts, String prefix, long end) {
            int[] counts = new int[4];
            for (Start start : starts) {
                if (start.id().startsWith(prefix) && start.at() >= end) {
                    if (start.at() == end) {
                        counts[0]++;
                    }
                    long second = (start.at() - end) / SECOND;
                    if (second < 3) {
                        counts[(int) second + 1]++;
                    }
                }
            }
            return new Ramp(counts[0], counts[1], counts[2], counts[3]);
        }
    }

    /** A worker that records every start and rate-limits job {@code first} once, with {@code scope}, for 1 s. */
    private Worker<String> limitingOnce(JobQueue<String> queue, String first, Result.Scope scope, List<Start> starts) {
        boolean[] limited = {false};
        return manualWorker(queue, ctx -> {
            starts.add(new Start(ctx.job().id(), clock.nanos()));
            if (ctx.job().id().equals(first) && !limited[0]) {
                limited[0] = true;
                return Result.rateLimited(scope, ONE_SECOND);
            }
            return Result.done();
        });
    }

    /** Runs the worker at the end of the pause, then every 100 ms (off the rate's own ticks) for three seconds. */
    private void runThrough(Worker<String> worker, long end) {
        clock.advanceNanos(end - clock.nanos());
        worker.runDue();
        for (int tick = 0; tick < 30; tick++) {
            clock.advanceNanos(end + 10 * MS + tick * 100 * MS - clock.nanos());
            worker.runDue();
        }
    }

    /** The queue {@link #pausedQueue} opened. */
    private JobQueue<String> paused;

    /**
     * A worker of a queue ({@link #paused}) with {@code options} holding {@code jobs} jobs, paused by the first one's
     * rate limit; {@code starts} records them.
     */
    private Worker<String> pausedQueue(QueueOptions options, int jobs, List<Start> starts) {
        JobQueue<String> queue = newQueue(options);
        paused = queue;
        for (int i = 0; i < jobs; i++) {
            queue.add("n", "p", withId(String.format("j%02d", i)));
        }
        Worker<String> worker = limitingOnce(queue, "j00", Result.Scope.QUEUE, starts);
        worker.runDue();
        assertThat(starts).as("the first job's rate limit pauses the queue").hasSize(1);
        return worker;
    }

    /** As {@link #pausedQueue(QueueOptions, int, List)}, at {@link #EIGHT} with 60 jobs. */
    private Worker<String> pausedQueue(List<Start> starts) {
        return pausedQueue(QueueOptions.builder().rate(EIGHT).build(), 60, starts);
    }

    @Test
    void aQueuePausedByARateLimitResumesAtAQuarterOfItsRateAndRampsBackUp() {
        List<Start> starts = new ArrayList<>();
        Worker<String> worker = pausedQueue(starts);
        long end = clock.nanos() + SECOND;
        runThrough(worker, end);

        assertThat(Ramp.of(starts, "j", end))
                .as("a quarter of the burst at once, then 2 a second, 4 a second, then 8 a second with what is left of"
                        + " the burst")
                .isEqualTo(new Ramp(2, 3, 6, 12));
    }

    @Test
    void aGroupPausedByARateLimitRampsUpWhileOtherGroupsRunAtTheirWholeRate() {
        JobQueue<String> queue = newQueue(QueueOptions.builder()
                .groupDefaults(GroupLimits.builder().rate(EIGHT).build())
                .build());
        for (int i = 0; i < 30; i++) {
            queue.add("n", "p", inGroup(String.format("a%02d", i), "a"));
        }
        List<Start> starts = new ArrayList<>();
        Worker<String> worker = limitingOnce(queue, "a00", Result.Scope.GROUP, starts);
        worker.runDue();
        assertThat(starts).hasSize(1);
        for (int i = 0; i < 30; i++) {
            queue.add("n", "p", inGroup(String.format("b%02d", i), "b"));
        }
        long end = clock.nanos() + SECOND;
        runThrough(worker, end);

        assertThat(Ramp.of(starts, "a", end)).isEqualTo(new Ramp(2, 3, 6, 12));
        assertThat(Ramp.of(starts, "b", end))
                .as("group b was never paused: its burst, then 8 a second")
                .isEqualTo(new Ramp(8, 15, 8, 7));
    }

    @Test
    void anAdaptiveRateResumesAtItsCutRateWithoutARamp() {
        List<Start> starts = new ArrayList<>();
        Worker<String> worker =
                pausedQueue(QueueOptions.builder().rate(AdaptiveRate.of(EIGHT)).build(), 20, starts);
        long end = clock.nanos() + SECOND;
        clock.advanceNanos(SECOND);

        worker.runDue();

        assertThat(paused.stats().rate().perSecond()).isCloseTo(8 * 0.85, within(1e-9));
        assertThat(Ramp.of(starts, "j", end).atOnce())
                .as("the cut rate's burst (85% of 8, rounded down): the cut and the climb are its ramp")
                .isEqualTo(6);
    }

    @Test
    void aQueueWithoutARateIsNotHeldBackAfterAPause() {
        List<Start> starts = new ArrayList<>();
        Worker<String> worker = pausedQueue(QueueOptions.builder().build(), 10, starts);
        long end = clock.nanos() + SECOND;
        clock.advanceNanos(SECOND);

        worker.runDue();

        assertThat(Ramp.of(starts, "j", end).atOnce())
                .as("no rate to ramp: concurrency alone bounds the starts")
                .isEqualTo(10);
        assertThat(paused.counts()).isEqualTo(counts(0, 0, 0, 10, 0));
    }

    @Test
    void aRateChangedDuringTheRampIsRampedToo() {
        List<Start> starts = new ArrayList<>();
        Worker<String> worker = pausedQueue(starts);
        paused.setRate(Gcra.of(16, ONE_SECOND, 16));
        long end = clock.nanos() + SECOND;
        runThrough(worker, end);

        Ramp ramp = Ramp.of(starts, "j", end);
        assertThat(ramp.atOnce()).as("a quarter of the new burst of 16").isEqualTo(4);
        assertThat(ramp.first()).as("4 a second in the first second").isEqualTo(7);
        assertThat(ramp.third())
                .as("16 a second once whole, with what is left of the burst")
                .isEqualTo(23);
    }
}
