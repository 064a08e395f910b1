package dev.sluice.redis.internal;

import dev.sluice.SluiceException;
import dev.sluice.internal.limit.Limits;
import dev.sluice.internal.queue.MetricsSet;
import dev.sluice.internal.queue.QueueAdds;
import dev.sluice.internal.queue.QueueAdmin;
import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.internal.queue.QueueFront;
import dev.sluice.internal.queue.QueueWorker;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupInfo;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobPage;
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
import io.lettuce.core.KeyValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue whose jobs live in Redis, shared by every process that opens it. Each call is one call of the queue
 * script ({@link QueueScript}), which keeps the queue's state consistent on its own; this class encodes the
 * arguments, decodes the replies, and tells this process's waiting workers what its own calls did; its listeners,
 * and whoever waits for an outcome, hear every process's events through {@link QueueEvents}. Beside it, by concern:
 * the calls of the script ({@link QueueCalls}), adding ({@link RedisAdds}), managing and limits ({@link RedisAdmin}),
 * listeners ({@link QueueListeners}), outcomes and idle waits ({@link RedisOutcomes}), statistics ({@link
 * RedisStats}), repeatable jobs ({@link RedisRepeats}) and the decoding of job snapshots ({@link JobSnapshots}).
 */
final class RedisJobQueue<T> extends QueueFront<T> {
    private static final Logger LOG = LoggerFactory.getLogger(RedisJobQueue.class);

    /** How often a process looks at Redis for work other processes made, while it has nothing else to go on. */
    static final long POLL_MILLIS = 50;

    private static final long NEVER = 1L << 53;

    final RedisEngine engine;
    final String name;
    private final Codec<T> codec;
    private final QueueOptions options;
    /** The settings this process knows, which it restores should Redis lose them. */
    final QueueSettings settings;

    final byte[] key;
    final JobOptionsText optionsText;
    /** Decodes the jobs the script replies. */
    final JobSnapshots<T> snapshots;
    /** The values of each job an add sends. */
    final AddFields addFields;

    final RedisRepeats<T> repeats;
    /** The adds of this process's producers, in the order they were called. */
    private final RedisAdds<T> adds;

    final QueueEvents<T> events;
    /** The calls of the queue script. */
    final QueueCalls<T> calls;
    /** Waits in Redis for work while this process's workers have none. */
    final WorkWatcher watcher;
    /** Waits in Redis for room while this process's producers wait for it. */
    final WorkWatcher roomWatcher;

    private final Set<QueueWorker<T, ClaimedJob<T>>> workers = ConcurrentHashMap.newKeySet();
    /** This process's listeners of the queue. */
    final QueueListeners<T> listeners;
    /** Pausing, removing, retrying, cleaning, draining, limits. */
    private final RedisAdmin<T> admin = new RedisAdmin<>(this);
    /** Whoever in this process waits for a job's outcome or for the queue to be idle. */
    private final RedisOutcomes<T> outcomes;
    /** Jobs whose ending a worker of this process is recording now: a watcher that misses them waits for it. */
    final Set<String> finishing = ConcurrentHashMap.newKeySet();
    /** Signalled when a call of this process may have made room or ended jobs: waiting producers and callers look again. */
    private final Object changed = new Object();
    /** The idle slots of this process's workers, woken as many at a time as jobs may start. */
    final IdleSlots idleSlots;

    private long changes;
    volatile boolean closed;
    /** Set, before {@link #closed}, when this process obliterated the queue. */
    volatile boolean obliterated;

