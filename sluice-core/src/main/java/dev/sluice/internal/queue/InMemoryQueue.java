package dev.sluice.internal.queue;

import dev.sluice.internal.limit.Limits;
import dev.sluice.internal.limit.QueueRate;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupInfo;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobPage;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Processor;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueMetrics;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.QueueStats;
import dev.sluice.queue.RepeatableJob;
import dev.sluice.queue.Schedule;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerInfo;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A queue whose jobs live in this JVM.
 *
 * <p>One lock guards everything: every change of state is one critical section, so transitions are atomic
 * and counts always add up. The lock is held for map and deque operations only; payloads are encoded before
 * it is taken and decoded after it is released ({@link Undecoded}), processors, listeners and metrics run outside
 * it. A worker ends one job and takes the next in one critical section.
 *
 * <p>This class is the queue's state and locking, and its API. Its calls by concern
 * are beside it: {@link InMemoryAdds} (adding, waiting for room), {@link InMemoryReads} (jobs, pages, counts,
 * statistics, the waits for outcomes and idleness), {@link InMemoryAdmin} (pause, remove, retry, clean, drain,
 * limits), {@link InMemoryRepeatables} (registering repeatable jobs) and {@link InMemoryAttempts} (a slot's
 * claims, and the ends of attempts). The rest of its state sits beside it, each guarded by the same lock: {@link
 * JobStore} (jobs, delayed, finished, remembered ids), {@link GroupRing} (groups, the ready ring, group limits), {@link Repeats} (repeatable jobs), {@link
 * WakeTimer} (one clock timer for the earliest due time) and {@link Listeners} (events, told after the lock is
 * released). The rules they apply are pure functions of time: {@link AttemptRules}, {@link RetentionRules},
 * {@link RepeatPlanner} and {@link GroupRules}.
 *
 * <p>Once its engine has closed ({@link #closeWorkers}), every method of {@link JobQueue} but {@code name()}
 * and {@code options()} throws {@link Limits#closed}; each checks first, before its arguments.
 */
public final class InMemoryQueue<T> extends QueueFront<T> {
    private static final Duration ENGINE_CLOSE_DEADLINE = Duration.ofSeconds(30);
    static final String QUEUE_KEY = "queue";

    private final Object engine;
    final String name;
    final Codec<T> codec;
    final QueueOptions options;
    final SluiceClock clock;
    final ReentrantLock lock = new ReentrantLock();
    final Condition workAvailable = lock.newCondition();
    final Condition roomAvailable = lock.newCondition();

    /** The workers attached; guarded by the lock. */
    private final AttachedWorkers<QueueWorker<T, InMemoryWorker.Claim>> workers = new AttachedWorkers<>();

    final Group.Stats stats = new Group.Stats();
    long waitingCount;
    long delayedCount;
    long activeCount;
    private long seq;
    private long fronts;
    boolean paused;
    long pausedUntil = Long.MIN_VALUE;
    long rateBlockedUntil = Long.MIN_VALUE;
    int concurrency;
    QueueRate rate;
    int idleWorkers;
    /** The changes that may let a job start so far: see {@link #workMayStart}. */
    private long workChanges;

    int blockedProducers;
    final WakeTimer wakeTimer;
    final JobStore store;
    final GroupRing groups;
    final Repeats<T> repeats;
    /**
     * Set under the lock when the engine closes. Read without it at the start of every call, and again under
     * it by the calls that add jobs, workers, schedules or waiters, so that none is taken after the close.
     */
    volatile boolean closed;

    /** Set, before {@link #closed}, when the queue is obliterated. */
    private volatile boolean obliterated;

    /** What the engine does when the queue is obliterated: it forgets it. */
    private final Consumer<InMemoryQueue<?>> onObliterated;

    final Waiters<T> waiters;

    private final Listeners<T> listeners;

    final InMemoryAdds<T> adds = new InMemoryAdds<>(this);
    private final InMemoryAdmin<T> admin = new InMemoryAdmin<>(this);
    private final InMemoryReads<T> reads = new InMemoryReads<>(this);
    final InMemoryAttempts<T> attempts = new InMemoryAttempts<>(this);
    private final InMemoryRepeatables<T> repeating = new InMemoryRepeatables<>(this);

    /** A queue called {@code name} of {@code engine} (named in errors); the engine has checked the arguments. */
    public InMemoryQueue(Object engine, String name, Codec<T> codec, QueueOptions options, SluiceClock clock) {
        this(engine, name, codec, options, clock, obliterated -> {});
    }

    /**
     * A queue called {@code name} of {@code engine} (named in errors), which {@code onObliterated} hears of when it is
     * obliterated; the engine has checked the arguments.
     */
    public InMemoryQueue(
            Object engine,
            String name,
            Codec<T> codec,
            QueueOptions options,
            SluiceClock clock,
            Consumer<InMemoryQueue<?>> onObliterated) {
        this.onObliterated = onObliterated;
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
                repeating.addRun(repeater, run, now, events);
            }

            @Override
            public void removeUnstarted(JobRecord job, long now) {
                admin.removeUnstarted(job, now, null);
            }
        });
    }

    /** The codec the queue was created with. */
    @Override
    public Codec<T> codec() {
        return codec;
    }

    @Override
    protected SluiceClock clock() {
        return clock;
    }

    /**
     * Refuses every further use, then closes every worker, giving running jobs {@link #ENGINE_CLOSE_DEADLINE} on
     * the engine's clock. Used when the engine closes.
     *
     * @return completes when every worker has closed
     */
    public CompletableFuture<Void> closeWorkers() {
        List<QueueWorker<T, InMemoryWorker.Claim>> all;
        lock.lock();
        try {
            closed = true;
            waiters.closed(closedEngine());
            all = workers.all();
            workMayStart(true);
            roomAvailable.signalAll();
        } finally {
            lock.unlock();
        }
        List<CompletableFuture<Worker.CloseReport>> closing = new ArrayList<>(all.size());
        for (QueueWorker<T, InMemoryWorker.Claim> worker : all) {
            closing.add(worker.closeAsync(ENGINE_CLOSE_DEADLINE));
        }
        return CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new));
    }

    /**
     * Once the engine's close has closed the workers: waits a while for the listeners to hear what happened before
     * (the workers' last endings), unless a listener closes the engine ({@link DeliveryLane#awaitOnClose}).
     */
    public void awaitListenersOnClose() {
        listeners.awaitToldOnClose();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    protected QueueOptions opened() {
        return options;
    }

    // ---------------------------------------------------------------- adding (InMemoryAdds)

    @Override
    protected QueueAdds<T> adds() {
        return adds;
    }

    /** Adds a job; {@code payload} is what {@code p}'s bytes encode, for the event. */
    JobRecord insert(InMemoryAdds.Prepared p, T payload, long now, Events<T> events) {
        String id = p.id() != null ? p.id() : store.newId();
        Group.Key key = Group.Key.of(p.options().group());
        JobRecord record =
                new JobRecord(id, p.name(), p.payload(), key, p.options(), now, p.repeatId(), p.scheduledAt());
        store.put(record);
        record.stats = groups.group(record).stats;
        stats.added++;
        record.stats.added++;
        long delay = p.repeatId() != null
                ? Math.max(0, p.scheduledAt() - now)
                : p.options().delay().toNanos();
        if (delay > 0) {
            makeDelayed(record, now + delay);
        } else {
            makeWaiting(record, now, false);
        }
        if (Events.metered(events)) {
            String group = p.options().group();
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
    void makeWaiting(JobRecord job, long now, boolean atFront) {
        job.state = JobState.WAITING;
        job.readyAt = now;
        job.runAt = 0;
        Group group = groups.group(job);
        if (atFront) {
            job.waitOrder = -(++fronts);
            group.addFirst(job);
        } else {
            job.seq = ++seq;
            job.waitOrder = job.seq;
            group.addLast(job);
        }
        waitingCount++;
        groups.offer(group, now);
        workMayStart(false);
    }

    void makeDelayed(JobRecord job, long runAt) {
        job.state = JobState.DELAYED;
        job.runAt = runAt;
        job.seq = ++seq;
        store.delay(job);
        groups.group(job).delayed++;
        delayedCount++;
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
            workMayStart(true);
        } finally {
            lock.unlock();
        }
        fire(events);
    }

    /** A delayed job, taken out of the store's delayed jobs, becomes waiting at {@code now}. Under the lock. */
    void becomeDue(JobRecord job, long now, Events<T> events) {
        Group group = groups.group(job);
        group.delayed--;
        delayedCount--;
        makeWaiting(job, now, false);
        if (job.repeatId != null) {
            repeats.cameDue(job, now, events);
        }
    }

    /** Promotes due delayed jobs, unparks groups, expires kept jobs and remembered ids. Under the lock. */
    private void runDueWork(long now, Events<T> events) {
        JobRecord job;
        while ((job = store.pollDue(now)) != null) {
            becomeDue(job, now, events);
        }
        groups.unparkDue(now);
        store.expire(now);
    }

    // ---------------------------------------------------------------- repeatable jobs (InMemoryRepeatables)

    @Override
    public RepeatableJob<T> repeat(String id, Schedule schedule, NewJob<T> template) {
        return repeating.repeat(id, schedule, template);
    }

    @Override
    public boolean removeRepeatable(String id) {
        return repeating.removeRepeatable(id);
    }

    @Override
    public List<RepeatableJob<T>> repeatables() {
        return repeating.repeatables();
    }

    // ---------------------------------------------------------------- reading (InMemoryReads)

    @Override
    public Optional<Job<T>> job(String id) {
        return reads.job(id);
    }

    @Override
    public CompletableFuture<Job<T>> whenFinished(String id) {
        return reads.whenFinished(id);
    }

    @Override
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        return reads.awaitIdle(timeout);
    }

    @Override
    public JobCounts counts() {
        return reads.counts();
    }

    @Override
    public List<Job<T>> jobs(JobState state, int offset, int limit) {
        return reads.jobs(state, offset, limit);
    }

    @Override
    public JobPage<T> jobs(JobState state, String cursor, int limit) {
        return new InMemoryPages<>(this).jobs(state, cursor, limit);
    }

    @Override
    public QueueStats stats() {
        return reads.stats();
    }

    @Override
    public QueueStats stats(String groupName) {
        return reads.stats(groupName);
    }

    @Override
    public List<String> groups() {
        return reads.groups();
    }

    @Override
    public List<GroupInfo> groups(String prefix, String after, int limit) {
        return reads.groups(prefix, after, limit);
    }

    /** Under the lock: wakes {@link #awaitIdle} callers if no job waits, is delayed or runs. */
    void signalIfIdle() {
        if (waitingCount + delayedCount + activeCount == 0) {
            waiters.idle();
        }
    }

    // ---------------------------------------------------------------- managing (InMemoryAdmin)

    @Override
    protected QueueAdmin admin() {
        return admin;
    }

    // ---------------------------------------------------------------- workers and listeners

    @Override
    public Worker<T> worker(Processor<T> processor, WorkerOptions workerOptions) {
        checkOpen();
        QueueChecks.checkWorker(name, processor, workerOptions);
        QueueWorker<T, InMemoryWorker.Claim> worker = InMemoryWorker.create(this, processor, workerOptions);
        lock.lock();
        try {
            checkOpen();
            workers.attach(worker, clock.nanos());
        } finally {
            lock.unlock();
        }
        if (workerOptions.autoStart()) {
            worker.start();
        }
        return worker;
    }

    @Override
    public List<WorkerInfo> workers() {
        checkOpen();
        AttachedWorkers<QueueWorker<T, InMemoryWorker.Claim>> attached;
        lock.lock();
        try {
            attached = workers.copy();
        } finally {
            lock.unlock();
        }
        return attached.infos(clock.instant());
    }

    @Override
    public void obliterate(boolean force) {
        checkOpen();
        List<QueueWorker<T, InMemoryWorker.Claim>> attached;
        lock.lock();
        try {
            attached = workers.all();
            List<String> taking = workers.taking();
            if (!force && !taking.isEmpty()) {
                throw QueueChecks.workersAttached(name, taking);
            }
        } finally {
            lock.unlock();
        }
        List<CompletableFuture<Worker.CloseReport>> closing = new ArrayList<>(attached.size());
        for (QueueWorker<T, InMemoryWorker.Claim> worker : attached) {
            closing.add(worker.closeAsync(Duration.ZERO));
        }
        closing.forEach(CompletableFuture::join);
        lock.lock();
        try {
            checkOpen();
            obliterated = true;
            closed = true;
            waiters.obliterated(QueueChecks.obliterated(name));
            workMayStart(true);
            roomAvailable.signalAll();
            wakeTimer.cancel();
        } finally {
            lock.unlock();
        }
        stopFollowingGauges();
        onObliterated.accept(this);
    }

    void forget(QueueWorker<T, InMemoryWorker.Claim> worker) {
        lock.lock();
        try {
            workers.detach(worker);
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

    /**
     * Under the lock: something changed that may let a job start; wakes one idle slot ({@code all}: every one). Each
     * call counts ({@link #workChanges}), so that a slot whose claim found nothing waits only if nothing changed
     * since.
     */
    void workMayStart(boolean all) {
        workChanges++;
        if (idleWorkers > 0) {
            if (all) {
                workAvailable.signalAll();
            } else {
                workAvailable.signal();
            }
        }
    }

    /** Under the lock: how many changes that may let a job start there were ({@link #workMayStart}). */
    long workChanges() {
        return workChanges;
    }

    void idleWorkers(int delta) {
        idleWorkers += delta;
    }

    @Override
    protected boolean isClosed() {
        return closed;
    }

    /** Refuses a closed engine first, then a null job id, as every call taking a job id does. */
    void checkOpenWithJobId(String id) {
        checkOpen();
        QueueChecks.checkJobId(id);
    }

    /** Fails if the engine is closed; a volatile read, cheap enough for every call. */
    @Override
    protected void checkOpen() {
        if (closed) {
            throw obliterated ? QueueChecks.obliterated(name) : closedEngine();
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

    /** Under the lock: a snapshot of {@code r} whose payload the codec decodes when it is asked, after the lock. */
    Undecoded<T> undecoded(JobRecord r) {
        return new Undecoded<>(snapshot(r, null), r.payload, codec);
    }

    @Override
    public Optional<byte[]> payloadBytes(String id) {
        return reads.payloadBytes(id);
    }

    /** A snapshot of {@code r} with {@code payload}. */
    Job<T> snapshot(JobRecord r, T payload) {
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
}
