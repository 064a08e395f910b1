package dev.sluice.internal.queue;

import dev.sluice.queue.WorkerInfo;
import dev.sluice.time.SluiceClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The workers attached to an in-memory queue, each with its id and when it was attached. Guarded by the queue's lock:
 * every method is called under it, except {@link #infos}, which is given a copy.
 *
 * @param <W> the workers
 */
final class AttachedWorkers<W extends QueueWorker<?, ? extends ClaimedAttempt>> {
    private record Attached(String id, long at) {}

    private final Map<W, Attached> attached = new LinkedHashMap<>();
    private long count;

    /** Attaches {@code worker} at {@code now} (engine nanoseconds). */
    void attach(W worker, long now) {
        attached.put(worker, new Attached("w" + ++count, now));
    }

    void detach(W worker) {
        attached.remove(worker);
    }

    /** Every worker attached, taking jobs or not. */
    List<W> all() {
        return new ArrayList<>(attached.keySet());
    }

    /** The ids of the workers that take jobs now (started, or inside {@code runDue}). */
    List<String> taking() {
        List<String> ids = new ArrayList<>();
        attached.forEach((worker, a) -> {
            if (worker.claiming()) {
                ids.add(a.id);
            }
        });
        return ids;
    }

    /** A copy, for {@link #infos} outside the lock. */
    AttachedWorkers<W> copy() {
        AttachedWorkers<W> copy = new AttachedWorkers<>();
        copy.attached.putAll(attached);
        return copy;
    }

    /** The workers that take jobs now, as {@link WorkerInfo}s seen at {@code now}: no lease, in this process. */
    List<WorkerInfo> infos(Instant now) {
        List<WorkerInfo> infos = new ArrayList<>(attached.size());
        attached.forEach((worker, a) -> {
            if (worker.claiming()) {
                infos.add(new WorkerInfo(
                        a.id,
                        ThisProcess.HOST,
                        ThisProcess.PID,
                        worker.options().concurrency(),
                        worker.running().stream().map(ClaimedAttempt::jobId).toList(),
                        SluiceClock.toInstant(a.at),
                        now,
                        null));
            }
        });
        return infos;
    }
}
