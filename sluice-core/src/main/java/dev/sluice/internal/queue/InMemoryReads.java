package dev.sluice.internal.queue;

import dev.sluice.internal.limit.QueueRate;
import dev.sluice.queue.GroupInfo;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobNotFoundException;
import dev.sluice.queue.JobState;
import dev.sluice.queue.QueueStats;
import dev.sluice.queue.Result;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * What an in-memory queue answers about its jobs: one job, a page of jobs in a state, counts and statistics, and
 * the waits for an outcome or for the queue to be idle. Guarded by the queue's lock, as the rest of its state;
 * payloads are decoded after it is released.
 */
final class InMemoryReads<T> {
    private final InMemoryQueue<T> queue;

    InMemoryReads(InMemoryQueue<T> queue) {
        this.queue = queue;
    }

    Optional<Job<T>> job(String id) {
        queue.checkOpenWithJobId(id);
        Undecoded<T> snapshot;
        queue.lock.lock();
        try {
            JobRecord record = queue.store.get(id);
            snapshot = record == null ? null : queue.undecoded(record);
        } finally {
            queue.lock.unlock();
        }
        return snapshot == null ? Optional.empty() : Optional.of(snapshot.job());
    }

    CompletableFuture<Job<T>> whenFinished(String id) {
        queue.checkOpenWithJobId(id);
        Undecoded<T> finished;
        queue.lock.lock();
        try {
            queue.checkOpen();
            JobRecord record = queue.store.get(id);
            if (record == null) {
                return CompletableFuture.failedFuture(new JobNotFoundException(queue.name, id));
            }
            if (record.state != JobState.COMPLETED && record.state != JobState.FAILED) {
                return queue.waiters.outcomeOf(id);
            }
            finished = queue.undecoded(record);
        } finally {
            queue.lock.unlock();
        }
        return CompletableFuture.completedFuture(finished.job());
    }

    boolean awaitIdle(Duration timeout) throws InterruptedException {
        queue.checkOpen();
        QueueChecks.checkAwaitIdle(timeout);
        CompletableFuture<Boolean> idle;
        queue.lock.lock();
        try {
            queue.checkOpen();
            if (queue.waitingCount + queue.delayedCount + queue.activeCount == 0) {
                return true;
            }
            if (timeout.isZero()) {
                return false;
            }
            idle = queue.waiters.idleSignal();
        } finally {
            queue.lock.unlock();
        }
        long nanos = timeout.compareTo(Duration.ofNanos(SluiceClock.MAX_NANOS)) > 0
                ? SluiceClock.MAX_NANOS
                : timeout.toNanos();
        SluiceClock.Timer timer = queue.clock.schedule(nanos, () -> idle.complete(false));
        try {
            return idle.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException closing ? closing : new IllegalStateException(e);
        } finally {
            timer.cancel();
            queue.lock.lock();
            try {
                queue.waiters.forget(idle);
            } finally {
                queue.lock.unlock();
            }
        }
    }

    JobCounts counts() {
        queue.checkOpen();
        queue.lock.lock();
        try {
            return countsNow();
        } finally {
            queue.lock.unlock();
        }
    }

    private JobCounts countsNow() {
        return new JobCounts(
                queue.waitingCount,
                queue.delayedCount,
                queue.activeCount,
                queue.store.count(JobState.COMPLETED),
                queue.store.count(JobState.FAILED));
    }

    List<Job<T>> jobs(JobState state, int offset, int limit) {
        queue.checkOpen();
        QueueChecks.checkPage(state, offset, limit);
        List<Undecoded<T>> page = new ArrayList<>();
        queue.lock.lock();
        try {
            List<JobRecord> selected = new ArrayList<>();
            Consumer<JobRecord> pick = new Consumer<>() {
                int skipped;

                @Override
                public void accept(JobRecord job) {
                    if (skipped < offset) {
                        skipped++;
                    } else if (selected.size() < limit) {
                        selected.add(job);
                    }
                }
            };
            switch (state) {
                case WAITING -> pageOfWaiting(offset, limit, selected);
                case DELAYED -> {
                    queue.store.delayedInOrder().forEach(pick);
                }
                case ACTIVE -> {
                    List<JobRecord> active = new ArrayList<>();
                    for (JobRecord job : queue.store.all()) {
                        if (job.state == JobState.ACTIVE) {
                            active.add(job);
                        }
                    }
                    active.sort(Comparator.<JobRecord>comparingLong(j -> j.startedAt)
                            .thenComparingLong(j -> j.seq));
                    active.forEach(pick);
                }
                case COMPLETED, FAILED -> queue.store.forEachNewestFirst(state, pick);
            }
            for (JobRecord job : selected) {
                page.add(queue.undecoded(job));
            }
        } finally {
            queue.lock.unlock();
        }
        return Undecoded.decodeAll(page);
    }

