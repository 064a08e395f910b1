package dev.sluice.internal.queue;

import dev.sluice.internal.limit.Limits;
import dev.sluice.internal.limit.QueueRate;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.queue.Added;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobNotFoundException;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Processor;
import dev.sluice.queue.QueueFullException;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueMetrics;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.QueueStats;
import dev.sluice.queue.RepeatableJob;
import dev.sluice.queue.Result;
import dev.sluice.queue.Schedule;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.DurationText;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * A queue whose jobs live in this JVM.
 *
 * <p>One lock guards everything: every change of state is one critical section, so transitions are atomic
 * and counts always add up. The lock is held for map and deque operations only; payloads are encoded before
 * it is taken and decoded after it is released ({@link Undecoded}), processors, listeners and metrics run outside
 * it. A worker ends one job and takes the next in one critical section.
 *
 * <p>This class is the queue's state and locking: the API, adds, starts and the ends of attempts. The rest
 * sits beside it, each guarded by the same lock: {@link JobStore} (jobs, delayed, finished, remembered ids),
 * {@link GroupRing} (groups, the ready ring, group limits), {@link Repeats} (repeatable jobs), {@link
 * WakeTimer} (one clock timer for the earliest due time) and {@link Listeners} (events, told after the lock is
 * released). The rules they apply are pure functions of time: {@link AttemptRules}, {@link RetentionRules},
 * {@link RepeatPlanner} and {@link GroupRules}.
 *
 * <p>Once its engine has closed ({@link #closeWorkers}), every method of {@link JobQueue} but {@code name()}
 * and {@code options()} throws {@link Limits#closed}; each checks first, before its arguments.
 */
public final class InMemoryQueue<T> implements JobQueue<T> {
    private static final Duration ENGINE_CLOSE_DEADLINE = Duration.ofSeconds(30);
    private static final String QUEUE_KEY = "queue";

    private final Object engine;
    private final String name;
    private final Codec<T> codec;
    private final QueueOptions options;
    private final SluiceClock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition workAvailable = lock.newCondition();
    private final Condition roomAvailable = lock.newCondition();

    private final Set<InMemoryWorker<T>> workers = new HashSet<>();
    private final Group.Stats stats = new Group.Stats();
    private long waitingCount;
    private long delayedCount;
    private long activeCount;
    private long seq;
    private boolean paused;
    private long pausedUntil = Long.MIN_VALUE;
    private long rateBlockedUntil = Long.MIN_VALUE;
    private int concurrency;
    private QueueRate rate;
    private int idleWorkers;
    private int blockedProducers;
    private final WakeTimer wakeTimer;
    private final JobStore store;
    private final GroupRing groups;
    private final Repeats<T> repeats;
    /**
     * Set under the lock when the engine closes. Read without it at the start of every call, and again under
     * it by the calls that add jobs, workers, schedules or waiters, so that none is taken after the close.
     */
    private volatile boolean closed;

    private final Waiters<T> waiters;

    private final Listeners<T> listeners;

    /** A queue called {@code name} of {@code engine} (named in errors); the engine has checked the arguments. */
    public InMemoryQueue(Object engine, String name, Codec<T> codec, QueueOptions options, SluiceClock clock) {
        this.engine = engine;
        this.name = name;
        this.codec = codec;
        this.options = options;
        this.clock = clock;
        this.listeners = new Listeners<>(name, lock);
        this.wakeTimer = new WakeTimer(clock, this::wake);
        this.store = new JobStore(wakeTimer);
        this.concurrency = options.concurrency();
        this.rate = options.rate() == null ? null : new QueueRate(name, options.rate(), clock, 1);
        this.waiters = new Waiters<>(name);
        this.groups = new GroupRing(name, clock, options.groupDefaults(), wakeTimer);
        this.repeats = new Repeats<>(store, new Repeats.Runs<>() {
            @Override
            public void add(Repeater<T> repeater, RepeatPlanner.Run run, long now, Events<T> events) {
                addRun(repeater, run, now, events);
            }

            @Override
            public void removeUnstarted(JobRecord job, long now) {
                InMemoryQueue.this.removeUnstarted(job, now, null);
            }
        });
    }

    /** The codec the queue was created with. */
    public Codec<T> codec() {
        return codec;
    }

    SluiceClock clock() {
        return clock;
    }

    /**
     * Refuses every further use, then closes every worker, giving running jobs {@link #ENGINE_CLOSE_DEADLINE} on
     * the engine's clock. Used when the engine closes.
     *
     * @return completes when every worker has closed
     */
    public CompletableFuture<Void> closeWorkers() {
        List<InMemoryWorker<T>> all;
        lock.lock();
        try {
            closed = true;
            waiters.closed(closedEngine());
            all = new ArrayList<>(workers);
            workAvailable.signalAll();
            roomAvailable.signalAll();
        } finally {
            lock.unlock();
        }
        List<CompletableFuture<Worker.CloseReport>> closing = new ArrayList<>(all.size());
        for (InMemoryWorker<T> worker : all) {
            closing.add(worker.closeAsync(ENGINE_CLOSE_DEADLINE));
        }
        return CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new));
    }

    /**
     * Once the engine's close has closed the workers: waits up to {@link #CLOSE_TELLING_NANOS} for the listeners to
     * hear what happened before (the workers' last endings), unless a listener closes the engine.
     */
    public void awaitListenersOnClose() {
        if (listeners.onLane()) {
            return;
        }
        try {
            listeners.awaitTold(CLOSE_TELLING_NANOS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The longest an engine's close waits for listeners to hear the changes made before it. */
    private static final long CLOSE_TELLING_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);

    @Override
    public String name() {
        return name;
    }

    @Override
    public QueueOptions options() {
        return options;
    }

    // ---------------------------------------------------------------- adding

    @Override
    public Added<T> add(String jobName, T payload, JobOptions jobOptions) {
        checkOpen();
        NewJob<T> job = new NewJob<>(jobName, payload, jobOptions);
        return add(prepare(job, -1), payload, roomDeadline());
    }

    @Override
    public CompletableFuture<Added<T>> addAsync(String jobName, T payload, JobOptions jobOptions) {
        checkOpen();
        NewJob<T> job = new NewJob<>(jobName, payload, jobOptions);
        Prepared prepared = prepare(job, -1);
        return addAsync(deadline -> add(prepared, payload, deadline));
    }

    /** Runs {@code addUntil} without blocking the caller: {@link AsyncAdds}, with this queue's wait for room. */
    private <R> CompletableFuture<R> addAsync(LongFunction<R> addUntil) {
        return AsyncAdds.add(addUntil, clock.nanos(), blockForNanos(), "sluice-" + name + "-add");
    }

    /** Adds a prepared job, waiting for room until {@code deadline} on the engine clock at most. */
    private Added<T> add(Prepared prepared, T payload, long deadline) {
        Events<T> events = null;
        Duplicate<T> duplicate;
        Added<T> added = null;
        lock.lock();
        try {
            checkOpen();
            long now = clock.nanos();
            duplicate = duplicate(prepared, now);
            if (duplicate == null) {
                awaitRoom(demand(List.of(prepared), now), now, deadline);
                now = clock.nanos();
                duplicate = duplicate(prepared, now);
                if (duplicate == null) {
                    events = events();
                    JobRecord record = insert(prepared, payload, now, events);
                    added = new Added<>(snapshot(record, payload), false);
                }
            }
        } finally {
            lock.unlock();
        }
        fire(events);
        return added != null ? added : decoded(duplicate);
    }

    @Override
    public List<Added<T>> addBulk(List<NewJob<T>> newJobs) {
        checkOpen();
        return addBulk(newJobs, prepareBulk(newJobs), roomDeadline());
    }

    @Override
    public CompletableFuture<List<Added<T>>> addBulkAsync(List<NewJob<T>> newJobs) {
        checkOpen();
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
        lock.lock();
        try {
            checkOpen();
            long now = clock.nanos();
            Demand demand = demand(prepared, now);
            if (demand.jobs > 0) {
                awaitRoom(demand, now, deadline);
                now = clock.nanos();
            }
            events = events();
            for (Prepared p : prepared) {
                // a job id seen earlier in this bulk is in the store by now: a duplicate like any other
                Duplicate<T> duplicate = duplicate(p, now);
                duplicates.add(duplicate);
                if (duplicate != null) {
                    answers.add(null);
                    continue;
                }
                T payload = newJobs.get(answers.size()).payload();
                JobRecord record = insert(p, payload, now, events);
                answers.add(new Added<>(snapshot(record, payload), false));
            }
        } finally {
            lock.unlock();
        }
        fire(events);
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
        boolean groupsBounded = groups.anyBounded();
        HashSet<String> ids = prepared.size() > 1 ? new HashSet<>() : null;
        Map<Group.Key, Integer> perGroup = groupsBounded ? new HashMap<>() : Map.of();
        int fresh = 0;
        for (Prepared p : prepared) {
            if (p.id == null || (!store.isHeld(p.id, now) && (ids == null || ids.add(p.id)))) {
                fresh++;
                if (groupsBounded) {
                    perGroup.merge(Group.Key.of(p.options.group()), 1, Integer::sum);
                }
            }
        }
        return new Demand(fresh, perGroup);
    }

    /** A job checked and encoded, before the lock is taken. */
    private record Prepared(
            String id, String name, byte[] payload, JobOptions options, String repeatId, long scheduledAt) {}

    private Prepared prepare(NewJob<T> job, int index) {
        QueueChecks.Prepared checked = QueueChecks.prepare(job, index, options, codec);
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
        JobRecord existing = store.get(p.id);
        if (existing != null) {
            return new Duplicate<>(undecoded(existing));
        }
        return store.remembers(p.id, now) ? new Duplicate<>(null) : null;
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
        return options.whenFull().blockFor().toNanos();
    }

    /**
     * Until when an add called now may wait for room; {@code Long.MIN_VALUE} (and no clock read) if the queue
     * rejects at once.
     */
    private long roomDeadline() {
        long blockFor = blockForNanos();
        return blockFor == 0 ? Long.MIN_VALUE : AttemptRules.saturatedAdd(clock.nanos(), blockFor);
    }

    private void awaitRoom(Demand demand, long now, long deadline) {
        QueueFullException shortage = shortage(demand);
        if (shortage == null) {
            return;
        }
        if (deadline <= now || demand.jobs > shortage.maxWaiting()) {
            throw shortage;
        }
        boolean[] timedOut = {false};
        SluiceClock.Timer timer = clock.schedule(deadline - now, () -> {
            lock.lock();
            try {
                timedOut[0] = true;
                roomAvailable.signalAll();
            } finally {
                lock.unlock();
            }
        });
        blockedProducers++;
        try {
            while (true) {
                checkOpen();
                if ((shortage = shortage(demand)) == null) {
                    return;
                }
                if (timedOut[0] || clock.nanos() >= deadline) {
                    throw shortage;
                }
                try {
                    roomAvailable.await();
                } catch (InterruptedException e) {
                    throw QueueChecks.interruptedWaitingForRoom(name, shortage, e);
                }
            }
        } finally {
            blockedProducers--;
            timer.cancel();
        }
    }

    /** Why {@code demand} does not fit now (the queue's bound, or a group's), or null if it fits. */
    private QueueFullException shortage(Demand demand) {
        int max = options.maxWaiting();
        if (waitingCount + delayedCount + demand.jobs > max) {
            return new QueueFullException(
                    name,
                    null,
                    max,
                    "queue '" + name + "' is full: it holds "
                            + (waitingCount + delayedCount) + " waiting or delayed jobs, at most " + max + ", and "
                            + demand.jobs + " more do not fit; nothing was added");
        }
        for (Map.Entry<Group.Key, Integer> wanted : demand.perGroup.entrySet()) {
            Group.Key key = wanted.getKey();
            int groupMax = groups.limitsOf(key).maxWaiting();
            Group group = groups.find(key);
            long held = group == null ? 0 : group.waiting + group.delayed;
            if (held + wanted.getValue() > groupMax) {
                String which = key.name() == null ? "the ungrouped jobs" : "group '" + key.name() + "'";
                return new QueueFullException(
                        name,
                        key.name(),
                        groupMax,
                        "queue '" + name + "': " + which
                                + " holds " + held + " waiting or delayed jobs, at most " + groupMax
                                + " (its maxWaiting), and "
                                + wanted.getValue() + " more do not fit; nothing was added");
            }
        }
        return null;
    }

    /** Adds a job; {@code payload} is what {@code p}'s bytes encode, for the event. */
    private JobRecord insert(Prepared p, T payload, long now, Events<T> events) {
        String id = p.id != null ? p.id : store.newId();
        Group.Key key = Group.Key.of(p.options.group());
        JobRecord record = new JobRecord(id, p.name, p.payload, key, p.options, now, p.repeatId, p.scheduledAt);
        store.put(record);
        record.stats = groups.group(record).stats;
        stats.added++;
        record.stats.added++;
        long delay = p.repeatId != null
                ? Math.max(0, p.scheduledAt - now)
                : p.options.delay().toNanos();
        if (delay > 0) {
            makeDelayed(record, now + delay);
        } else {
            makeWaiting(record, now, false);
        }
        if (Events.metered(events)) {
            String group = p.options.group();
            Events.measure(events, m -> m.added(group));
        }
        if (Events.listened(events)) {
            Job<T> job = snapshot(record, payload);
            events.add(l -> l.onAdded(job));
        }
        return record;
    }

    // ---------------------------------------------------------------- moving jobs between states

    /**
     * Makes {@code job} WAITING and wakes one idle slot for it: a call that makes several jobs wait (a bulk add,
     * {@code retryFailed}) wakes as many slots, with no signal of its own.
     */
    private void makeWaiting(JobRecord job, long now, boolean atFront) {
        job.state = JobState.WAITING;
        job.readyAt = now;
        job.runAt = 0;
        Group group = groups.group(job);
        if (atFront) {
            group.addFirst(job);
        } else {
            job.seq = ++seq;
            group.addLast(job);
        }
        waitingCount++;
        groups.offer(group, now);
        if (idleWorkers > 0) {
            workAvailable.signal();
        }
    }

    private void makeDelayed(JobRecord job, long runAt) {
        job.state = JobState.DELAYED;
        job.runAt = runAt;
        job.seq = ++seq;
        store.delay(job);
        groups.group(job).delayed++;
        delayedCount++;
    }

    /** The next job that may start now, made active; null if none may. Called under the lock. */
    JobRecord claim(InMemoryWorker<T>.Slot slot, long now) {
        if (paused || closed || waitingCount == 0 || activeCount >= concurrency) {
            return null;
        }
        if (pausedUntil > now || rateBlockedUntil > now) {
            return null;
        }
        if (rate != null) {
            long wait = rate.peek(QUEUE_KEY, now);
            if (wait > 0) {
                rateBlockedUntil = now + wait;
                wakeTimer.arm(rateBlockedUntil);
                return null;
            }
        }
        JobRecord job = groups.poll(now);
        if (job == null) {
            return null;
        }
        if (rate != null) {
            rate.take(QUEUE_KEY, now);
        }
        waitingCount--;
        if (blockedProducers > 0) {
            roomAvailable.signalAll();
        }
        start(job, groups.group(job), slot, now);
        return job;
    }

    private void start(JobRecord job, Group group, InMemoryWorker<T>.Slot slot, long now) {
        job.state = JobState.ACTIVE;
        job.token++;
        job.slot = slot;
        job.startedAt = now;
        job.progress = 0;
        group.active++;
        activeCount++;
        long waited = now - job.readyAt;
        stats.waitTime.record(waited);
        group.stats.waitTime.record(waited);
        job.startAttempt(now);
        Duration timeout = job.options.timeout();
        if (timeout != null) {
            int token = job.token;
            int attempt = job.attemptsMade + 1;
            job.timeoutTimer = clock.schedule(timeout.toNanos(), () -> timedOut(job, token, attempt, timeout));
        }
    }

    /** Takes a job out of ACTIVE; false if {@code token} no longer owns it. */
    private boolean leaveActive(JobRecord job, int token, long now) {
        if (job.token != token || job.state != JobState.ACTIVE) {
            return false;
        }
        job.token++;
        job.slot = null;
        if (job.timeoutTimer != null) {
            job.timeoutTimer.cancel();
            job.timeoutTimer = null;
        }
        Group group = groups.group(job);
        group.active--;
        activeCount--;
        long took = now - job.startedAt;
        stats.processingTime.record(took);
        group.stats.processingTime.record(took);
        groups.jobEnded(group, now);
        if (idleWorkers > 0 && waitingCount > 0) {
            workAvailable.signal();
        }
        return true;
    }

    private void endAttempt(JobRecord job, long now, Job.Attempt.Outcome outcome, String error) {
        job.endAttempt(now, outcome, error);
    }

    /** Records a completed attempt; false if the caller no longer owns the job. Called under the lock. */
    boolean complete(JobRecord job, int token, byte[] value, long now, Events<T> events) {
        if (!leaveActive(job, token, now)) {
            return false;
        }
        job.attemptsMade++;
        job.result = value;
        endAttempt(job, now, Job.Attempt.Outcome.COMPLETED, null);
        finish(job, JobState.COMPLETED, now);
        measureEnd(events, job, MetricsSet.Ending.COMPLETED, Job.Attempt.Outcome.COMPLETED, null, now);
        if (Events.listened(events)) {
            Undecoded<T> snapshot = undecoded(job);
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
        if (!leaveActive(job, token, now)) {
            return false;
        }
        job.attemptsMade++;
        endAttempt(job, now, outcome, reason);
        AttemptRules.Next next =
                AttemptRules.afterFailure(job.attemptsMade, job.options.attempts(), retryDelay, reason, now);
        if (next.kind() == AttemptRules.Next.Kind.FAIL) {
            job.failure = failure(reason, error);
            finish(job, JobState.FAILED, now);
            measureEnd(events, job, MetricsSet.Ending.FAILED, outcome, null, now);
            if (Events.listened(events)) {
                Undecoded<T> snapshot = undecoded(job);
                events.add(l -> l.onFailed(snapshot.job()));
            }
            afterFinish(job, now, events);
            return true;
        }
        if (next.at() > now) {
            makeDelayed(job, next.at());
        } else {
            makeWaiting(job, now, false);
        }
        measureEnd(events, job, MetricsSet.Ending.RETRYING, outcome, null, now);
        if (Events.listened(events)) {
            Undecoded<T> snapshot = undecoded(job);
            Throwable cause = error;
            events.add(l -> l.onRetrying(snapshot.job(), cause, retryDelay));
        }
        return true;
    }

    /** Records a rate-limited attempt; false if the caller no longer owns the job. */
    boolean rateLimited(JobRecord job, int token, Result.RateLimited limited, long now, Events<T> events) {
        if (!leaveActive(job, token, now)) {
            return false;
        }
        String note = "rate limited (" + limited.scope() + ") for " + limited.retryAfter();
        endAttempt(job, now, Job.Attempt.Outcome.RATE_LIMITED, note);
        AttemptRules.Next next = AttemptRules.afterRateLimit(job.rateLimits, job.options.maxRateLimits(), limited, now);
        if (next.kind() == AttemptRules.Next.Kind.FAIL) {
            job.failure = new Job.Failure(next.reason(), null, null);
            finish(job, JobState.FAILED, now);
            measureEnd(events, job, MetricsSet.Ending.FAILED, Job.Attempt.Outcome.RATE_LIMITED, null, now);
            if (Events.listened(events)) {
                Undecoded<T> snapshot = undecoded(job);
                events.add(l -> l.onFailed(snapshot.job()));
            }
            afterFinish(job, now, events);
            return true;
        }
        job.rateLimits++;
        Group group = groups.group(job);
        long until = next.at();
        if (limited.scope() == Result.Scope.GROUP) {
            groups.pause(group, until);
        } else if (until > pausedUntil) {
            pausedUntil = GroupRules.pausedUntil(pausedUntil, until);
            wakeTimer.arm(until);
        }
        makeWaiting(job, now, true);
        measureEnd(events, job, MetricsSet.Ending.RATE_LIMITED, Job.Attempt.Outcome.RATE_LIMITED, limited.scope(), now);
        if (Events.listened(events)) {
            Undecoded<T> snapshot = undecoded(job);
            events.add(l -> l.onRateLimited(snapshot.job(), limited.scope(), limited.retryAfter()));
        }
        return true;
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
            makeDelayed(job, AttemptRules.saturatedAdd(now, nanos));
        } else {
            makeWaiting(job, now, false);
        }
        measureEnd(events, job, MetricsSet.Ending.RESCHEDULED, Job.Attempt.Outcome.RESCHEDULED, null, now);
        if (Events.listened(events)) {
            Undecoded<T> snapshot = undecoded(job);
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
        makeWaiting(job, now, true);
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
        AttemptRules.Retry retry = retry(job, attempt, null, "timed out after " + DurationText.format(timeout));
        Events<T> events;
        InMemoryWorker<?>.Slot slot;
        lock.lock();
        try {
            slot = job.slot;
            events = events();
            if (!fail(
                    job,
                    token,
                    null,
                    retry.reason(),
                    Job.Attempt.Outcome.TIMED_OUT,
                    retry.delay(),
                    clock.nanos(),
                    events)) {
                slot = null;
            }
        } finally {
            lock.unlock();
        }
        if (slot != null) {
            slot.interruptAttempt(job, token);
        }
        fire(events);
    }

    private boolean owns(JobRecord job, int token) {
        lock.lock();
        try {
            return job.token == token && job.state == JobState.ACTIVE;
        } finally {
            lock.unlock();
        }
    }

    /** The wait after attempt {@code failedAttempt} of {@code job} failed; asks its backoff: call outside the lock. */
    static AttemptRules.Retry retry(JobRecord job, int failedAttempt, Throwable error, String reason) {
        return AttemptRules.backoff(failedAttempt, job.options.attempts(), job.options.backoff(), error, reason);
    }

    private void finish(JobRecord job, JobState state, long now) {
        Group group = groups.group(job);
        count(stats, state, now);
        count(group.stats, state, now);
        store.finished(job, state, now);
        groups.releaseIfIdle(group, now);
        if (waiters.waitsFor(job.id)) {
            waiters.finished(undecoded(job));
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
            repeats.ended(job, now, events);
        }
        signalIfIdle();
        if (waitingCount + delayedCount + activeCount == 0 && Events.listened(events)) {
            events.add(QueueListener::onDrained);
        }
    }

    private Job.Failure failure(String reason, Throwable error) {
        if (error == null) {
            return new Job.Failure(reason, null, null);
        }
        return new Job.Failure(reason, error.getClass().getName(), QueueChecks.stackTrace(error));
    }

    // ---------------------------------------------------------------- time

    private void wake() {
        Events<T> events;
        lock.lock();
        try {
            events = events();
            wakeTimer.fired();
            long now = clock.nanos();
            runDueWork(now, events);
            long next = store.nextDue();
            next = Math.min(next, groups.nextDue());
            if (pausedUntil > now) {
                next = Math.min(next, pausedUntil);
            }
            if (rateBlockedUntil > now) {
                next = Math.min(next, rateBlockedUntil);
            }
            if (next != Long.MAX_VALUE) {
                wakeTimer.arm(Math.max(next, now + 1));
            }
            if (idleWorkers > 0) {
                workAvailable.signalAll();
            }
        } finally {
            lock.unlock();
        }
        fire(events);
    }

    /** Promotes due delayed jobs, unparks groups, expires kept jobs and remembered ids. Under the lock. */
    private void runDueWork(long now, Events<T> events) {
        JobRecord job;
        while ((job = store.pollDue(now)) != null) {
            Group group = groups.group(job);
            group.delayed--;
            delayedCount--;
            makeWaiting(job, now, false);
            if (job.repeatId != null) {
                repeats.cameDue(job, now, events);
            }
        }
        groups.unparkDue(now);
        store.expire(now);
    }

    // ---------------------------------------------------------------- repeatable jobs

    @Override
    public RepeatableJob<T> repeat(String id, Schedule schedule, NewJob<T> template) {
        checkOpen();
        QueueChecks.checkRepeat(id, schedule, template);
        Prepared prepared = prepare(template, -1);
        Events<T> events;
        RepeatableJob<T> answer;
        lock.lock();
        try {
            events = events();
            checkOpen();
            long now = clock.nanos();
            answer = repeats.register(id, schedule, template, prepared.payload, prepared.options, now, events);
        } finally {
            lock.unlock();
        }
        fire(events);
        return answer;
    }

    /** Adds a run of {@code repeater}. */
    private void addRun(Repeater<T> repeater, RepeatPlanner.Run run, long now, Events<T> events) {
        JobOptions runOptions = repeater.options.toBuilder().jobId(run.id()).build();
        Prepared p = new Prepared(
                run.id(),
                repeater.template.name(),
                repeater.payload,
                runOptions,
                repeater.id,
                SluiceClock.toEpochNanos(run.at()));
        insert(p, repeater.template.payload(), now, events);
    }

    @Override
    public boolean removeRepeatable(String id) {
        checkOpen();
        if (id == null) {
            throw new IllegalArgumentException("repeatable job id must not be null");
        }
        lock.lock();
        try {
            return repeats.remove(id, clock.nanos());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<RepeatableJob<T>> repeatables() {
        checkOpen();
        lock.lock();
        try {
            return repeats.views();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- reading

    @Override
    public Optional<Job<T>> job(String id) {
        checkOpenWithJobId(id);
        Undecoded<T> snapshot;
        lock.lock();
        try {
            JobRecord record = store.get(id);
            snapshot = record == null ? null : undecoded(record);
        } finally {
            lock.unlock();
        }
        return snapshot == null ? Optional.empty() : Optional.of(snapshot.job());
    }

    @Override
    public CompletableFuture<Job<T>> whenFinished(String id) {
        checkOpenWithJobId(id);
        Undecoded<T> finished;
        lock.lock();
        try {
            checkOpen();
            JobRecord record = store.get(id);
            if (record == null) {
                return CompletableFuture.failedFuture(new JobNotFoundException(name, id));
            }
            if (record.state != JobState.COMPLETED && record.state != JobState.FAILED) {
                return waiters.outcomeOf(id);
            }
            finished = undecoded(record);
        } finally {
            lock.unlock();
        }
        return CompletableFuture.completedFuture(finished.job());
    }

    @Override
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        checkOpen();
        QueueChecks.checkAwaitIdle(timeout);
        CompletableFuture<Boolean> idle;
        lock.lock();
        try {
            checkOpen();
            if (waitingCount + delayedCount + activeCount == 0) {
                return true;
            }
            if (timeout.isZero()) {
                return false;
            }
            idle = waiters.idleSignal();
        } finally {
            lock.unlock();
        }
        long nanos = timeout.compareTo(Duration.ofNanos(SluiceClock.MAX_NANOS)) > 0
                ? SluiceClock.MAX_NANOS
                : timeout.toNanos();
        SluiceClock.Timer timer = clock.schedule(nanos, () -> idle.complete(false));
        try {
            return idle.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException closing ? closing : new IllegalStateException(e);
        } finally {
            timer.cancel();
            lock.lock();
            try {
                waiters.forget(idle);
            } finally {
                lock.unlock();
            }
        }
    }

    /** Under the lock: wakes {@link #awaitIdle} callers if no job waits, is delayed or runs. */
    private void signalIfIdle() {
        if (waitingCount + delayedCount + activeCount == 0) {
            waiters.idle();
        }
    }

    @Override
    public JobCounts counts() {
        checkOpen();
        lock.lock();
        try {
            return countsNow();
        } finally {
            lock.unlock();
        }
    }

    private JobCounts countsNow() {
        return new JobCounts(
                waitingCount, delayedCount, activeCount, store.count(JobState.COMPLETED), store.count(JobState.FAILED));
    }

    @Override
    public List<Job<T>> jobs(JobState state, int offset, int limit) {
        checkOpen();
        QueueChecks.checkPage(state, offset, limit);
        List<Undecoded<T>> page = new ArrayList<>();
        lock.lock();
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
                case WAITING -> {
                    for (Group group : groups.all()) {
                        group.forEachWaiting(pick);
                    }
                }
                case DELAYED -> {
                    store.delayedInOrder().forEach(pick);
                }
                case ACTIVE -> {
                    List<JobRecord> active = new ArrayList<>();
                    for (JobRecord job : store.all()) {
                        if (job.state == JobState.ACTIVE) {
                            active.add(job);
                        }
                    }
                    active.sort(Comparator.<JobRecord>comparingLong(j -> j.startedAt)
                            .thenComparingLong(j -> j.seq));
                    active.forEach(pick);
                }
                case COMPLETED, FAILED -> store.forEachNewestFirst(state, pick);
            }
            for (JobRecord job : selected) {
                page.add(undecoded(job));
            }
        } finally {
            lock.unlock();
        }
        List<Job<T>> jobs = new ArrayList<>(page.size());
        for (Undecoded<T> job : page) {
            jobs.add(job.job());
        }
        return jobs;
    }

    @Override
    public QueueStats stats() {
        checkOpen();
        lock.lock();
        try {
            return statsOf(countsNow(), stats, clock.nanos());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public QueueStats stats(String groupName) {
        checkOpen();
        QueueChecks.checkLookedUpGroup(groupName);
        lock.lock();
        try {
            Group.Key key = Group.Key.of(groupName);
            Group group = groups.find(key);
            Group.Stats groupStats = groups.statsOf(key);
            long keptCompleted = groupStats == null ? 0 : groupStats.keptCompleted;
            long keptFailed = groupStats == null ? 0 : groupStats.keptFailed;
            JobCounts counts = group == null
                    ? new JobCounts(0, 0, 0, keptCompleted, keptFailed)
                    : new JobCounts(group.waiting, group.delayed, group.active, keptCompleted, keptFailed);
            return statsOf(counts, groupStats == null ? new Group.Stats() : groupStats, clock.nanos());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<String> groups() {
        checkOpen();
        lock.lock();
        try {
            return List.copyOf(groups.namesWithStats());
        } finally {
            lock.unlock();
        }
    }

    private static QueueStats statsOf(JobCounts counts, Group.Stats s, long now) {
        return new QueueStats(
                counts,
                s.added,
                s.completed,
                s.failed,
                s.completions.perSecond(now),
                s.waitTime.summary(),
                s.processingTime.summary());
    }

    // ---------------------------------------------------------------- managing

    @Override
    public void pause() {
        checkOpen();
        lock.lock();
        try {
            paused = true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void resume() {
        checkOpen();
        lock.lock();
        try {
            paused = false;
            workAvailable.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean isPaused() {
        checkOpen();
        lock.lock();
        try {
            return paused;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean remove(String id) {
        checkOpenWithJobId(id);
        Events<T> events;
        lock.lock();
        try {
            JobRecord job = store.get(id);
            if (job == null) {
                return false;
            }
            if (job.state == JobState.ACTIVE) {
                throw new IllegalStateException(
                        "job '" + id + "' of queue '" + name + "' is active; a running job cannot be removed");
            }
            long now = clock.nanos();
            events = events();
            if (job.state == JobState.COMPLETED || job.state == JobState.FAILED) {
                store.removeFinished(job, now);
            } else {
                removeUnstarted(job, now, events);
            }
        } finally {
            lock.unlock();
        }
        fire(events);
        return true;
    }

    /** Removes a waiting or delayed job; a repeatable's pending run is followed by the next ({@code events} given). */
    private void removeUnstarted(JobRecord job, long now, Events<T> events) {
        Group group = groups.group(job);
        if (job.state == JobState.WAITING) {
            group.forgetWaiting();
            waitingCount--;
        } else {
            group.delayed--;
            delayedCount--;
        }
        store.removeUnstarted(job);
        if (blockedProducers > 0) {
            roomAvailable.signalAll();
        }
        groups.releaseIfIdle(group, now);
        if (job.repeatId != null) {
            repeats.removed(job, now, events);
        }
        waiters.removed(job.id);
        signalIfIdle();
    }

    @Override
    public void retry(String id, JobState from) {
        checkOpenWithJobId(id);
        QueueChecks.checkRetryFrom(from);
        lock.lock();
        try {
            JobRecord job = store.get(id);
            if (job == null) {
                throw new JobNotFoundException(name, id);
            }
            if (job.state != from) {
                throw new IllegalStateException("job '" + id + "' of queue '" + name + "' is " + job.state + "; only a "
                        + from + " job can be retried as " + from);
            }
            revive(job, clock.nanos());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int retryFailed() {
        checkOpen();
        lock.lock();
        try {
            List<JobRecord> failed = new ArrayList<>();
            store.forEachNewestFirst(JobState.FAILED, failed::add);
            long now = clock.nanos();
            for (int i = failed.size() - 1; i >= 0; i--) {
                revive(failed.get(i), now);
            }
            return failed.size();
        } finally {
            lock.unlock();
        }
    }

    private void revive(JobRecord job, long now) {
        store.revive(job);
        job.result = null;
        job.attemptsMade = 0;
        job.rateLimits = 0;
        job.failure = null;
        makeWaiting(job, now, false);
    }

    @Override
    public int clean(JobState state, Duration age) {
        checkOpen();
        QueueChecks.checkClean(state, age);
        lock.lock();
        try {
            long now = clock.nanos();
            long cutoff = RetentionRules.cleanCutoff(age, now);
            List<JobRecord> old = new ArrayList<>();
            store.forEachNewestFirst(state, job -> {
                if (job.finishedAt <= cutoff) {
                    old.add(job);
                }
            });
            for (JobRecord job : old) {
                store.removeFinished(job, now);
            }
            return old.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int drain(boolean delayedToo) {
        checkOpen();
        Events<T> events;
        int drained;
        lock.lock();
        try {
            long now = clock.nanos();
            events = events();
            List<JobRecord> doomed = new ArrayList<>();
            for (Group group : groups.all()) {
                group.forEachWaiting(doomed::add);
            }
            if (delayedToo) {
                doomed.addAll(store.delayedJobs());
            }
            for (JobRecord job : doomed) {
                removeUnstarted(job, now, events);
            }
            drained = doomed.size();
        } finally {
            lock.unlock();
        }
        fire(events);
        return drained;
    }

    // ---------------------------------------------------------------- limits

    @Override
    public void setRate(LimitPolicy policy) {
        checkOpen();
        QueueOptions.builder().rate(policy).build();
        lock.lock();
        try {
            if (policy == null) {
                rate = null;
            } else if (rate != null && rate.canAdopt(policy)) {
                rate.update(policy);
            } else {
                rate = new QueueRate(name, policy, clock, 1);
            }
            rateBlockedUntil = Long.MIN_VALUE;
            limitsChanged();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void setConcurrency(int value) {
        checkOpen();
        QueueOptions.builder().concurrency(value).build();
        lock.lock();
        try {
            concurrency = value;
            limitsChanged();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void setGroupDefaults(GroupLimits limits) {
        checkOpen();
        if (limits == null) {
            throw new IllegalArgumentException("group limits must not be null; use GroupLimits.none()");
        }
        lock.lock();
        try {
            groups.setDefaults(limits);
            limitsChanged();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void setGroupLimits(String group, GroupLimits limits) {
        checkOpen();
        JobOptions.builder().group(group);
        if (limits == null) {
            throw new IllegalArgumentException(
                    "limits of group '" + group + "' must not be null; use clearGroupLimits");
        }
        lock.lock();
        try {
            groups.setOwn(group, limits);
            limitsChanged();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void clearGroupLimits(String group) {
        checkOpen();
        JobOptions.builder().group(group);
        lock.lock();
        try {
            groups.clearOwn(group);
            limitsChanged();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public GroupLimits groupLimits(String group) {
        checkOpen();
        QueueChecks.checkLookedUpGroup(group);
        lock.lock();
        try {
            return groups.limitsOf(Group.Key.of(group));
        } finally {
            lock.unlock();
        }
    }

    /** Lets every group be looked at again under the new limits. */
    private void limitsChanged() {
        groups.limitsChanged();
        workAvailable.signalAll();
        roomAvailable.signalAll();
    }

    // ---------------------------------------------------------------- workers and listeners

    @Override
    public Worker<T> worker(Processor<T> processor, WorkerOptions workerOptions) {
        checkOpen();
        QueueChecks.checkWorker(name, processor, workerOptions);
        InMemoryWorker<T> worker = new InMemoryWorker<>(this, processor, workerOptions);
        lock.lock();
        try {
            checkOpen();
            workers.add(worker);
        } finally {
            lock.unlock();
        }
        if (workerOptions.autoStart()) {
            worker.start();
        }
        return worker;
    }

    void forget(InMemoryWorker<T> worker) {
        lock.lock();
        try {
            workers.remove(worker);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void addListener(QueueListener<T> listener) {
        checkOpen();
        QueueChecks.checkListener(listener);
        listeners.add(listener);
    }

    @Override
    public boolean removeListener(QueueListener<T> listener) {
        checkOpen();
        return listeners.remove(listener);
    }

    @Override
    public void addMetrics(QueueMetrics metrics) {
        checkOpen();
        listeners.metrics().add(metrics);
    }

    @Override
    public boolean removeMetrics(QueueMetrics metrics) {
        checkOpen();
        return listeners.metrics().remove(metrics);
    }

    @Override
    public boolean awaitListeners(Duration timeout) throws InterruptedException {
        checkOpen();
        return listeners.awaitTold(QueueChecks.checkAwaitListeners(timeout));
    }

    /** Under the lock, where a critical section starts to record events: see {@link Listeners#batch()}. */
    Events<T> events() {
        return listeners.batch();
    }

    /** After the lock is released: delivers the recorded events, see {@link Listeners#fire}. */
    void fire(Events<T> events) {
        listeners.fire(events);
    }

    ReentrantLock lock() {
        return lock;
    }

    Condition workAvailable() {
        return workAvailable;
    }

    void idleWorkers(int delta) {
        idleWorkers += delta;
    }

    boolean isClosed() {
        return closed;
    }

    /** Refuses a closed engine first, then a null job id, as every call taking a job id does. */
    private void checkOpenWithJobId(String id) {
        checkOpen();
        QueueChecks.checkJobId(id);
    }

    /** Fails if the engine is closed; a volatile read, cheap enough for every call. */
    void checkOpen() {
        if (closed) {
            throw closedEngine();
        }
    }

    private IllegalStateException closedEngine() {
        return Limits.closed(this);
    }

    @Override
    public String toString() {
        return "queue '" + name + "' of " + engine;
    }

    // ---------------------------------------------------------------- snapshots

    /** A snapshot of {@code r}; its payload is null if the codec cannot decode it. */
    /** Under the lock: a snapshot of {@code r} whose payload the codec decodes when it is asked, after the lock. */
    Undecoded<T> undecoded(JobRecord r) {
        return new Undecoded<>(snapshot(r, null), r.payload, codec);
    }

    private Job<T> snapshot(JobRecord r, T payload) {
        return new Job<>(
                r.id,
                r.name,
                payload,
                r.groupKey.name(),
                r.state,
                r.options,
                r.attemptsMade,
                r.rateLimits,
                SluiceClock.toInstant(r.createdAt),
                r.state == JobState.DELAYED ? SluiceClock.toInstant(r.runAt) : null,
                r.attemptCount == 0 ? null : SluiceClock.toInstant(r.startedAt),
                r.state == JobState.COMPLETED || r.state == JobState.FAILED
                        ? SluiceClock.toInstant(r.finishedAt)
                        : null,
                r.progress,
                r.result,
                r.failure,
                r.attempts());
    }

    @Override
    public Optional<byte[]> payloadBytes(String id) {
        checkOpenWithJobId(id);
        lock.lock();
        try {
            JobRecord record = store.get(id);
            return record == null ? Optional.empty() : Optional.of(record.payload.clone());
        } finally {
            lock.unlock();
        }
    }

    void progress(JobRecord job, int token, int percent) {
        Events<T> events;
        lock.lock();
        try {
            events = events();
            if (job.token != token || job.state != JobState.ACTIVE) {
                return;
            }
            job.progress = percent;
            if (Events.listened(events)) {
                Undecoded<T> snapshot = undecoded(job);
                events.add(l -> l.onProgress(snapshot.job(), percent));
            }
        } finally {
            lock.unlock();
        }
        fire(events);
    }
}