    private RedisJobQueue(RedisEngine engine, String name, Codec<T> codec, QueueOptions options) {
        this.engine = engine;
        this.idleSlots = new IdleSlots(engine.connection.timer());
        this.name = name;
        this.metrics = new MetricsSet(name);
        this.codec = codec;
        this.options = options;
        this.settings = new QueueSettings(name, codec.name());
        this.key = bytes(RedisKeys.queueBase(engine.keyPrefix(), name));
        this.optionsText = new JobOptionsText(name);
        this.snapshots = new JobSnapshots<>(codec, optionsText);
        this.addFields = new AddFields(optionsText);
        this.repeats = new RedisRepeats<>(this);
        this.events = new QueueEvents<>(this);
        this.listeners = new QueueListeners<>(this, events);
        this.calls = new QueueCalls<>(this);
        this.watcher = new WorkWatcher(this, "mk", "work", () -> idleSlots.announce(1));
        this.roomWatcher = new WorkWatcher(this, "rm", "room", this::stateChanged);
        this.adds = new RedisAdds<>(this);
        this.outcomes = new RedisOutcomes<>(this);
    }

    /** Opens queue {@code name}: its configuration is written to Redis, and its codec checked against the stored one. */
    static <T> RedisJobQueue<T> open(RedisEngine engine, String name, Codec<T> codec, QueueOptions options) {
        String rate = RateText.encode(options.rate());
        String groupRate = RateText.encode(options.groupDefaults().rate());
        RedisJobQueue<T> queue = new RedisJobQueue<>(engine, name, codec, options);
        GroupLimits defaults = options.groupDefaults();
        QueueOptions plain = QueueOptions.defaults();
        GroupLimits plainGroups = plain.groupDefaults();
        String[] given = {
            given(options.concurrency(), plain.concurrency()),
            given(options.maxQueued(), plain.maxQueued()),
            given(defaults.concurrency(), plainGroups.concurrency()),
            given(defaults.maxQueued(), plainGroups.maxQueued()),
            rate.isEmpty() ? "?" : "=" + rate,
            groupRate.isEmpty() ? "?" : "=" + groupRate
        };
        String[] args = new String[2 + given.length];
        args[0] = codec.name();
        args[1] = QueueSettings.candidateEpoch();
        System.arraycopy(given, 0, args, 2, given.length);
        List<Object> stored = Replies.list(queue.calls.call(true, "open", args));
        String storedCodec = Replies.text(stored.get(0));
        if (!storedCodec.equals(codec.name())) {
            throw QueueChecks.otherCodec(name, "in Redis was created", storedCodec, codec.name());
        }
        queue.settings.epoch(Replies.text(stored.get(1)));
        queue.settings.opened(options, given, Replies.number(stored.get(2)));
        return queue;
    }

    /**
     * An option as {@code open} writes it: given by the opener ({@code =}, for every process), or the default
     * ({@code ?}: kept if the queue has a value already, which another process or a {@code set...} call wrote).
     */
    private static String given(int value, int defaultValue) {
        return (value == defaultValue ? "?" : "=") + value;
    }

    @Override
    public Codec<T> codec() {
        return codec;
    }

    /**
     * Queue {@code name} as it exists in Redis, opened without writing anything: with a codec of the stored codec's
     * name that reads and writes payloads' bytes as they are; empty if Redis holds no such queue.
     */
    static Optional<RedisJobQueue<byte[]>> existing(RedisEngine engine, String name) {
        byte[] meta = bytes(RedisKeys.queueBase(engine.keyPrefix(), name) + ":m");
        List<KeyValue<byte[], byte[]>> stored =
                engine.await(engine.connection.keys.hmget(meta, bytes("codec"), bytes("epoch")));
        if (!stored.get(0).hasValue()) {
            return Optional.empty();
        }
        String codecName = new String(stored.get(0).getValue(), StandardCharsets.UTF_8);
        Codec<byte[]> asStored = Codec.of(codecName, payload -> payload, payload -> payload);
        RedisJobQueue<byte[]> queue = new RedisJobQueue<>(engine, name, asStored, QueueOptions.defaults());
        queue.settings.epoch(
                stored.get(1).hasValue() ? new String(stored.get(1).getValue(), StandardCharsets.UTF_8) : "");
        return Optional.of(queue);
    }

