package dev.sluice.internal.queue;

import dev.sluice.queue.JobOptions;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.RepeatableJob;
import dev.sluice.queue.Schedule;
import dev.sluice.time.SluiceClock;
import java.util.List;

/**
 * The repeatable jobs of an in-memory queue: registering one (its first runs planned and added at once), removing
 * one, listing them, and adding a run when one comes due ({@link Repeats} holds them, {@link RepeatPlanner} plans
 * their runs). Guarded by the queue's lock, as the rest of its state.
 */
final class InMemoryRepeatables<T> {
    private final InMemoryQueue<T> queue;

    InMemoryRepeatables(InMemoryQueue<T> queue) {
        this.queue = queue;
    }

    // ---------------------------------------------------------------- repeatable jobs

    RepeatableJob<T> repeat(String id, Schedule schedule, NewJob<T> template) {
        queue.checkOpen();
        QueueChecks.checkRepeat(id, schedule, template);
        InMemoryAdds.Prepared prepared = queue.adds.prepare(template, -1);
        Events<T> events;
        RepeatableJob<T> answer;
        queue.lock.lock();
        try {
            events = queue.events();
            queue.checkOpen();
            long now = queue.clock.nanos();
            answer =
                    queue.repeats.register(id, schedule, template, prepared.payload(), prepared.options(), now, events);
        } finally {
            queue.lock.unlock();
        }
        queue.fire(events);
        return answer;
    }

    /** Adds a run of {@code repeater}. */
    void addRun(Repeater<T> repeater, RepeatPlanner.Run run, long now, Events<T> events) {
        JobOptions runOptions = repeater.options.toBuilder().jobId(run.id()).build();
        InMemoryAdds.Prepared p = new InMemoryAdds.Prepared(
                run.id(),
                repeater.template.name(),
                repeater.payload,
                runOptions,
                repeater.id,
                SluiceClock.toEpochNanos(run.at()));
        queue.insert(p, repeater.template.payload(), now, events);
    }

    boolean removeRepeatable(String id) {
        queue.checkOpen();
        if (id == null) {
            throw new IllegalArgumentException("repeatable job id must not be null");
        }
        queue.lock.lock();
        try {
            return queue.repeats.remove(id, queue.clock.nanos());
        } finally {
            queue.lock.unlock();
        }
    }

    List<RepeatableJob<T>> repeatables() {
        queue.checkOpen();
        queue.lock.lock();
        try {
            return queue.repeats.views();
        } finally {
            queue.lock.unlock();
        }
    }
}
