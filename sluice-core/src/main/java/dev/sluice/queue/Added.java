package dev.sluice.queue;

/**
 * The answer to an add.
 *
 * @param job the job now in the queue: the new one, or for a duplicate the one already there (a snapshot)
 * @param duplicate whether the add was a duplicate of a job with the same id, so nothing was added; when the
 *     earlier job was already removed but its id is still held ({@link JobOptions#deduplicateFor}), {@code
 *     job} is {@code null}
 * @param <T> the payload type
 */
public record Added<T>(Job<T> job, boolean duplicate) {}