    QueueStats stats() {
        queue.checkOpen();
        queue.lock.lock();
        try {
            return statsOf(countsNow(), queue.stats, queue.clock.nanos(), rateOf(queue.rate, null));
        } finally {
            queue.lock.unlock();
        }
    }

    QueueStats stats(String groupName) {
        queue.checkOpen();
        QueueChecks.checkLookedUpGroup(groupName);
        queue.lock.lock();
        try {
            Group.Key key = Group.Key.of(groupName);
            Group group = queue.groups.find(key);
            Group.Stats groupStats = queue.groups.statsOf(key);
            long keptCompleted = groupStats == null ? 0 : groupStats.keptCompleted;
            long keptFailed = groupStats == null ? 0 : groupStats.keptFailed;
            JobCounts counts = group == null
                    ? new JobCounts(0, 0, 0, keptCompleted, keptFailed)
                    : new JobCounts(group.waiting, group.delayed, group.active, keptCompleted, keptFailed);
            QueueStats.Rate rate = rateOf(queue.groups.rateOf(key), key);
            return statsOf(counts, groupStats == null ? new Group.Stats() : groupStats, queue.clock.nanos(), rate);
        } finally {
            queue.lock.unlock();
        }
    }

    List<String> groups() {
        queue.checkOpen();
        queue.lock.lock();
        try {
            return List.copyOf(queue.groups.namesWithStats());
        } finally {
            queue.lock.unlock();
        }
    }

    /**
     * Under the lock: the waiting jobs of {@code jobs(WAITING, offset, limit)} into {@code selected}, skipping whole
     * groups before the page by their counts.
     */
    private void pageOfWaiting(int offset, int limit, List<JobRecord> selected) {
        int skip = offset;
        for (Group group : queue.groups.all()) {
            if (selected.size() == limit) {
                return;
            }
            if (skip >= group.waiting) {
                skip -= group.waiting;
                continue;
            }
            int[] skipInGroup = {skip};
            group.forEachWaiting(job -> {
                if (skipInGroup[0] > 0) {
                    skipInGroup[0]--;
                } else if (selected.size() < limit) {
                    selected.add(job);
                }
            });
            skip = 0;
        }
    }

    List<GroupInfo> groups(String prefix, String after, int limit) {
        queue.checkOpen();
        QueueChecks.checkGroupPage(prefix, limit);
        queue.lock.lock();
        try {
            long now = queue.clock.nanos();
            List<GroupInfo> page = new ArrayList<>();
            for (String name : QueueChecks.groupPage(queue.groups.namesWithStats(), prefix, after, limit)) {
                Group.Key key = Group.Key.of(name);
                Group group = queue.groups.find(key);
                long pausedUntil = group == null ? Long.MIN_VALUE : group.pausedUntil;
                page.add(new GroupInfo(
                        name,
                        group == null ? 0 : group.waiting,
                        group == null ? 0 : group.delayed,
                        group == null ? 0 : group.active,
                        pausedUntil == Long.MAX_VALUE,
                        pausedUntil > now && pausedUntil != Long.MAX_VALUE ? SluiceClock.toInstant(pausedUntil) : null,
                        queue.groups.limitsOf(key),
                        queue.groups.hasOwnLimits(name)));
            }
            return page;
        } finally {
            queue.lock.unlock();
        }
    }

    private static QueueStats statsOf(JobCounts counts, Group.Stats s, long now, QueueStats.Rate rate) {
        return new QueueStats(
                counts,
                s.added,
                s.completed,
                s.failed,
                s.completions.perSecond(now),
                s.waitTime.summary(),
                s.processingTime.summary(),
                rate);
    }

    /** {@code rate} as configured and as it runs for the queue ({@code key} null) or the group {@code key}. */
    private static QueueStats.Rate rateOf(QueueRate rate, Group.Key key) {
        if (rate == null) {
            return null;
        }
        Result.Scope scope = key == null ? Result.Scope.QUEUE : Result.Scope.GROUP;
        String rateKey = key == null ? InMemoryQueue.QUEUE_KEY : key.rateKey();
        dev.sluice.internal.adaptive.RateChange last = rate.lastChange(rateKey);
        return new QueueStats.Rate(
                rate.policy(),
                rate.policy().perSecond(),
                rate.perSecond(rateKey),
                rate.cuts(rateKey),
                last == null ? null : AdaptiveSignals.publicChange(scope, key == null ? null : key.name(), last),
                rate.changes(rateKey));
    }

    Optional<byte[]> payloadBytes(String id) {
        queue.checkOpenWithJobId(id);
        queue.lock.lock();
        try {
            JobRecord record = queue.store.get(id);
            return record == null ? Optional.empty() : Optional.of(record.payload.clone());
        } finally {
            queue.lock.unlock();
        }
    }
}
