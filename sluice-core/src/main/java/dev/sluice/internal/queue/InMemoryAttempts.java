package dev.sluice.internal.queue;

import dev.sluice.queue.Job;
import dev.sluice.queue.JobState;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import java.time.Duration;

/**
 * The attempts of an in-memory queue's jobs: a worker's slot claims the next job that may start, and each attempt
 * ends completed, failed (retried or not), rate-limited, run again later, interrupted or timed out, moving the job
 * and the counts as the rules say ({@link AttemptRules}, {@link RetentionRules}). Guarded by the queue's lock, as
 * the rest of its state.
 */
final class InMemoryAttempts<T> {
    private final InMemoryQueue<T> queue;

    InMemoryAttempts(InMemoryQueue<T> queue) {
        this.queue = queue;
    }

    /** The next job that may start now, made active; null if none may. Called under the lock. */
    JobRecord claim(long now) {
        if (queue.paused || queue.closed || queue.waitingCount == 0 || queue.activeCount >= queue.concurrency) {
            return null;
        }
        if (queue.pausedUntil > now || queue.rateBlockedUntil > now) {
            return null;
        }
        if (queue.rate != null) {
            long wait = queue.rate.peek(InMemoryQueue.QUEUE_KEY, now, queue.pausedUntil);
            if (wait > 0) {
                queue.rateBlockedUntil = now + wait;
                queue.wakeTimer.arm(queue.rateBlockedUntil);
                return null;
            }
        }
        JobRecord job = queue.groups.poll(now);
        if (job == null) {
            return null;
        }
        if (queue.rate != null) {
            queue.rate.take(InMemoryQueue.QUEUE_KEY, now, queue.pausedUntil);
        }
        queue.waitingCount--;
        if (queue.blockedProducers > 0) {
            queue.roomAvailable.signalAll();
        }
        start(job, queue.groups.group(job), now);
        return job;
    }

    private void start(JobRecord job, Group group, long now) {
        job.state = JobState.ACTIVE;
        job.token++;
        job.startedAt = now;
        job.progress = 0;
        group.active++;
        queue.activeCount++;
        long waited = now - job.readyAt;
        queue.stats.waitTime.record(waited);
        group.stats.waitTime.record(waited);
        job.startAttempt(now);
        Duration timeout = job.options.timeout();
        if (timeout != null) {
            int token = job.token;
            int attempt = job.attemptsMade + 1;
            job.timeoutTimer = queue.clock.schedule(timeout.toNanos(), () -> timedOut(job, token, attempt, timeout));
        }
    }

    /** Takes a job out of ACTIVE; false if {@code token} no longer owns it. */
    private boolean leaveActive(JobRecord job, int token, long now) {
        if (job.token != token || job.state != JobState.ACTIVE) {
            return false;
        }
        job.token++;
        job.claim = null;
        if (job.timeoutTimer != null) {
            job.timeoutTimer.cancel();
            job.timeoutTimer = null;
        }
        Group group = queue.groups.group(job);
        group.active--;
        queue.activeCount--;
        long took = now - job.startedAt;
        queue.stats.processingTime.record(took);
        group.stats.processingTime.record(took);
        queue.groups.jobEnded(group, now);
        if (queue.waitingCount > 0) {
            queue.workMayStart(false);
        }
        return true;
    }

    private void endAttempt(JobRecord job, long now, Job.Attempt.Outcome outcome, String error) {
        job.endAttempt(now, outcome, error);
    }

    /** Records a completed attempt; false if the caller no longer owns the job. Called under the lock. */
    boolean complete(JobRecord job, int token, byte[] value, long now, Events<T> events) {
        long startedAt = job.startedAt;
        if (!leaveActive(job, token, now)) {
            return false;
        }
        AdaptiveSignals.succeeded(queue, queue.groups.group(job), startedAt, now, events);
        job.attemptsMade++;
        job.result = value;
        endAttempt(job, now, Job.Attempt.Outcome.COMPLETED, null);
        finish(job, JobState.COMPLETED, now);
        measureEnd(events, job, MetricsSet.Ending.COMPLETED, Job.Attempt.Outcome.COMPLETED, null, now);
        if (Events.listened(events)) {
            Undecoded<T> snapshot = queue.undecoded(job);
            events.add(l -> l.onCompleted(snapshot.job()));
        }
        afterFinish(job, now, events);
        return true;
    }

