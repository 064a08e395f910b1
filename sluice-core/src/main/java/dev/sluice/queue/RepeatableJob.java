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
public record RepeatableJob<T>(String id, Schedule schedule, NewJob<T> template, long runs, Instant nextRun) {}
