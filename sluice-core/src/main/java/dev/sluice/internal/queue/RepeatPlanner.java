package dev.sluice.internal.queue;

import dev.sluice.queue.Schedule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Plans a repeatable job's runs, as functions of the schedule and the time: run ids, the first run, the run after
 * one that came due, finished or was removed, and the catch-up when the clock jumped over several run times.
 *
 * <p>A cron or fixed-rate schedule has one pending run: the next one not yet due. When it comes due the next is
 * planned at once (runs never wait for each other). A fixed delay plans its next run only when the previous one
 * ends, {@link Schedule#interval()} after. Every run counts toward {@link Schedule#maxRuns()}.
 */
public final class RepeatPlanner {
    /** How every run's id begins; producers' ids may not, so that no producer's job can stand for a run. */
    public static final String RUN_ID_PREFIX = "repeat:";

    private RepeatPlanner() {}

    /** The id of the run of repeatable {@code id} scheduled at {@code at}. */
    public static String runId(String id, Instant at) {
        return RUN_ID_PREFIX + id + ":" + at.toEpochMilli();
    }

    /** The first run of a schedule registered at {@code now}: a run due at {@code now} counts. */
    public static Optional<Instant> first(Schedule schedule, Instant now, Instant anchor) {
        return schedule.nextAfter(now.minusNanos(1), anchor);
    }

    /** The run after a cron or fixed-rate run scheduled at {@code scheduledAt} came due. */
    public static Optional<Instant> afterDue(Schedule schedule, Instant scheduledAt, Instant anchor) {
        return schedule.nextAfter(scheduledAt, anchor);
    }

    /** The run after a fixed-delay run ended at {@code endedAt}. */
    public static Optional<Instant> afterEnd(Schedule schedule, Instant endedAt, Instant anchor) {
        return schedule.nextAfter(endedAt, anchor);
    }

    /**
     * The run after a pending run scheduled at {@code scheduledAt} was removed by hand at {@code now}: the one
     * after it; for a fixed delay as if it ended now, or at its time if that is later.
     */
    public static Optional<Instant> afterRemoval(Schedule schedule, Instant scheduledAt, Instant now, Instant anchor) {
        Instant after = schedule.kind() == Schedule.Kind.FIXED_DELAY && now.isAfter(scheduledAt) ? now : scheduledAt;
        return schedule.nextAfter(after, anchor);
    }

    /** What the queue holds under a run's id. */
    public enum Held {
        /** Nothing: the run is added. */
        NOTHING,
        /** This repeatable's run, not finished: it counts as the run and is not added again. */
        UNFINISHED_RUN,
        /** A finished run (or another job): the instant is skipped. */
        TAKEN
    }

    /**
     * The runs to plan from {@code from} at {@code now}, given {@code runs} made so far: every due cron or
     * fixed-rate run (a clock that jumped makes each of them), up to the first that is not due, or one fixed-delay
     * run; bounded by the schedule's end and limit.
     *
     * @param runs the runs this plan makes, in order; each to be added unless {@code held} says it is there
     * @param pending the run the schedule waits for (the last of {@code runs}); null if it has ended
     * @param nextRun when the next run is due, for {@code repeatables()}: the pending run's time if it is in the
     *     future, else null (a fixed delay waiting for its run to end, or the end of the schedule)
     */
    public record Plan(List<Run> runs, Run pending, Instant nextRun) {}

    /** A run at {@code at}, to be added unless the queue already holds it ({@code add} false). */
    public record Run(Instant at, String id, boolean add) {}

    public static Plan plan(
            String id,
            Schedule schedule,
            Instant anchor,
            long runs,
            Optional<Instant> from,
            Instant now,
            Function<String, Held> held) {
        List<Run> planned = new ArrayList<>(1);
        Optional<Instant> when = from;
        while (when.isPresent() && runs < schedule.maxRuns()) {
            Instant at = when.get();
            String runId = runId(id, at);
            Held there = held.apply(runId);
            if (there == Held.TAKEN) {
                when = schedule.nextAfter(at, anchor);
                continue;
            }
            runs++;
            Run run = new Run(at, runId, there == Held.NOTHING);
            planned.add(run);
            if (at.isAfter(now)) {
                return new Plan(planned, run, at);
            }
            if (schedule.kind() == Schedule.Kind.FIXED_DELAY) {
                return new Plan(planned, run, null);
            }
            when = schedule.nextAfter(at, anchor);
        }
        return new Plan(planned, null, null);
    }
}