    @Override
    protected SluiceClock clock() {
        return engine.clock();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    protected QueueOptions opened() {
        return options;
    }

    // ---------------------------------------------------------------- encoding

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Whole microseconds in {@code d}, the resolution of the queue's time in Redis: rounded down, so that a job
     * due {@code d} after a time is due when the clock has moved by {@code d}; a positive wait is at least 1 µs.
     */
    static long micros(Duration d) {
        long seconds = d.getSeconds();
        if (seconds > 100L * 365 * 24 * 3600) {
            return NEVER / 2;
        }
        long micros = seconds * 1_000_000 + d.getNano() / 1000;
        return micros == 0 && !d.isZero() ? 1 : micros;
    }

    // ---------------------------------------------------------------- adding

    @Override
    protected QueueAdds<T> adds() {
        return adds;
    }

    // ---------------------------------------------------------------- signals

    /** Tells this process's waiting workers and producers to look again. */
    void signal() {
        stateChanged();
        idleSlots.announce(IdleSlots.ALL);
    }

    /** Tells this process's waiting producers and callers (not its idle workers) to look again. */
    void stateChanged() {
        synchronized (changed) {
            changes++;
            changed.notifyAll();
        }
    }

    /** The count of signals so far, to wait for the next with {@link #awaitChangeAfter}. */
    long changes() {
        synchronized (changed) {
            return changes;
        }
    }

    /** Waits for a signal after {@code seen}, for {@code millis} at most ({@code Long.MAX_VALUE}: no limit). */
    void awaitChangeAfter(long seen, long millis) throws InterruptedException {
        synchronized (changed) {
            long start = System.nanoTime();
            long most = millis == Long.MAX_VALUE ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(millis);
            while (changes == seen) {
                long left = most - (System.nanoTime() - start);
                if (left <= 0) {
                    return;
                }
                TimeUnit.NANOSECONDS.timedWait(changed, left);
            }
        }
    }

    // ---------------------------------------------------------------- listeners

    /**
     * Whether anyone in this process hears how jobs end: a listener, or a caller waiting for an outcome or for the
     * queue to be idle. If not, a worker's endings need not bring their jobs back (and then none of a call's
     * endings does, so that the events a call builds are always the last it made).
     */
    boolean hearsEndings() {
        return listeners.any() || outcomes.anyAwaited() || events.held();
    }

    /** A job of this queue finished as {@code job} shows: tells whoever waits for it. */
    void finished(Job<T> job) {
        outcomes.finished(job);
    }

    /** A job of this queue was taken out before it finished, by a call of any process: whoever waits for it is told. */
    void removedBeforeFinishing(String id) {
        outcomes.removedBeforeFinishing(id);
    }

    /** Events were missed: whoever waits for a job's outcome, or for the queue to be idle, looks again. */
    void eventsMissed() {
        outcomes.eventsMissed();
    }

    /** Whether someone in this process waits for job {@code id}'s outcome. */
    boolean awaits(String id) {
        return outcomes.awaits(id);
    }

    /** Whether a thread that reads this queue's events, current or stopped lately, is alive (for tests). */
    boolean eventThreadsAlive() {
        return events.threadsAlive();
    }

    /**
     * Adds {@code listener}; from now on it hears the events of every process, which this process reads from
     * Redis while it has listeners.
     *
     * @throws SluiceException if Redis cannot be reached to start listening (the listener is not added)
     */
    @Override
    public void addListener(QueueListener<T> listener) {
        checkOpen();
        QueueChecks.checkListener(listener);
        listeners.add(listener);
    }

    @Override
    public boolean awaitListeners(Duration timeout) throws InterruptedException {
        checkOpen();
        return events.awaitTold(QueueChecks.checkAwaitListeners(timeout));
    }

    @Override
    public void addMetrics(QueueMetrics metrics) {
        checkOpen();
        this.metrics.add(metrics);
    }

    @Override
    public boolean removeMetrics(QueueMetrics metrics) {
        checkOpen();
        return this.metrics.remove(metrics);
    }

    @Override
    public boolean removeListener(QueueListener<T> listener) {
        checkOpen();
        return listeners.remove(listener);
    }

    // ---------------------------------------------------------------- reading

    @Override
    public Optional<Job<T>> job(String id) {
        checkOpen();
        QueueChecks.checkJobId(id);
        Object reply = calls.call(false, "get", id);
        return reply == null ? Optional.empty() : Optional.of(snapshot(reply, null, false));
    }

    @Override
    public Optional<byte[]> payloadBytes(String id) {
        checkOpen();
        QueueChecks.checkJobId(id);
        Object reply = calls.call(false, "get", id);
        return reply == null
                ? Optional.empty()
                : Optional.of(Replies.bytes(SnapshotField.PAYLOAD.of(Replies.list(reply))));
    }

    @Override
    public CompletableFuture<Job<T>> whenFinished(String id) {
        checkOpen();
        QueueChecks.checkJobId(id);
        return outcomes.whenFinished(id);
    }

    @Override
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        checkOpen();
        QueueChecks.checkAwaitIdle(timeout);
        return outcomes.awaitIdle(timeout);
    }

