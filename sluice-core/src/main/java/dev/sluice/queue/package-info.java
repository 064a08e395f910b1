/**
 * Job queues: jobs added by producers and run by workers, with retries, delays, priorities, groups (tenants)
 * served fairly, and rate limits at every level.
 *
 * <p>A {@link dev.sluice.queue.JobQueue}, obtained from an engine ({@link dev.sluice.Sluice#queue}), stores
 * each payload encoded by its {@link dev.sluice.queue.Codec}. {@code add} takes {@link
 * dev.sluice.queue.JobOptions} (job id, group, delay, attempts and {@link dev.sluice.queue.Backoff}, priority,
 * timeout, retention); {@code repeat} registers a {@link dev.sluice.queue.Schedule} (cron, fixed rate, fixed
 * delay). {@code worker} starts a {@link dev.sluice.queue.Worker} that runs a {@link
 * dev.sluice.queue.Processor} on virtual threads with the concurrency of its {@link
 * dev.sluice.queue.WorkerOptions}; the processor answers with a {@link dev.sluice.queue.Result}, or throws to
 * fail the attempt. {@link dev.sluice.queue.QueueOptions} and {@link dev.sluice.queue.GroupLimits} set the
 * queue's and each group's rate and concurrency. A {@link dev.sluice.queue.Job} is a snapshot of one job;
 * {@link dev.sluice.queue.QueueListener} hears every change, {@code stats()} gives counts and latencies.
 *
 * <p>Delivery: a job is completed at most once, and its processor runs at least once; after a timeout, a lost
 * lease or a close deadline it may run again, so side effects should key on the job id.
 *
 * <p>Thread-safety: queues and workers are safe for use by any number of threads, and every change of a job's
 * state is atomic. Options, schedules, results and jobs are immutable values.
 */
package dev.sluice.queue;
