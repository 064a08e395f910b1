package dev.sluice.internal.queue;

import dev.sluice.queue.JobOptions;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.RepeatableJob;
import dev.sluice.queue.Schedule;
import java.time.Instant;
import java.util.Arrays;

/** A repeatable job's state: what it adds, how many runs it added, and the run it waits for. */
final class Repeater<T> {
    final String id;
    final Schedule schedule;
    final NewJob<T> template;
    final byte[] payload;
    final JobOptions options;
    final Instant anchor;
    long runs;
    Instant nextRun;
    String pendingJobId;

    Repeater(String id, Schedule schedule, NewJob<T> template, byte[] payload, JobOptions options, Instant anchor) {
        this.id = id;
        this.schedule = schedule;
        this.template = template;
        this.payload = payload;
        this.options = options;
        this.anchor = anchor;
    }

    boolean sameTemplate(NewJob<T> other, byte[] otherPayload, JobOptions otherOptions) {
        return template.name().equals(other.name())
                && Arrays.equals(payload, otherPayload)
                && options.equals(otherOptions);
    }

    RepeatableJob<T> view() {
        return new RepeatableJob<>(id, schedule, template, runs, nextRun);
    }
}
