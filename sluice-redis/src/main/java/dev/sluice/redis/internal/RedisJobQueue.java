package dev.sluice.redis.internal;

import dev.sluice.SluiceException;
import dev.sluice.internal.limit.Limits;
import dev.sluice.internal.queue.MetricsSet;
import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.internal.queue.RetentionRules;
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
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueMetrics;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.QueueStats;
import dev.sluice.queue.RepeatableJob;
import dev.sluice.queue.Schedule;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.SluiceClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A queue whose jobs live in Redis, shared by every process that opens it. Each call is one call of the queue
 * script ({@link QueueScript}), which keeps the queue's state consistent on its own; this class encodes the
 * arguments, decodes the replies, and tells this process's waiting workers what its own calls did; its listeners,
 * and whoever waits for an outcome, hear every process's events through {@link QueueEvents}.
 */
final class RedisJobQueue<T> implements JobQueue<T> {
    private static final Logger LOG = LoggerFactory.getLogger(RedisJobQueue.class);

    /** How often a process looks at Redis for work other processes made, while it has nothing else to go on. */
    static final long POLL_MILLIS = 50;

    private static final long NEVER = 1L << 53;

    final RedisEngine engine;
    private final String name;
    private final Codec<T> codec;
    private final QueueOptions options;
    /** The settings this process knows, which it restores should Redis lose them. */
    final QueueSettings settings;

    final byte[] key;
    final JobOptionsText optionsText;
    /** The values of each job an add sends. */
    final AddFields addFields;

    private final RedisRepeats<T> repeats;
    /** The adds of this process's producers, in the order they were called. */
    private final RedisAdds<T> adds;

    final QueueEvents<T> events;
    /** Waits in Redis for work while this process's workers have none. */
    final WorkWatcher watcher;
    /** Waits in Redis for room while this process's producers wait for it. */
    final WorkWatcher roomWatcher;

    private final Set<RedisWorker<T>> workers = ConcurrentHashMap.newKeySet();
    private final List<Listening<T>> listeners = new CopyOnWriteArrayList<>();
    /** Whoever in this process waits for a job's outcome or for the queue to be idle. */
    private final RedisOutcomes<T> outcomes;
    /** Jobs whose ending a worker of this process is recording now: a watcher that misses them waits for it. */
    final Set<String> finishing = ConcurrentHashMap.newKeySet();
    /** Signalled when a call of this process may have made work or room: waiting workers and producers look again. */
    private final Object changed = new Object();

    private long changes;
    volatile boolean closed;

    private RedisJobQueue(RedisEngine engine, String name, Codec<T> codec, QueueOptions options) {
        this.engine = engine;
        this.name = name;
        this.metrics = new MetricsSet(name);
        this.codec = codec;
        this.options = options;
        this.settings = new QueueSettings(name, codec.name());
        this.key = bytes(RedisKeys.queueBase(engine.keyPrefix(), name));
        this.optionsText = new JobOptionsText(name);
        this.addFields = new AddFields(optionsText);
        this.repeats = new RedisRepeats<>(this);
        this.events = new QueueEvents<>(this);
        this.watcher = new WorkWatcher(this, "mk", "work");
        this.roomWatcher = new WorkWatcher(this, "rm", "room");
        this.adds = new RedisAdds<>(this);
        this.outcomes = new RedisOutcomes<>(this);
    }