    /**
     * Records a failed attempt ({@code outcome} FAILED or TIMED_OUT): retried after {@code retryDelay} while
     * attempts remain, else failed. {@code retryDelay} null means "fail now" ({@code reason} says why); the
     * caller computed it outside the lock. False if the caller no longer owns the job.
     */
    boolean fail(
            JobRecord job,
            int token,
            Throwable error,
            String reason,
            Job.Attempt.Outcome outcome,
            Duration retryDelay,
            long now,
            Events<T> events) {
        long startedAt = job.startedAt;
        if (!leaveActive(job, token, now)) {
            return false;
        }
        AdaptiveSignals.failed(
                queue, queue.groups.group(job), outcome == Job.Attempt.Outcome.TIMED_OUT, startedAt, now, events);
        job.attemptsMade++;
        endAttempt(job, now, outcome, reason);
        AttemptRules.Next next =
                AttemptRules.afterFailure(job.attemptsMade, job.options.attempts(), retryDelay, reason, now);
        if (next.kind() == AttemptRules.Next.Kind.FAIL) {
            job.failure = failure(reason, error);
            finish(job, JobState.FAILED, now);
            measureEnd(events, job, MetricsSet.Ending.FAILED, outcome, null, now);
            if (Events.listened(events)) {
                Undecoded<T> snapshot = queue.undecoded(job);
                events.add(l -> l.onFailed(snapshot.job()));
            }
            afterFinish(job, now, events);
            return true;
        }
        if (next.at() > now) {
            queue.makeDelayed(job, next.at());
        } else {
            queue.makeWaiting(job, now, false);
        }
        measureEnd(events, job, MetricsSet.Ending.RETRYING, outcome, null, now);
        if (Events.listened(events)) {
            Undecoded<T> snapshot = queue.undecoded(job);
            Throwable cause = error;
            events.add(l -> l.onRetrying(snapshot.job(), cause, retryDelay));
        }
        return true;
    }

    /** Records a rate-limited attempt; false if the caller no longer owns the job. */
    boolean rateLimited(JobRecord job, int token, Result.RateLimited limited, long now, Events<T> events) {
        AttemptRules.Next next = refuse(
                job,
                token,
                limited.scope(),
                limited.retryAfter(),
                limited.retryAfter(),
                AttemptEnd.rateLimitedNote(limited),
                true,
                now,
                events);
        if (next == null || next.kind() == AttemptRules.Next.Kind.FAIL) {
            return next != null;
        }
        long until = next.at();
        if (limited.scope() == Result.Scope.GROUP) {
            queue.groups.pause(queue.groups.group(job), until);
        } else if (until > queue.pausedUntil) {
            queue.pausedUntil = GroupRules.pausedUntil(queue.pausedUntil, until);
            queue.wakeTimer.arm(until);
        }
        queue.makeWaiting(job, now, true);
        tellRefused(job, limited.scope(), limited.retryAfter(), now, events);
        return true;
    }

    /**
     * Records an attempt whose processor found the downstream overloaded: the job runs again after the delay, counted
     * as a rate limit, and nothing pauses. False if the caller no longer owns the job.
     */
    boolean overloaded(JobRecord job, int token, Result.Overloaded overloaded, long now, Events<T> events) {
        Duration wait = AttemptRules.spread(overloaded.retryAfter(), job.id, job.rateLimits);
        AttemptRules.Next next = refuse(
                job,
                token,
                overloaded.scope(),
                overloaded.retryAfter(),
                wait,
                AttemptEnd.overloadedNote(overloaded),
                false,
                now,
                events);
        if (next == null || next.kind() == AttemptRules.Next.Kind.FAIL) {
            return next != null;
        }
        if (next.at() > now) {
            queue.makeDelayed(job, next.at());
        } else {
            queue.makeWaiting(job, now, false);
        }
        tellRefused(job, overloaded.scope(), overloaded.retryAfter(), now, events);
        return true;
    }

