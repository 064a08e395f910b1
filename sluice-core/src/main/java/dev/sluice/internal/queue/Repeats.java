package dev.sluice.internal.queue;

import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.RepeatableJob;
import dev.sluice.queue.Schedule;
import dev.sluice.time.SluiceClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A queue's repeatable jobs: each one's schedule, template and pending run, kept going as its runs come due,
 * end or are removed. When runs fall is {@link RepeatPlanner}. Guarded by the queue's lock.
 */
final class Repeats<T> {
    /** How the queue adds a run and takes out a waiting or delayed one; called under its lock. */
    interface Runs<T> {
        void add(Repeater<T> repeater, RepeatPlanner.Run run, long now, Events<T> events);

        void removeUnstarted(JobRecord job, long now);
    }

    private final JobStore store;
    private final Runs<T> runs;
    private final TreeMap<String, Repeater<T>> repeaters = new TreeMap<>();

    Repeats(JobStore store, Runs<T> runs) {
        this.store = store;
        this.runs = runs;
    }

    /**
     * Registers {@code id} at {@code now}, or leaves it as it is when the schedule and template are the same;
     * another schedule or template replaces the pending run.
     */
    RepeatableJob<T> register(
            String id,
            Schedule schedule,
            NewJob<T> template,
            byte[] payload,
            JobOptions options,
            long now,
            Events<T> events) {
        Repeater<T> existing = repeaters.get(id);
        if (existing != null
                && existing.schedule.equals(schedule)
                && existing.sameTemplate(template, payload, options)) {
            return existing.view();
        }
        if (existing != null) {
            dropPendingRun(existing, now);
        }
        Instant at = SluiceClock.toInstant(now);
        Repeater<T> repeater = new Repeater<>(id, schedule, template, payload, options, at);
        repeaters.put(id, repeater);
        plan(repeater, RepeatPlanner.first(schedule, at, repeater.anchor), now, events);
        return repeater.view();
    }

    /** Removes {@code id} and its pending run; false if it is not registered. */
    boolean remove(String id, long now) {
        Repeater<T> repeater = repeaters.remove(id);
        if (repeater == null) {
            return false;
        }
        dropPendingRun(repeater, now);
        return true;
    }

    List<RepeatableJob<T>> views() {
        List<RepeatableJob<T>> all = new ArrayList<>(repeaters.size());
        for (Repeater<T> repeater : repeaters.values()) {
            all.add(repeater.view());
        }
        return all;
    }

    /** After a run became due: a cron or fixed-rate schedule adds the run after it; a fixed delay waits for its end. */
    void cameDue(JobRecord run, long now, Events<T> events) {
        Repeater<T> repeater = pendingOf(run);
        if (repeater == null) {
            return;
        }
        if (repeater.schedule.kind() == Schedule.Kind.FIXED_DELAY) {
            repeater.nextRun = null;
            return;
        }
        repeater.pendingJobId = null;
        plan(
                repeater,
                RepeatPlanner.afterDue(repeater.schedule, SluiceClock.toInstant(run.scheduledAt), repeater.anchor),
                now,
                events);
    }

    /** After a run completed or failed for good: a fixed delay adds the run after it. */
    void ended(JobRecord run, long now, Events<T> events) {
        Repeater<T> repeater = pendingOf(run);
        if (repeater == null || repeater.schedule.kind() != Schedule.Kind.FIXED_DELAY) {
            return;
        }
        repeater.pendingJobId = null;
        plan(
                repeater,
                RepeatPlanner.afterEnd(repeater.schedule, SluiceClock.toInstant(now), repeater.anchor),
                now,
                events);
    }

    /** After a pending run was removed by hand: the run after it is planned, so the schedule goes on. */
    void removed(JobRecord run, long now, Events<T> events) {
        Repeater<T> repeater = pendingOf(run);
        if (repeater == null) {
            return;
        }
        repeater.pendingJobId = null;
        plan(
                repeater,
                RepeatPlanner.afterRemoval(
                        repeater.schedule,
                        SluiceClock.toInstant(run.scheduledAt),
                        SluiceClock.toInstant(now),
                        repeater.anchor),
                now,
                events);
    }

    /** The repeater whose pending run {@code run} is, or null. */
    private Repeater<T> pendingOf(JobRecord run) {
        if (run.repeatId == null) {
            return null;
        }
        Repeater<T> repeater = repeaters.get(run.repeatId);
        return repeater != null && run.id.equals(repeater.pendingJobId) ? repeater : null;
    }

    /** Adds the runs {@link RepeatPlanner#plan} makes from {@code from}, and notes the one the schedule waits for. */
    private void plan(Repeater<T> repeater, Optional<Instant> from, long now, Events<T> events) {
        RepeatPlanner.Plan plan = RepeatPlanner.plan(
                repeater.id,
                repeater.schedule,
                repeater.anchor,
                repeater.runs,
                from,
                SluiceClock.toInstant(now),
                runId -> held(repeater, runId));
        for (RepeatPlanner.Run run : plan.runs()) {
            repeater.runs++;
            if (run.add()) {
                runs.add(repeater, run, now, events);
            }
        }
        repeater.pendingJobId = plan.pending() == null ? null : plan.pending().id();
        repeater.nextRun = plan.nextRun();
    }

    private RepeatPlanner.Held held(Repeater<T> repeater, String runId) {
        JobRecord job = store.get(runId);
        if (job == null) {
            return RepeatPlanner.Held.NOTHING;
        }
        boolean unfinished =
                job.state == JobState.WAITING || job.state == JobState.DELAYED || job.state == JobState.ACTIVE;
        return repeater.id.equals(job.repeatId) && unfinished
                ? RepeatPlanner.Held.UNFINISHED_RUN
                : RepeatPlanner.Held.TAKEN;
    }

    private void dropPendingRun(Repeater<T> repeater, long now) {
        String pendingId = repeater.pendingJobId;
        if (pendingId == null) {
            return;
        }
        repeater.pendingJobId = null;
        JobRecord pending = store.get(pendingId);
        if (pending != null && (pending.state == JobState.DELAYED || pending.state == JobState.WAITING)) {
            runs.removeUnstarted(pending, now);
        }
    }
}