    /** Opens queue {@code name}: its configuration is written to Redis, and its codec checked against the stored one. */
    static <T> RedisJobQueue<T> open(RedisEngine engine, String name, Codec<T> codec, QueueOptions options) {
        String rate = RateText.encode("queue '" + name + "'", options.rate());
        String groupRate = RateText.encode(
                "queue '" + name + "', group defaults", options.groupDefaults().rate());
        RedisJobQueue<T> queue = new RedisJobQueue<>(engine, name, codec, options);
        GroupLimits defaults = options.groupDefaults();
        QueueOptions plain = QueueOptions.defaults();
        GroupLimits plainGroups = plain.groupDefaults();
        String[] given = {
            given(options.concurrency(), plain.concurrency()),
            given(options.maxWaiting(), plain.maxWaiting()),
            given(defaults.concurrency(), plainGroups.concurrency()),
            given(defaults.maxWaiting(), plainGroups.maxWaiting()),
            rate.isEmpty() ? "?" : "=" + rate,
            groupRate.isEmpty() ? "?" : "=" + groupRate
        };
        String[] args = new String[2 + given.length];
        args[0] = codec.name();
        args[1] = QueueSettings.candidateEpoch();
        System.arraycopy(given, 0, args, 2, given.length);
        List<Object> stored = Replies.list(queue.call(true, "open", args));
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

    Codec<T> codec() {
        return codec;
    }

    SluiceClock clock() {
        return engine.clock();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public QueueOptions options() {
        return options;
    }

    // ---------------------------------------------------------------- calls

    /** The script's time argument: empty for Redis's own clock, else the test clock in epoch microseconds. */
    String now() {
        long nanos = engine.scriptNow();
        return nanos == LimitScript.REDIS_TIME ? "" : Long.toString(Math.floorDiv(nanos, 1000));
    }

    Object call(boolean changes, String command, String... args) {
        return call(changes, arguments(command, args));
    }

    /**
     * One call of the queue script.
     *
     * @throws IllegalStateException if the engine closed meanwhile (the call may have failed for that reason)
     * @throws SluiceException if Redis is unavailable or refuses
     */
    Object call(boolean changes, byte[][] arguments) {
        List<Object> reply;
        try {
            reply = settled(arguments, sent -> engine.queueCall(key, sent, changes), r -> r);
        } catch (SluiceException e) {
            throw closedOr(e);
        }
        return repeatsAfter(reply);
    }

    /**
     * What {@code send} answers for {@code arguments}, sent with the epoch of the queue's settings if their command
     * relies on them; should the script refuse them because Redis lost the settings, this process restores those it
     * knows and sends them again ({@link QueueSettings}).
     */
    private <R> R settled(byte[][] arguments, Function<byte[][], R> send, Function<R, List<Object>> replyOf) {
        for (int attempt = 1; ; attempt++) {
            byte[][] sent = settings.withEpoch(arguments);
            R answer = send.apply(sent);
            if (!QueueSettings.asksRestore(replyOf.apply(answer).get(0))) {
                return answer;
            }
            settings.restore(
                    QueueSettings.epochOf(sent),
                    attempt,
                    args -> engine.queueCall(key, arguments("restore", args), true)
                            .get(0));
            signal();
        }
    }

    /** The command's reply; first, if the call left events of repeatable jobs, plans their next runs. */
    private Object repeatsAfter(List<Object> reply) {
        if (Replies.number(reply.get(1)) > 0) {
            repeats.planPending();
        }
        return reply.get(0);
    }

    /** {@code failure}, or the closed engine's exception if the engine closed meanwhile. */
    private RuntimeException closedOr(SluiceException failure) {
        if (closed || engine.isClosed()) {
            IllegalStateException closedEngine = Limits.closed(this);
            closedEngine.addSuppressed(failure);
            return closedEngine;
        }
        return failure;
    }

    /**
     * A reply, the place of its call among the calls whose events listeners hear, and, for a call {@link
     * #callConfirmed confirmed} on replicas, null if they acknowledged it, else by how many they fell short.
     */
    record Sequenced(Object reply, long ticket, ReplicaWait.Shortfall shortfall) {}

    /**
     * A call that may make events this process's listeners hear: the caller hands the events it builds from the
     * reply to {@link #deliver} with the ticket, whatever happens (an empty list if none).
     */
    Sequenced callInOrder(boolean changes, byte[][] arguments) {
        return callInOrder(changes, arguments, false);
    }

    /**
     * As {@link #callInOrder}, for an add or a job's ending: when the engine waits for replicas
     * ({@code waitForReplicas}), it returns once they acknowledged the call, or the wait's timeout passed.
     */
    Sequenced callConfirmed(byte[][] arguments) {
        return callInOrder(true, arguments, true);
    }

    private Sequenced callInOrder(boolean changes, byte[][] arguments, boolean confirmed) {
        long ticket = events.ticket();
        try {
            List<Object> reply;
            ReplicaWait.Shortfall shortfall = null;
            if (confirmed) {
                RedisEngine.ConfirmedReply answer = settled(
                        arguments,
                        sent -> engine.queueReplyConfirmed(engine.queueSendConfirmed(key, sent), key, sent, changes),
                        RedisEngine.ConfirmedReply::reply);
                reply = answer.reply();
                shortfall = answer.shortfall();
            } else {
                reply = settled(arguments, sent -> engine.queueCall(key, sent, changes), r -> r);
            }
            if (Replies.number(reply.get(1)) > 0) {
                // planned once this call's events are told: planning calls come after it in the order of events
                PLAN_AFTER_DELIVERY.set(true);
            }
            events.replied(ticket, reply);
            return new Sequenced(reply.get(0), ticket, shortfall);
        } catch (SluiceException e) {
            deliver(ticket, List.of());
            throw closedOr(e);
        } catch (RuntimeException e) {
            deliver(ticket, List.of());
            throw e;
        }
    }

    /**
     * Places the events of call {@code ticket} among the queue's events (of every process), for the listeners to be
     * told in their order on the queue's own thread. Inside {@link #holding} the placing is held back until the
     * combiner let go, with the planning of repeatable jobs' runs the call listed.
     */
    void deliver(long ticket, List<Consumer<QueueListener<T>>> built) {
        boolean plan = PLAN_AFTER_DELIVERY.get();
        PLAN_AFTER_DELIVERY.set(false);
        Delivery delivery = new Delivery(events.settle(ticket, built), plan);
        Held held = HELD.get();
        if (held != null) {
            held.deliveries().add(delivery);
        } else {
            tell(delivery);
        }
    }

    /** Tells this process's metrics of a change: now, or, inside {@link #holding}, once the combiner let go. */
    void measure(Runnable telling) {
        Held held = HELD.get();
        if (held != null) {
            held.measures().add(telling);
        } else {
            telling.run();
        }
    }

    private static final ThreadLocal<Boolean> PLAN_AFTER_DELIVERY = ThreadLocal.withInitial(() -> false);

    /**
     * What telling a call's events takes, once they are placed in order: the listeners' thread told of those through
     * {@code target} (see {@link QueueEvents#tellThrough}), then the pending runs of repeatable jobs planned if the
     * call listed some.
     */
    record Delivery(long target, boolean plan) {}

    /**
     * What a combined call held back for after the combiner let it go: the deliveries of its events, which every
     * thread whose request it carried tells, and the telling of this process's metrics, which one of them runs.
     */
    record Held(List<Delivery> deliveries, List<Runnable> measures) {}

    /** What this thread holds back while it sends a combined call for other threads too. */
    private static final ThreadLocal<Held> HELD = new ThreadLocal<>();

    /** Tells the events of a call whose delivery was held, and plans what it listed; see {@link #holding}. */
    void tell(Delivery delivery) {
        events.tellThrough(delivery.target());
        if (delivery.plan()) {
            repeats.planPending();
        }
    }

    /**
     * Runs {@code send}, a combined call that other threads wait for, holding back the telling of its events and
     * metrics: listeners and metrics are user code, which may itself add jobs (through the combiner this thread
     * leads) and so could wait for this thread while this thread waited for them. Returns what was held: each
     * thread whose request the call carried {@link #tell}s the deliveries once the combiner has let it go, and one
     * of them runs the measures.
     */
    Held holding(Runnable send) {
        Held outer = HELD.get();
        Held held = new Held(new ArrayList<>(1), new ArrayList<>());
        HELD.set(held);
        try {
            send.run();
        } finally {
            HELD.set(outer);
        }
        return held;
    }

    byte[][] arguments(String command, String... args) {
        byte[][] out = new byte[args.length + 2][];
        out[0] = bytes(command);
        out[1] = bytes(now());
        for (int i = 0; i < args.length; i++) {
            out[i + 2] = bytes(args[i]);
        }
        return out;
    }

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
    public Added<T> add(String jobName, T payload, JobOptions jobOptions) {
        checkOpen();
        return adds.add(new NewJob<>(jobName, payload, jobOptions));
    }

    @Override
    public List<Added<T>> addBulk(List<NewJob<T>> jobs) {
        checkOpen();
        return adds.addBulk(jobs);
    }

    @Override
    public CompletableFuture<Added<T>> addAsync(String jobName, T payload, JobOptions jobOptions) {
        checkOpen();
        return adds.addAsync(new NewJob<>(jobName, payload, jobOptions));
    }

    @Override
    public CompletableFuture<List<Added<T>>> addBulkAsync(List<NewJob<T>> jobs) {
        checkOpen();
        return adds.addBulkAsync(jobs);
    }

    // ---------------------------------------------------------------- signals

    /** Tells this process's waiting workers and producers to look again. */
    void signal() {
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

    /** A listener, and the number of the last event before it was added: it hears the events after it. */
    private static final class Listening<T> {
        final QueueListener<T> listener;
        volatile long after = Long.MAX_VALUE;

        Listening(QueueListener<T> listener) {
            this.listener = listener;
        }
    }

    /** Tells every listener added before event {@code number} happened. */
    void tell(Consumer<QueueListener<T>> event, long number) {
        for (Listening<T> l : listeners) {
            if (number > l.after) {
                tell(l.listener, event);
            }
        }
    }

    /**
     * Whether anyone in this process hears how jobs end: a listener, or a caller waiting for an outcome or for the
     * queue to be idle. If not, a worker's endings need not bring their jobs back (and then none of a call's
     * endings does, so that the events a call builds are always the last it made).
     */
    boolean hearsEndings() {
        return !listeners.isEmpty() || outcomes.anyAwaited() || events.held();
    }

    /** Tells every listener how many of the events {@code from} to {@code through} it missed. */
    void tellMissed(long from, long through) {
        for (Listening<T> l : listeners) {
            long count = through - Math.max(from - 1, l.after);
            if (count > 0) {
                tell(l.listener, listener -> listener.onEventsMissed(count));
            }
        }
    }

    private void tell(QueueListener<T> listener, Consumer<QueueListener<T>> event) {
        try {
            event.accept(listener);
        } catch (Throwable e) {
            LOG.warn("a listener of {} threw; the queue goes on", this, e);
        }
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

    boolean hasListeners() {
        return !listeners.isEmpty();
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
        Listening<T> added = new Listening<>(listener);
        listeners.add(added);
        try {
            added.after = events.hold(true);
        } catch (RuntimeException e) {
            listeners.remove(added);
            throw e;
        }
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
        for (Listening<T> l : listeners) {
            if (l.listener == listener && listeners.remove(l)) {
                events.release();
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- reading

    @Override
    public Optional<Job<T>> job(String id) {
        checkOpen();
        QueueChecks.checkJobId(id);
        Object reply = call(false, "get", id);
        return reply == null ? Optional.empty() : Optional.of(snapshot(reply, null, false));
    }

    @Override
    public Optional<byte[]> payloadBytes(String id) {
        checkOpen();
        QueueChecks.checkJobId(id);
        Object reply = call(false, "get", id);
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
        List<Object> c = Replies.list(call(false, "counts"));
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
        List<Object> reply =
                Replies.list(call(false, "jobs", state.name(), Integer.toString(offset), Integer.toString(limit)));
        List<Job<T>> page = new ArrayList<>(reply.size());
        for (Object job : reply) {
            page.add(snapshot(job, null, false));
        }
        return page;
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

    // ---------------------------------------------------------------- managing

    @Override
    public void pause() {
        checkOpen();
        call(true, "pause", "1");
    }

    @Override
    public void resume() {
        checkOpen();
        call(true, "pause", "0");
        signal();
    }

    @Override
    public boolean isPaused() {
        checkOpen();
        return Replies.number(call(false, "paused")) == 1;
    }

    @Override
    public boolean remove(String id) {
        checkOpen();
        QueueChecks.checkJobId(id);
        Object reply = call(true, "remove", id);
        if (reply instanceof byte[]) {
            throw new IllegalStateException(
                    "job '" + id + "' of queue '" + name + "' is active; a running job cannot be removed");
        }
        boolean removed = Replies.number(reply) == 1;
        if (removed) {
            removedBeforeFinishing(id);
        }
        return removed;
    }

    @Override
    public void retry(String id, JobState from) {
        checkOpen();
        QueueChecks.checkJobId(id);
        QueueChecks.checkRetryFrom(from);
        String answer = Replies.text(call(true, "retry", id, from == JobState.COMPLETED ? "c" : "f"));
        if (answer.equals("missing")) {
            throw new JobNotFoundException(name, id);
        }
        if (!answer.equals("ok")) {
            throw new IllegalStateException("job '" + id + "' of queue '" + name + "' is " + answer + "; only a " + from
                    + " job can be retried as " + from);
        }
        signal();
    }

    @Override
    public int retryFailed() {
        checkOpen();
        int n = (int) Replies.number(call(true, "retryFailed"));
        signal();
        return n;
    }

    @Override
    public int clean(JobState state, Duration age) {
        checkOpen();
        QueueChecks.checkClean(state, age);
        String ageArg = RetentionRules.cleanCutoff(age, 0) == Long.MIN_VALUE ? "none" : Long.toString(micros(age));
        return (int) Replies.number(call(true, "clean", state == JobState.COMPLETED ? "c" : "f", ageArg));
    }

    @Override
    public int drain(boolean delayedToo) {
        checkOpen();
        int drained = (int) Replies.number(call(true, "drain", delayedToo ? "1" : "0"));
        signal();
        return drained;
    }

    // ---------------------------------------------------------------- limits

    @Override
    public void setRate(LimitPolicy rate) {
        checkOpen();
        QueueOptions.builder().rate(rate).build();
        String stored = RateText.encode("queue '" + name + "'", rate);
        noteChange("rate", stored, rate == null ? "no rate" : "rate " + rate, call(true, "limits", "rate", stored));
        signal();
    }

    @Override
    public void setConcurrency(int concurrency) {
        checkOpen();
        QueueOptions.builder().concurrency(concurrency).build();
        String stored = Integer.toString(concurrency);
        noteChange("concurrency", stored, "concurrency " + concurrency, call(true, "limits", "concurrency", stored));
        signal();
    }

    @Override
    public void setGroupDefaults(GroupLimits limits) {
        checkOpen();
        if (limits == null) {
            throw new IllegalArgumentException("group limits must not be null; use GroupLimits.none()");
        }
        String concurrency = Integer.toString(limits.concurrency());
        String maxWaiting = Integer.toString(limits.maxWaiting());
        String rate = RateText.encode("queue '" + name + "', group defaults", limits.rate());
        Object stamp = call(true, "limits", "defaults", concurrency, maxWaiting, rate);
        noteChange("gconc", concurrency, "group concurrency " + concurrency, stamp);
        noteChange("gmax", maxWaiting, "group maxWaiting " + maxWaiting, stamp);
        noteChange("grate", rate, "group rate " + limits.rate(), stamp);
        signal();
    }

    @Override
    public void setGroupLimits(String group, GroupLimits limits) {
        checkOpen();
        JobOptions.builder().group(group);
        if (limits == null) {
            throw new IllegalArgumentException(
                    "limits of group '" + group + "' must not be null; use clearGroupLimits");
        }
        String concurrency = Integer.toString(limits.concurrency());
        String maxWaiting = Integer.toString(limits.maxWaiting());
        String rate = RateText.encode("queue '" + name + "', group '" + group + "'", limits.rate());
        Object stamp = call(true, "limits", "group", group, concurrency, maxWaiting, rate);
        noteChange(
                "gl:g" + group, concurrency + "|" + maxWaiting + "|" + rate, "group '" + group + "' " + limits, stamp);
        signal();
    }

    @Override
    public void clearGroupLimits(String group) {
        checkOpen();
        JobOptions.builder().group(group);
        noteChange(
                "gl:g" + group, "", "group '" + group + "' without own limits", call(true, "limits", "clear", group));
        signal();
    }

    /** Notes a change of setting {@code name} to {@code stored}, which the script made at {@code stamp}. */
    private void noteChange(String name, String stored, String text, Object stamp) {
        settings.note(name, "=" + stored, Replies.number(stamp), text);
    }

    @Override
    public GroupLimits groupLimits(String group) {
        checkOpen();
        QueueChecks.checkLookedUpGroup(group);
        List<Object> reply = Replies.list(call(false, "groupLimits", group == null ? "" : group));
        int concurrency = (int) Math.min(Integer.MAX_VALUE, Replies.number(reply.get(0)));
        int maxWaiting = (int) Math.min(Integer.MAX_VALUE, Replies.number(reply.get(1)));
        return new GroupLimits(RateText.decode(Replies.textOrNull(reply.get(2))), concurrency, maxWaiting);
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
        RedisWorker<T> worker = new RedisWorker<>(this, processor, workerOptions);
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

    void forget(RedisWorker<T> worker) {
        workers.remove(worker);
    }

    /** Refuses every further use, then closes every worker with a 30 s deadline; used when the engine closes. */
    CompletableFuture<Void> closeWorkers() {
        closed = true;
        signal();
        watcher.stop();
        roomWatcher.stop();
        List<CompletableFuture<Worker.CloseReport>> closing = new ArrayList<>();
        for (RedisWorker<T> worker : workers) {
            closing.add(worker.closeAsync(Duration.ofSeconds(30)));
        }
        outcomes.closed();
        return CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new));
    }

    /** Stops reading events, once the workers closed (listeners hear the jobs they finish while closing). */
    void closeEvents() {
        events.close();
    }

    boolean isClosed() {
        return closed;
    }

    void checkOpen() {
        if (closed) {
            throw Limits.closed(this);
        }
    }

    @Override
    public String toString() {
        return "queue '" + name + "' of " + engine;
    }

    // ---------------------------------------------------------------- snapshots

    /**
     * The job a script replied; {@code payload} is its decoded payload if the caller has it, else the reply's
     * bytes are decoded (null if the codec cannot).
     */
    Job<T> snapshot(Object reply, T payload, boolean payloadGiven) {
        List<Object> r = Replies.list(reply);
        T decoded = payload;
        if (!payloadGiven) {
            byte[] bytes = Replies.bytes(SnapshotField.PAYLOAD.of(r));
            try {
                decoded = bytes == null ? null : codec.decode(bytes);
            } catch (RuntimeException e) {
                decoded = null;
            }
        }
        Object failureReason = SnapshotField.FAILURE_REASON.of(r);
        Job.Failure failure = failureReason == null
                ? null
                : new Job.Failure(
                        Replies.text(failureReason),
                        Replies.textOrNull(SnapshotField.FAILURE_CLASS.of(r)),
                        Replies.textOrNull(SnapshotField.FAILURE_TRACE.of(r)));
        List<Job.Attempt> attempts = new ArrayList<>();
        for (Object a : Replies.list(SnapshotField.ATTEMPTS.of(r))) {
            List<Object> attempt = Replies.list(a);
            Object outcome = attempt.size() > 3 ? attempt.get(3) : null;
            attempts.add(new Job.Attempt(
                    (int) Replies.number(attempt.get(0)),
                    instant(attempt.get(1)),
                    attempt.size() > 2 ? instant(attempt.get(2)) : null,
                    outcome == null ? null : Job.Attempt.Outcome.valueOf(Replies.text(outcome)),
                    attempt.size() > 4 ? Replies.textOrNull(attempt.get(4)) : null));
        }
        return new Job<>(
                Replies.text(SnapshotField.ID.of(r)),
                Replies.text(SnapshotField.NAME.of(r)),
                decoded,
                Replies.textOrNull(SnapshotField.GROUP.of(r)),
                JobState.valueOf(Replies.text(SnapshotField.STATE.of(r))),
                optionsText.decode(Replies.text(SnapshotField.OPTIONS.of(r))),
                (int) Replies.number(SnapshotField.ATTEMPTS_MADE.of(r)),
                (int) Replies.number(SnapshotField.RATE_LIMITS.of(r)),
                instant(SnapshotField.CREATED_AT.of(r)),
                instant(SnapshotField.RUN_AT.of(r)),
                instant(SnapshotField.STARTED_AT.of(r)),
                instant(SnapshotField.FINISHED_AT.of(r)),
                (int) Replies.number(SnapshotField.PROGRESS.of(r)),
                Replies.bytes(SnapshotField.RESULT.of(r)),
                failure,
                attempts);
    }

    /** The instant of epoch microseconds {@code value}, or null. */
    static Instant instant(Object value) {
        if (value == null) {
            return null;
        }
        long micros = Replies.number(value);
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1000L);
    }
}