    /**
     * Ends an attempt the downstream refused ({@code limited}: rate-limited, else overloaded) and tells the adaptive
     * rates; fails the job past its most rate limits, else counts one more; it may run again after {@code wait}. Null if the caller no longer owns the job,
     * else what comes next (FAIL already done).
     */
    private AttemptRules.Next refuse(
            JobRecord job,
            int token,
            Result.Scope scope,
            Duration retryAfter,
            Duration wait,
            String note,
            boolean limited,
            long now,
            Events<T> events) {
        long startedAt = job.startedAt;
        if (!leaveActive(job, token, now)) {
            return null;
        }
        endAttempt(job, now, Job.Attempt.Outcome.RATE_LIMITED, note);
        AdaptiveSignals.refused(queue, queue.groups.group(job), scope, limited, startedAt, retryAfter, now, events);
        AttemptRules.Next next = AttemptRules.afterRateLimit(job.rateLimits, job.options.maxRateLimits(), wait, now);
        if (next.kind() == AttemptRules.Next.Kind.FAIL) {
            failPastMaxRateLimits(job, next, now, events);
        } else {
            job.rateLimits++;
        }
        return next;
    }

    private void tellRefused(JobRecord job, Result.Scope scope, Duration retryAfter, long now, Events<T> events) {
        measureEnd(events, job, MetricsSet.Ending.RATE_LIMITED, Job.Attempt.Outcome.RATE_LIMITED, scope, now);
        if (Events.listened(events)) {
            Undecoded<T> snapshot = queue.undecoded(job);
            events.add(l -> l.onRateLimited(snapshot.job(), scope, retryAfter));
        }
    }

    private void failPastMaxRateLimits(JobRecord job, AttemptRules.Next next, long now, Events<T> events) {
        job.failure = new Job.Failure(next.reason(), null, null);
        finish(job, JobState.FAILED, now);
        measureEnd(events, job, MetricsSet.Ending.FAILED, Job.Attempt.Outcome.RATE_LIMITED, null, now);
        if (Events.listened(events)) {
            Undecoded<T> snapshot = queue.undecoded(job);
            events.add(l -> l.onFailed(snapshot.job()));
        }
        afterFinish(job, now, events);
    }

    /**
     * Records an attempt whose processor asked to run again after {@code delay}: DELAYED (WAITING for no
     * delay), no attempt used, no pause. False if the caller no longer owns the job.
     */
    boolean runAgain(JobRecord job, int token, Duration delay, long now, Events<T> events) {
        if (!leaveActive(job, token, now)) {
            return false;
        }
        endAttempt(job, now, Job.Attempt.Outcome.RESCHEDULED, null);
        long nanos = delay.toNanos();
        if (nanos > 0) {
            queue.makeDelayed(job, AttemptRules.saturatedAdd(now, nanos));
        } else {
            queue.makeWaiting(job, now, false);
        }
        measureEnd(events, job, MetricsSet.Ending.RESCHEDULED, Job.Attempt.Outcome.RESCHEDULED, null, now);
        if (Events.listened(events)) {
            Undecoded<T> snapshot = queue.undecoded(job);
            events.add(l -> l.onRescheduled(snapshot.job(), delay));
        }
        return true;
    }

    /** Sends a running job back to waiting without using an attempt (its worker closed). */
    boolean interrupt(JobRecord job, int token, long now, Events<T> events) {
        if (!leaveActive(job, token, now)) {
            return false;
        }
        endAttempt(job, now, Job.Attempt.Outcome.INTERRUPTED, "its worker closed before it finished");
        queue.makeWaiting(job, now, true);
        measureEnd(events, job, MetricsSet.Ending.INTERRUPTED, Job.Attempt.Outcome.INTERRUPTED, null, now);
        return true;
    }

