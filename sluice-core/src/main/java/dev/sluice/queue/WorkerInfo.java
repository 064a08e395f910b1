package dev.sluice.queue;

import java.time.Instant;
import java.util.List;

/**
 * A worker attached to a queue, as the engine last heard of it ({@link JobQueue#workers()}): on a shared engine, a
 * worker of any process on any host.
 *
 * @param id the worker's id, unique in the queue while it is attached
 * @param host the name of the host it runs on
 * @param pid the id of its process on that host
 * @param concurrency how many jobs it runs at once at most
 * @param running the ids of the jobs it runs now, as the engine holds them
 * @param startedAt when it started taking jobs
 * @param lastSeen when it last told the engine it is alive: on a shared engine, its latest heartbeat (a worker
 *     heard of for three heartbeats no longer is dropped, and its jobs' lease decides their fate); on the
 *     in-memory engine, now
 * @param leaseEnds when the lease on its running jobs ends unless it renews it; {@code null} if it holds none, and
 *     on the in-memory engine, where jobs have no lease
 */
public record WorkerInfo(
        String id,
        String host,
        long pid,
        int concurrency,
        List<String> running,
        Instant startedAt,
        Instant lastSeen,
        Instant leaseEnds) {

    /** Copies {@code running}, so the snapshot stays unchanged. */
    public WorkerInfo {
        running = List.copyOf(running);
    }

    /**
     * How many of its slots run a job now.
     *
     * @return the number of jobs it runs
     */
    public int busy() {
        return running.size();
    }
}
