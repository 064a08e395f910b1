package dev.sluice.internal.queue;

import dev.sluice.queue.Added;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueFullException;
import dev.sluice.time.SluiceClock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;

/**
 * The adding of an in-memory queue's jobs: each checked and encoded before the queue's lock is taken, duplicates
 * answered with the job already there, and room waited for (or refused) as the queue's {@code whenFull} says; the
 * job is then put in the queue's state by {@link InMemoryQueue#insert}. Guarded by the queue's lock, as the rest of
 * its state.
 */
final class InMemoryAdds<T> implements QueueAdds<T> {
    private final InMemoryQueue<T> queue;

    InMemoryAdds(InMemoryQueue<T> queue) {
        this.queue = queue;
    }

    /** {@link JobQueue#add}, the engine open: waits for room as the queue's {@code whenFull} says. */
    @Override
    public Added<T> add(NewJob<T> job) {
        return add(prepare(job, -1), job.payload(), roomDeadline());
    }

    /** {@link JobQueue#addAsync}, the engine open. */
    @Override
    public CompletableFuture<Added<T>> addAsync(NewJob<T> job) {
        Prepared prepared = prepare(job, -1);
        return addAsync(deadline -> add(prepared, job.payload(), deadline));
    }

    /** Runs {@code addUntil} without blocking the caller: {@link AsyncAdds}, with this queue's wait for room. */
    private <R> CompletableFuture<R> addAsync(LongFunction<R> addUntil) {
        return AsyncAdds.add(addUntil, queue.clock.nanos(), blockForNanos(), "sluice-" + queue.name + "-add");
    }

    /** Adds a prepared job, waiting for room until {@code deadline} on the engine clock at most. */
    private Added<T> add(Prepared prepared, T payload, long deadline) {
        Events<T> events = null;
        Duplicate<T> duplicate;
        Added<T> added = null;
        queue.lock.lock();
        try {
            queue.checkOpen();
            long now = queue.clock.nanos();
            duplicate = duplicate(prepared, now);
            if (duplicate == null) {
                awaitRoom(demand(List.of(prepared), now), now, deadline);
                now = queue.clock.nanos();
                duplicate = duplicate(prepared, now);
                if (duplicate == null) {
                    events = queue.events();
                    JobRecord record = queue.insert(prepared, payload, now, events);
                    added = new Added<>(queue.snapshot(record, payload), false);
                }
            }
        } finally {
            queue.lock.unlock();
        }
        queue.fire(events);
        return added != null ? added : decoded(duplicate);
    }

    /** {@link JobQueue#addBulk}, the engine open. */
    @Override
    public List<Added<T>> addBulk(List<NewJob<T>> newJobs) {
        return addBulk(newJobs, prepareBulk(newJobs), roomDeadline());
    }

    /** {@link JobQueue#addBulkAsync}, the engine open. */
    @Override
    public CompletableFuture<List<Added<T>>> addBulkAsync(List<NewJob<T>> newJobs) {
        List<Prepared> prepared = prepareBulk(newJobs);
        List<NewJob<T>> copy = List.copyOf(newJobs);
        return addAsync(deadline -> addBulk(copy, prepared, deadline));
    }

    private List<Prepared> prepareBulk(List<NewJob<T>> newJobs) {
        QueueChecks.checkBulk(newJobs);
        List<Prepared> prepared = new ArrayList<>(newJobs.size());
        for (int i = 0; i < newJobs.size(); i++) {
            prepared.add(prepare(newJobs.get(i), i));
        }
        return prepared;
    }

    /** Adds prepared jobs, all or none, waiting for room until {@code deadline} on the engine clock at most. */
    private List<Added<T>> addBulk(List<NewJob<T>> newJobs, List<Prepared> prepared, long deadline) {
        Events<T> events;
        List<Added<T>> answers = new ArrayList<>(prepared.size());
        List<Duplicate<T>> duplicates = new ArrayList<>(prepared.size());
        queue.lock.lock();
        try {
            queue.checkOpen();
            long now = queue.clock.nanos();
            Demand demand = demand(prepared, now);
            if (demand.jobs > 0) {
                awaitRoom(demand, now, deadline);
                now = queue.clock.nanos();
            }
            events = queue.events();
            for (Prepared p : prepared) {
                // a job id seen earlier in this bulk is in the store by now: a duplicate like any other
                Duplicate<T> duplicate = duplicate(p, now);
                duplicates.add(duplicate);
                if (duplicate != null) {
                    answers.add(null);
                    continue;
                }
                T payload = newJobs.get(answers.size()).payload();
                JobRecord record = queue.insert(p, payload, now, events);
                answers.add(new Added<>(queue.snapshot(record, payload), false));
            }
        } finally {
            queue.lock.unlock();
        }
        queue.fire(events);
        for (int i = 0; i < answers.size(); i++) {
            if (answers.get(i) == null) {
                answers.set(i, decoded(duplicates.get(i)));
            }
        }
        return answers;
    }

    /** The room an add needs: its jobs that are not duplicates, in all and per bounded group. */
    private record Demand(int jobs, Map<Group.Key, Integer> perGroup) {}