    @Override
    public JobCounts counts() {
        checkOpen();
        List<Object> c = Replies.list(calls.call(false, "counts"));
        return new JobCounts(
                Replies.number(c.get(0)),
                Replies.number(c.get(1)),
                Replies.number(c.get(2)),
                Replies.number(c.get(3)),
                Replies.number(c.get(4)));
    }

    @Override
    public List<Job<T>> jobs(JobState state, int offset, int limit) {
        checkOpen();
        QueueChecks.checkPage(state, offset, limit);
        List<Object> reply = Replies.list(
                calls.call(false, "jobs", state.name(), Integer.toString(offset), Integer.toString(limit)));
        List<Job<T>> page = new ArrayList<>(reply.size());
        for (Object job : reply) {
            page.add(snapshot(job, null, false));
        }
        return page;
    }

    @Override
    public JobPage<T> jobs(JobState state, String cursor, int limit) {
        checkOpen();
        return RedisJobPages.page(this, state, QueueChecks.checkCursorPage(state, cursor, limit), limit);
    }

    /** This process's metrics of the queue, told by its adds and its workers. */
    final MetricsSet metrics;
    /** The statistics: what this process's workers measured, and the queue's as Redis holds them. */
    final RedisStats stats = new RedisStats(this);

    @Override
    public QueueStats stats() {
        checkOpen();
        return stats.stats();
    }

    @Override
    public QueueStats stats(String group) {
        checkOpen();
        QueueChecks.checkLookedUpGroup(group);
        return stats.stats(group);
    }

    @Override
    public List<String> groups() {
        checkOpen();
        return stats.groups();
    }

    @Override
    public List<GroupInfo> groups(String prefix, String after, int limit) {
        checkOpen();
        QueueChecks.checkGroupPage(prefix, limit);
        return admin.groupInfos(QueueChecks.groupPage(stats.groups(), prefix, after, limit));
    }

    // ---------------------------------------------------------------- managing (RedisAdmin)

    @Override
    protected QueueAdmin admin() {
        return admin;
    }

    // ---------------------------------------------------------------- repeatable jobs

    @Override
    public RepeatableJob<T> repeat(String id, Schedule schedule, NewJob<T> template) {
        checkOpen();
        QueueChecks.checkRepeat(id, schedule, template);
        return repeats.register(id, schedule, template, adds.prepare(template, -1));
    }

    @Override
    public boolean removeRepeatable(String id) {
        checkOpen();
        if (id == null) {
            throw new IllegalArgumentException("repeatable job id must not be null");
        }
        return repeats.remove(id);
    }

    @Override
    public List<RepeatableJob<T>> repeatables() {
        checkOpen();
        return repeats.views();
    }

    // ---------------------------------------------------------------- workers

