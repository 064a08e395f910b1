package dev.sluice.queue;

import java.time.Instant;

/**
 * A job the queue adds by itself on a {@link Schedule}.
 *
 * @param id the scheduler's id, unique in its queue
 * @param schedule when it runs
 * @param template the job each run adds: name, payload and options
 * @param runs how many runs it has added so far
 * @param nextRun when it adds its next run; {@code null} when it has ended or (fixed delay) waits for the
 *     previous run to finish
 * @param <T> the payload type
 */
public record RepeatableJob<T>(String id, Schedule schedule, NewJob<T> template, long runs, Instant nextRun) {
    /**
     * The repeatable job for people, without its template's payload.
     *
     * @return for example {@code RepeatableJob{id=nightly, schedule=Schedule{cron '0 3 * * *' in UTC},
     *     template=NewJob{name=report, options=JobOptions{}}, runs=4, nextRun=2026-01-05T03:00:00Z}}
     */
    @Override
    public String toString() {
        return new ToString("RepeatableJob")
                .add("id", id)
                .add("schedule", schedule)
                .add("template", template)
                .add("runs", runs)
                .add("nextRun", nextRun)
                .toString();
    }
}
