package dev.sluice.internal.queue;

import dev.sluice.internal.adaptive.Signal;
import dev.sluice.internal.limit.QueueRate;
import dev.sluice.limit.RatePolicy;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobNotFoundException;
import dev.sluice.queue.JobState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The managing of an in-memory queue: pausing it, removing, retrying, cleaning and draining jobs, and its limits
 * (rate, concurrency, groups' limits). Guarded by the queue's lock, as the rest of its state.
 */
final class InMemoryAdmin<T> implements QueueAdmin {
    private final InMemoryQueue<T> queue;

    InMemoryAdmin(InMemoryQueue<T> queue) {
        this.queue = queue;
    }

    @Override
    public void pause() {
        queue.lock.lock();
        try {
            queue.paused = true;
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public void resume() {
        queue.lock.lock();
        try {
            queue.paused = false;
            queue.workMayStart(true);
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public boolean isPaused() {
        queue.lock.lock();
        try {
            return queue.paused;
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public boolean remove(String id) {
        Events<T> events;
        queue.lock.lock();
        try {
            JobRecord job = queue.store.get(id);
            if (job == null) {
                return false;
            }
            if (job.state == JobState.ACTIVE) {
                throw new IllegalStateException(
                        "job '" + id + "' of queue '" + queue.name + "' is active; a running job cannot be removed");
            }
            long now = queue.clock.nanos();
            events = queue.events();
            if (job.state == JobState.COMPLETED || job.state == JobState.FAILED) {
                queue.store.removeFinished(job, now);
            } else {
                removeUnstarted(job, now, events);
            }
        } finally {
            queue.lock.unlock();
        }
        queue.fire(events);
        return true;
    }

    /** Removes a waiting or delayed job; a repeatable's pending run is followed by the next ({@code events} given). */
    void removeUnstarted(JobRecord job, long now, Events<T> events) {
        Group group = queue.groups.group(job);
        if (job.state == JobState.WAITING) {
            group.forgetWaiting();
            queue.waitingCount--;
        } else {
            group.delayed--;
            queue.delayedCount--;
        }
        queue.store.removeUnstarted(job);
        if (queue.blockedProducers > 0) {
            queue.roomAvailable.signalAll();
        }
        queue.groups.releaseIfIdle(group, now);
        if (job.repeatId != null) {
            queue.repeats.removed(job, now, events);
        }
        queue.waiters.removed(job.id);
        queue.signalIfIdle();
    }

    @Override
    public void retry(String id, JobState from) {
        queue.lock.lock();
        try {
            JobRecord job = queue.store.get(id);
            if (job == null) {
                throw new JobNotFoundException(queue.name, id);
            }
            if (job.state != from) {
                throw new IllegalStateException("job '" + id + "' of queue '" + queue.name + "' is " + job.state
                        + "; only a " + from + " job can be retried as " + from);
            }
            revive(job, queue.clock.nanos());
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public int retryFailed() {
        queue.lock.lock();
        try {
            List<JobRecord> failed = new ArrayList<>();
            queue.store.forEachNewestFirst(JobState.FAILED, failed::add);
            long now = queue.clock.nanos();
            for (int i = failed.size() - 1; i >= 0; i--) {
                revive(failed.get(i), now);
            }
            return failed.size();
        } finally {
            queue.lock.unlock();
        }
    }

    private void revive(JobRecord job, long now) {
        queue.store.revive(job);
        job.result = null;
        job.attemptsMade = 0;
        job.rateLimits = 0;
        job.failure = null;
        queue.makeWaiting(job, now, false);
    }

    @Override
    public int clean(JobState state, Duration age) {
        queue.lock.lock();
        try {
            long now = queue.clock.nanos();
            long cutoff = RetentionRules.cleanCutoff(age, now);
            List<JobRecord> old = new ArrayList<>();
            queue.store.forEachNewestFirst(state, job -> {
                if (job.finishedAt <= cutoff) {
                    old.add(job);
                }
            });
            for (JobRecord job : old) {
                queue.store.removeFinished(job, now);
            }
            return old.size();
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public int drain(boolean delayedToo) {
        Events<T> events;
        int drained;
        queue.lock.lock();
        try {
            long now = queue.clock.nanos();
            events = queue.events();
            List<JobRecord> doomed = new ArrayList<>();
            for (Group group : queue.groups.all()) {
                group.forEachWaiting(doomed::add);
            }
            if (delayedToo) {
                doomed.addAll(queue.store.delayedJobs());
            }
            for (JobRecord job : doomed) {
                removeUnstarted(job, now, events);
            }
            drained = doomed.size();
        } finally {
            queue.lock.unlock();
        }
        queue.fire(events);
        return drained;
    }

    @Override
    public void promote(String id) {
        Events<T> events;
        queue.lock.lock();
        try {
            JobRecord job = queue.store.get(id);
            if (job == null) {
                throw new JobNotFoundException(queue.name, id);
            }
            if (job.state != JobState.DELAYED) {
                throw QueueChecks.notDelayed(queue.name, id, job.state);
            }
            events = queue.events();
            queue.store.undelay(job);
            queue.becomeDue(job, queue.clock.nanos(), events);
        } finally {
            queue.lock.unlock();
        }
        queue.fire(events);
    }

    @Override
    public void pauseGroup(String group) {
        queue.lock.lock();
        try {
            queue.groups.pause(queue.groups.group(Group.Key.of(group)), Long.MAX_VALUE);
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public boolean resumeGroup(String group) {
        queue.lock.lock();
        try {
            Group found = queue.groups.find(Group.Key.of(group));
            if (found == null || !queue.groups.resume(found, queue.clock.nanos())) {
                return false;
            }
            queue.workMayStart(true);
            return true;
        } finally {
            queue.lock.unlock();
        }
    }

    // ---------------------------------------------------------------- limits

    @Override
    public void setRate(RatePolicy policy) {
        queue.lock.lock();
        try {
            if (policy == null) {
                queue.rate = null;
            } else if (queue.rate != null && queue.rate.canAdopt(policy)) {
                queue.rate.update(policy);
            } else {
                queue.rate = new QueueRate(queue.name, policy, queue.clock, 1);
            }
            queue.rateBlockedUntil = Long.MIN_VALUE;
            limitsChanged();
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public void setConcurrency(int value) {
        queue.lock.lock();
        try {
            queue.concurrency = value;
            limitsChanged();
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public void setGroupDefaults(GroupLimits limits) {
        queue.lock.lock();
        try {
            queue.groups.setDefaults(limits);
            limitsChanged();
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public void setGroupLimits(String group, GroupLimits limits) {
        queue.lock.lock();
        try {
            queue.groups.setOwn(group, limits);
            limitsChanged();
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public void clearGroupLimits(String group) {
        queue.lock.lock();
        try {
            queue.groups.clearOwn(group);
            limitsChanged();
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public GroupLimits groupLimits(String group) {
        queue.lock.lock();
        try {
            return queue.groups.limitsOf(Group.Key.of(group));
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public Limits limits() {
        queue.lock.lock();
        try {
            return new Limits(
                    queue.rate == null ? null : queue.rate.policy(), queue.concurrency, queue.groups.defaults());
        } finally {
            queue.lock.unlock();
        }
    }

    @Override
    public void gauge(String name, double value, double threshold) {
        toQueueRate(new Signal.Gauge(name, value, threshold));
    }

    @Override
    public void gaugeStale(String name) {
        toQueueRate(new Signal.Report(0, 0, 0, name));
    }

    private void toQueueRate(Signal signal) {
        Events<T> events;
        queue.lock.lock();
        try {
            events = queue.events();
            AdaptiveSignals.toQueueRate(queue, signal, queue.clock.nanos(), events);
        } finally {
            queue.lock.unlock();
        }
        queue.fire(events);
    }

    /** Lets every group be looked at again under the new limits. */
    private void limitsChanged() {
        queue.groups.limitsChanged();
        queue.workMayStart(true);
        queue.roomAvailable.signalAll();
    }
}