    @Override
    public Worker<T> worker(Processor<T> processor, WorkerOptions workerOptions) {
        checkOpen();
        QueueChecks.checkWorker(name, processor, workerOptions);
        QueueWorker<T, ClaimedJob<T>> worker = RedisWorker.create(this, processor, workerOptions);
        workers.add(worker);
        if (closed) {
            workers.remove(worker);
            throw Limits.closed(this);
        }
        if (workerOptions.autoStart()) {
            worker.start();
        }
        return worker;
    }

    void forget(QueueWorker<T, ClaimedJob<T>> worker) {
        workers.remove(worker);
    }

    @Override
    public List<WorkerInfo> workers() {
        checkOpen();
        List<WorkerInfo> infos = new ArrayList<>();
        for (Object row : Replies.list(calls.call(false, "workers"))) {
            List<Object> w = Replies.list(row);
            long leaseEnds = Replies.number(w.get(6));
            List<String> running = new ArrayList<>();
            for (Object id : w.subList(7, w.size())) {
                running.add(Replies.text(id));
            }
            infos.add(new WorkerInfo(
                    Replies.text(w.get(0)),
                    Replies.text(w.get(1)),
                    Replies.number(w.get(2)),
                    (int) Replies.number(w.get(3)),
                    running,
                    instant(Replies.number(w.get(4))),
                    instant(Replies.number(w.get(5))),
                    leaseEnds < 0 ? null : instant(leaseEnds)));
        }
        return infos;
    }

    /** The instant of a time the script replied, in microseconds since the epoch. */
    private static Instant instant(long micros) {
        return SluiceClock.toInstant(Math.multiplyExact(micros, 1000L));
    }

    @Override
    public void obliterate(boolean force) {
        checkOpen();
        List<Object> reply = Replies.list(calls.call(true, "obliterate", force ? "1" : "0"));
        if (!Replies.text(reply.get(0)).equals("ok")) {
            List<String> attached = new ArrayList<>();
            for (Object worker : reply.subList(1, reply.size())) {
                attached.add(Replies.text(worker));
            }
            throw QueueChecks.workersAttached(name, attached);
        }
        List<CompletableFuture<Worker.CloseReport>> closing = new ArrayList<>();
        for (QueueWorker<T, ClaimedJob<T>> worker : workers) {
            closing.add(worker.closeAsync(Duration.ZERO));
        }
        closing.forEach(CompletableFuture::join);
        obliterated = true;
        closed = true;
        stopFollowingGauges();
        signal();
        watcher.stop();
        roomWatcher.stop();
        idleSlots.stop();
        outcomes.obliterated();
        events.close();
        engine.obliterate(this);
    }
    /** Refuses every further use, then closes every worker with a 30 s deadline; used when the engine closes. */
    CompletableFuture<Void> closeWorkers() {
        closed = true;
        signal();
        watcher.stop();
        roomWatcher.stop();
        idleSlots.stop();
        List<CompletableFuture<Worker.CloseReport>> closing = new ArrayList<>();
        for (QueueWorker<T, ClaimedJob<T>> worker : workers) {
            closing.add(worker.closeAsync(Duration.ofSeconds(30)));
        }
        outcomes.closed();
        return CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new));
    }

    /** Stops reading events, once the workers closed (listeners hear the jobs they finish while closing). */
    void closeEvents() {
        events.close();
    }

    @Override
    protected boolean isClosed() {
        return closed;
    }

    @Override
    protected void checkOpen() {
        if (closed) {
            throw obliterated ? QueueChecks.obliterated(name) : Limits.closed(this);
        }
    }

    @Override
    public String toString() {
        return "queue '" + name + "' of " + engine;
    }

    // ---------------------------------------------------------------- snapshots

    /**
     * The job a script replied; {@code payload} is its decoded payload if the caller has it, else the reply's
     * bytes are decoded (null if the codec cannot). See {@link JobSnapshots}.
     */
    Job<T> snapshot(Object reply, T payload, boolean payloadGiven) {
        return snapshots.decode(reply, payload, payloadGiven);
    }
}