    /** Records for the metrics an attempt of {@code job} that ended at {@code now} as {@code ending}. */
    private static void measureEnd(
            Events<?> events,
            JobRecord job,
            MetricsSet.Ending ending,
            Job.Attempt.Outcome outcome,
            Result.Scope scope,
            long now) {
        if (Events.metered(events)) {
            String group = job.options.group();
            Duration processing = Duration.ofNanos(now - job.startedAt);
            Events.measure(events, m -> MetricsSet.tellEnded(m, group, ending, outcome, scope, processing));
        }
    }

    /** Ends attempt {@code attempt} of {@code job} when its timeout passed; its backoff is asked outside the lock. */
    private void timedOut(JobRecord job, int token, int attempt, Duration timeout) {
        if (!owns(job, token)) {
            return;
        }
        AttemptEnd.TimedOut end = AttemptEnd.timedOut(attempt, job.options, timeout);
        Events<T> events;
        InMemoryWorker.Claim claim;
        queue.lock.lock();
        try {
            claim = job.claim;
            events = queue.events();
            if (!fail(
                    job,
                    token,
                    null,
                    end.reason(),
                    Job.Attempt.Outcome.TIMED_OUT,
                    end.retryDelay(),
                    queue.clock.nanos(),
                    events)) {
                claim = null;
            }
        } finally {
            queue.lock.unlock();
        }
        if (claim != null) {
            claim.inProcessor.interrupt(claim, token);
        }
        queue.fire(events);
    }

    private boolean owns(JobRecord job, int token) {
        queue.lock.lock();
        try {
            return job.token == token && job.state == JobState.ACTIVE;
        } finally {
            queue.lock.unlock();
        }
    }

    /** The wait after attempt {@code failedAttempt} of {@code job} failed; asks its backoff: call outside the lock. */
    static AttemptRules.Retry retry(JobRecord job, int failedAttempt, Throwable error, String reason) {
        return AttemptRules.backoff(failedAttempt, job.options.attempts(), job.options.backoff(), error, reason);
    }

    private void finish(JobRecord job, JobState state, long now) {
        Group group = queue.groups.group(job);
        count(queue.stats, state, now);
        count(group.stats, state, now);
        queue.store.finished(job, state, now);
        queue.groups.releaseIfIdle(group, now);
        if (queue.waiters.waitsFor(job.id)) {
            queue.waiters.finished(queue.undecoded(job));
        }
    }

    private static void count(Group.Stats s, JobState state, long now) {
        if (state == JobState.COMPLETED) {
            s.completed++;
            s.completions.record(now);
        } else {
            s.failed++;
        }
    }

    private void afterFinish(JobRecord job, long now, Events<T> events) {
        if (job.repeatId != null) {
            queue.repeats.ended(job, now, events);
        }
        queue.signalIfIdle();
        if (queue.waitingCount + queue.delayedCount + queue.activeCount == 0 && Events.listened(events)) {
            events.add(QueueListener::onDrained);
        }
    }

    private Job.Failure failure(String reason, Throwable error) {
        if (error == null) {
            return new Job.Failure(reason, null, null);
        }
        return new Job.Failure(reason, error.getClass().getName(), QueueChecks.stackTrace(error));
    }

    /** A running job's progress, reported by its processor; nothing if {@code token} no longer owns it. */
    /** Tells the nearest adaptive rate of {@code scope} for {@code job} of a quota the downstream announced. */
    void quota(JobRecord job, Result.Scope scope, long remaining, long resetNanos) {
        Events<T> events;
        queue.lock.lock();
        try {
            events = queue.events();
            AdaptiveSignals.quota(
                    queue, queue.groups.group(job), scope, remaining, resetNanos, queue.clock.nanos(), events);
        } finally {
            queue.lock.unlock();
        }
        queue.fire(events);
    }

    void progress(JobRecord job, int token, int percent) {
        Events<T> events;
        queue.lock.lock();
        try {
            events = queue.events();
            if (job.token != token || job.state != JobState.ACTIVE) {
                return;
            }
            job.progress = percent;
            if (Events.listened(events)) {
                Undecoded<T> snapshot = queue.undecoded(job);
                events.add(l -> l.onProgress(snapshot.job(), percent));
            }
        } finally {
            queue.lock.unlock();
        }
        queue.fire(events);
    }
}
