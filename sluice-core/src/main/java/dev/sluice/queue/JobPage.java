package dev.sluice.queue;

import java.util.List;
import java.util.Objects;

/**
 * A page of the jobs in one state ({@link JobQueue#jobs(JobState, String, int)}) and the cursor of the page after it.
 *
 * <p>A cursor holds a place in the state's order, not a count of jobs, so paging goes on while jobs move: a job that
 * stays in the state from the first page to the last is shown once, neither twice nor skipped; a job that leaves the
 * state before its page is read is not shown; a job that enters the state at a place after the cursor's is shown on a
 * later page, and one that enters before it is not. A job that leaves and comes back (a waiting job that runs, fails
 * and is retried) takes a new place. The orders:
 *
 * <ul>
 *   <li>waiting: group after group, in the order of the groups' names compared as UTF-8 bytes, the ungrouped jobs last;
 *       within a group, the order its jobs will run (a larger priority first, then the order they became ready, a job
 *       sent back to the front first). Across groups this is not the order of the round-robin;
 *   <li>delayed: soonest due first, equal times in the order they were delayed;
 *   <li>active: the oldest start first;
 *   <li>completed and failed: the most recently finished first.
 * </ul>
 *
 * <p>A cursor is opaque: it is valid for the queue, engine and state that gave it, and does not expire.
 *
 * @param jobs snapshots of the jobs, in the state's order, read at one instant
 * @param next the cursor of the next page; {@code null} if no job followed this page when it was read
 * @param <T> the queue's payloads
 */
public record JobPage<T>(List<Job<T>> jobs, String next) {
    /**
     * A page.
     *
     * @throws NullPointerException if {@code jobs} is null
     */
    public JobPage {
        jobs = List.copyOf(Objects.requireNonNull(jobs, "jobs"));
    }
}