    private Demand demand(List<Prepared> prepared, long now) {
        boolean groupsBounded = queue.groups.anyBounded();
        HashSet<String> ids = prepared.size() > 1 ? new HashSet<>() : null;
        Map<Group.Key, Integer> perGroup = groupsBounded ? new HashMap<>() : Map.of();
        int fresh = 0;
        for (Prepared p : prepared) {
            if (p.id == null || (!queue.store.isHeld(p.id, now) && (ids == null || ids.add(p.id)))) {
                fresh++;
                if (groupsBounded) {
                    perGroup.merge(Group.Key.of(p.options.group()), 1, Integer::sum);
                }
            }
        }
        return new Demand(fresh, perGroup);
    }

    /** A job checked and encoded, before the lock is taken. */
    record Prepared(String id, String name, byte[] payload, JobOptions options, String repeatId, long scheduledAt) {}

    Prepared prepare(NewJob<T> job, int index) {
        QueueChecks.Prepared checked = QueueChecks.prepare(job, index, queue.options, queue.codec);
        return new Prepared(checked.id(), checked.name(), checked.payload(), checked.options(), null, 0);
    }

    /**
     * Under the lock: the answer to an add of a job already there ({@code existing}'s snapshot, decoded by {@link
     * #decoded} after the lock), or of a remembered id (no snapshot); null if {@code p} is not a duplicate.
     */
    private Duplicate<T> duplicate(Prepared p, long now) {
        if (p.id == null) {
            return null;
        }
        JobRecord existing = queue.store.get(p.id);
        if (existing != null) {
            return new Duplicate<>(queue.undecoded(existing));
        }
        return queue.store.remembers(p.id, now) ? new Duplicate<>(null) : null;
    }

    /** An add that found its id taken: the job there, if it is still kept. */
    private record Duplicate<T>(Undecoded<T> existing) {}

    /** After the lock: what an add answers for {@code duplicate}. */
    private static <T> Added<T> decoded(Duplicate<T> duplicate) {
        return new Added<>(
                duplicate.existing() == null ? null : duplicate.existing().job(), true);
    }

    /** How long the queue lets an add wait for room, in nanoseconds; 0 rejects at once. */
    private long blockForNanos() {
        return queue.options.whenFull().blockFor().toNanos();
    }

    /**
     * Until when an add called now may wait for room; {@code Long.MIN_VALUE} (and no clock read) if the queue
     * rejects at once.
     */
    private long roomDeadline() {
        long blockFor = blockForNanos();
        return blockFor == 0 ? Long.MIN_VALUE : AttemptRules.saturatedAdd(queue.clock.nanos(), blockFor);
    }

    private void awaitRoom(Demand demand, long now, long deadline) {
        QueueFullException shortage = shortage(demand);
        if (shortage == null) {
            return;
        }
        if (deadline <= now || demand.jobs > shortage.maxQueued()) {
            throw shortage;
        }
        boolean[] timedOut = {false};
        SluiceClock.Timer timer = queue.clock.schedule(deadline - now, () -> {
            queue.lock.lock();
            try {
                timedOut[0] = true;
                queue.roomAvailable.signalAll();
            } finally {
                queue.lock.unlock();
            }
        });
        queue.blockedProducers++;
        try {
            while (true) {
                queue.checkOpen();
                if ((shortage = shortage(demand)) == null) {
                    return;
                }
                if (timedOut[0] || queue.clock.nanos() >= deadline) {
                    throw shortage;
                }
                try {
                    queue.roomAvailable.await();
                } catch (InterruptedException e) {
                    throw QueueChecks.interruptedWaitingForRoom(queue.name, shortage, e);
                }
            }
        } finally {
            queue.blockedProducers--;
            timer.cancel();
        }
    }

    /** Why {@code demand} does not fit now (the queue's bound, or a group's), or null if it fits. */
    private QueueFullException shortage(Demand demand) {
        int max = queue.options.maxQueued();
        if (queue.waitingCount + queue.delayedCount + demand.jobs > max) {
            return new QueueFullException(
                    queue.name,
                    null,
                    max,
                    "queue '" + queue.name + "' is full: it holds "
                            + (queue.waitingCount + queue.delayedCount) + " waiting or delayed jobs, at most " + max
                            + ", and "
                            + demand.jobs + " more do not fit; nothing was added");
        }
        for (Map.Entry<Group.Key, Integer> wanted : demand.perGroup.entrySet()) {
            Group.Key key = wanted.getKey();
            int groupMax = queue.groups.limitsOf(key).maxQueued();
            Group group = queue.groups.find(key);
            long held = group == null ? 0 : group.waiting + group.delayed;
            if (held + wanted.getValue() > groupMax) {
                String which = key.name() == null ? "the ungrouped jobs" : "group '" + key.name() + "'";
                return new QueueFullException(
                        queue.name,
                        key.name(),
                        groupMax,
                        "queue '" + queue.name + "': " + which
                                + " holds " + held + " waiting or delayed jobs, at most " + groupMax
                                + " (its maxQueued), and "
                                + wanted.getValue() + " more do not fit; nothing was added");
            }
        }
        return null;
    }
}
