package dev.sluice.redis.internal;

import dev.sluice.SluiceException;
import dev.sluice.internal.limit.Limits;
import dev.sluice.internal.queue.DeliveryLane;
import dev.sluice.queue.QueueListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one queue's listeners, and whoever waits for a job's outcome or for the queue to be idle, hear from Redis:
 * the events of every process, told in the order of the queue's event numbers ({@code queue-events.lua}).
 *
 * <p>While anyone in this process listens or waits ({@link #hold}), a reader thread follows the queue's event
 * stream on a connection of its own ({@code XREAD BLOCK}: it holds up no other call), and a renewer keeps the
 * queue's listening mark alive, so that every process's calls write their events. A call of this process that
 * made events hands its own over ({@link #settle}: built from its reply, with this process's exceptions and
 * payloads) and returns; the reader fills in the other processes' events between them, and marks where the
 * stream no longer held them (the listeners are told how many they missed). The queue's {@link DeliveryLane} tells
 * the listeners what is next in order, one event at a time, on a thread of its own. Before it fills anything in,
 * the reader waits for this process's calls sent before its read came back, so that an event of this process is
 * told as the call built it, not as the stream holds it.
 */
final class QueueEvents<T> {
    private static final Logger LOG = LoggerFactory.getLogger(QueueEvents.class);

    /** How long the listening mark lives unless renewed; a process that stops renewing stops the writes after it. */
    static final long LISTEN_TTL_MILLIS = 30_000;

    /** How often a listening process renews the mark. */
    static final long RENEW_MILLIS = 10_000;

    /** The most events one read takes. */
    static final int READ_COUNT = 1_000;

    /**
     * How long the reader waits after a read that brought only events this process had told already (its own
     * calls'), so that a process whose listeners hear mostly its own calls reads them in batches rather than one
     * read each: other processes' events wait that much longer at most.
     */
    static final Duration OWN_EVENTS_PAUSE = Duration.ofMillis(1);

    /** A call whose events this process does not hand over (nobody listens here). */
    static final long UNTRACKED = -1;

    private static final byte[] EVENT_COUNTER = {'e', 'v'};

    final RedisJobQueue<T> queue;
    final RedisEngine engine;
    final byte[] stream;
    final byte[] listening;
    private final byte[] meta;
    /** The payloads of jobs not finished. */
    final byte[] payloads;
    /** The job records: a kept finished job's payload is in its record. */
    final byte[] jobs;

    final byte[] cap;

    final Object lock = new Object();

    // guarded by lock
    int holders;
    private volatile EventReader<T> reader;
    long generation;
    private boolean closed;
    /** Every event up to this number has been told, or was before this process began to listen. */
    long delivered;
    /** Events to tell, by the first number each covers. */
    final TreeMap<Long, Item<T>> pending = new TreeMap<>();

    /** Whether the lane is telling an event now (it is no longer in {@link #pending}). */
    boolean telling;

    /** The number of the last event this process's calls placed: {@link #awaitTold} waits for it. */
    private long placedThrough;

    long nextTicket;
    /** Tickets below it belong to a reader that stopped. */
    private long firstTicket;
    /** Calls sent and not yet settled. */
    final TreeSet<Long> unsettled = new TreeSet<>();
    /** What the replies of unsettled calls said of their events. */
    private final Map<Long, Range> ranges = new HashMap<>();
    /** The threads of the current reader and of stopped ones that had not ended yet, for tests: none is left. */
    final List<Thread> recentThreads = new ArrayList<>();

    QueueEvents(RedisJobQueue<T> queue) {
        this.queue = queue;
        this.engine = queue.engine;
        String base = new String(queue.key, StandardCharsets.UTF_8);
        this.stream = RedisJobQueue.bytes(base + ":ev");
        this.listening = RedisJobQueue.bytes(base + ":listening");
        this.meta = RedisJobQueue.bytes(base + ":m");
        this.payloads = RedisJobQueue.bytes(base + ":p");
        this.jobs = RedisJobQueue.bytes(base + ":j");
        this.cap = RedisJobQueue.bytes(Integer.toString(engine.eventLogSize));
        this.lane = new DeliveryLane("sluice-" + queue.name() + "-listeners", this::drain);
    }

    /** The thread that tells the listeners, one event at a time, in the queue's order. */
    final DeliveryLane lane;

    /**
     * An event to tell (null: nothing to tell listeners), or events missed, and what to do once told; it covers
     * the numbers from its key in {@link #pending} to {@code through}.
     */
    record Item<T>(long through, Consumer<QueueListener<T>> event, boolean missed, Runnable after) {
        Item(long through, Consumer<QueueListener<T>> event, Runnable after) {
            this(through, event, false, after);
        }
    }

    /** The events a call made, as its reply said: the number of the last, how many, whether the stream has them. */
    private record Range(long last, int made, boolean written) {}

    // ---------------------------------------------------------------- holding

    /**
     * One more listener or waiter: if no reader runs, one starts from the queue's current event number, so that
     * every event after this call returns is heard.
     *
     * @param number whether to find the number of the queue's latest event (a listener hears those after it)
     * @return that number, or 0 if not asked for
     * @throws SluiceException if Redis cannot be reached (nothing is held then)
     */
    long hold(boolean number) {
        synchronized (lock) {
            holders++;
            if (reader == null) {
                try {
                    return start();
                } catch (RuntimeException e) {
                    holders--;
                    throw e;
                }
            }
        }
        if (!number) {
            return 0;
        }
        try {
            return counter(awaitForCaller(engine.connection.keys.hget(meta, EVENT_COUNTER)));
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    /**
     * One listener or waiter fewer. After the last, the reader goes on for {@link #LINGER_NANOS} (a waiter that
     * comes soon after finds it running), then stops; the listening mark expires by itself.
     */
    void release() {
        synchronized (lock) {
            if (holders > 0 && --holders == 0) {
                idleSince = System.nanoTime();
            }
        }
    }

    /** Whether a listener or a waiter of this process holds the events now. */
    boolean held() {
        synchronized (lock) {
            return holders > 0;
        }
    }

    /** How long a reader that nobody holds goes on before it stops. */
    static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(2);

    /** Guarded by the lock: when the last holder let go. */
    private long idleSince;

    /** Under the lock: whether {@code current} has had no holder for long enough to stop. */
    boolean idleTooLong(EventReader<T> current) {
        return reader == current && holders == 0 && System.nanoTime() - idleSince >= LINGER_NANOS;
    }

    private static long counter(byte[] value) {
        return value == null ? 0 : Long.parseLong(new String(value, StandardCharsets.US_ASCII));
    }

    /**
     * Stops for good (the queue closed), once the listeners have heard what this process's calls placed (10 s at
     * most, not if a listener closes), and waits a little for the reader's threads to end.
     */
    void close() {
        lane.awaitOnClose(this::awaitTold);
        List<Thread> threads;
        synchronized (lock) {
            closed = true;
            holders = 0;
            stop();
            threads = List.copyOf(recentThreads);
        }
        long deadline = System.nanoTime() + engine.timeoutNanos() + TimeUnit.SECONDS.toNanos(1);
        try {
            for (Thread thread : threads) {
                long left = deadline - System.nanoTime();
                if (left > 0 && thread != Thread.currentThread()) {
                    thread.join(Duration.ofNanos(left));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Under the lock: returns the number the reader starts after. */
    private long start() {
        if (closed) {
            throw Limits.closed(queue);
        }
        RedisClusterAsyncCommands<byte[], byte[]> keys = engine.connection.keys;
        RedisFuture<String> marked = keys.set(listening, cap, SetArgs.Builder.px(LISTEN_TTL_MILLIS));
        RedisFuture<Boolean> kept = keys.pexpire(stream, LISTEN_TTL_MILLIS);
        RedisFuture<byte[]> counter = keys.hget(meta, EVENT_COUNTER);
        awaitForCaller(marked);
        awaitForCaller(kept);
        long start = counter(awaitForCaller(counter));
        generation++;
        delivered = start;
        pending.clear();
        EventReader<T> next = new EventReader<>(this, generation, start);
        reader = next;
        recentThreads.removeIf(t -> !t.isAlive());
        next.begin();
        return start;
    }

    /** Under the lock. */
    void stop() {
        EventReader<T> current = reader;
        if (current == null) {
            return;
        }
        reader = null;
        current.stop();
        generation++;
        pending.clear();
        ranges.clear();
        unsettled.clear();
        firstTicket = nextTicket;
        lock.notifyAll();
    }

    /** Whether a reader or renewer thread of this queue, current or stopped lately, is still alive. */
    boolean threadsAlive() {
        synchronized (lock) {
            for (Thread t : recentThreads) {
                if (t.isAlive()) {
                    return true;
                }
            }
            return false;
        }
    }

    // ---------------------------------------------------------------- this process's calls

    /**
     * Before a call that may make events is sent: its ticket, to {@link #settle} whatever happens; {@link
     * #UNTRACKED} if nobody here listens.
     */
    long ticket() {
        if (reader == null || !queue.listeners.any()) {
            return UNTRACKED;
        }
        synchronized (lock) {
            if (reader == null) {
                return UNTRACKED;
            }
            long ticket = nextTicket++;
            unsettled.add(ticket);
            return ticket;
        }
    }

    /** The call of {@code ticket} replied {@code reply} (the library's whole reply: see {@code entry()}). */
    void replied(long ticket, List<Object> reply) {
        if (ticket == UNTRACKED || reply.size() < 5) {
            return;
        }
        Range range = new Range(
                Replies.number(reply.get(2)), (int) Replies.number(reply.get(3)), Replies.number(reply.get(4)) == 1);
        synchronized (lock) {
            if (ticket >= firstTicket) {
                ranges.put(ticket, range);
            }
        }
    }

    /**
     * The call of {@code ticket} is done, and {@code local} are the events it built from its reply (none if it
     * failed), in the order it made them; they are the last of the call's events (the ones before are the
     * queue's own housekeeping, told from the stream). Places them in the queue's order and returns at once, with
     * the number to pass to {@link #tellThrough} (nothing to tell: {@link #NOTHING_TO_TELL}).
     */
    long settle(long ticket, List<Consumer<QueueListener<T>>> local) {
        if (ticket == UNTRACKED) {
            return NOTHING_TO_TELL;
        }
        long target;
        synchronized (lock) {
            boolean current = unsettled.remove(ticket);
            lock.notifyAll();
            Range range = ranges.remove(ticket);
            if (!current || range == null) {
                return NOTHING_TO_TELL;
            }
            int k = local.size();
            if (k > range.made) {
                LOG.warn(
                        "a call of {} built {} events from its reply, which made {}; the reader tells them as Redis"
                                + " holds them",
                        queue,
                        k,
                        range.made);
                return NOTHING_TO_TELL;
            }
            long first = range.last - range.made + 1;
            long firstLocal = range.last - k + 1;
            if (!range.written && firstLocal > first) {
                place(first, missed(first, firstLocal - 1));
            }
            for (int i = 0; i < k; i++) {
                long number = firstLocal + i;
                place(number, new Item<>(number, local.get(i), null));
            }
            target = range.last;
            placedThrough = Math.max(placedThrough, target);
        }
        return target;
    }

    /** What {@link #settle} returns for a call with no events to tell. */
    static final long NOTHING_TO_TELL = Long.MIN_VALUE;

    /**
     * Has the lane tell the events placed so far that are next in order; returns at once. For {@link
     * #NOTHING_TO_TELL} (a call that made no events of its own) it does nothing.
     */
    void tellThrough(long target) {
        if (target != NOTHING_TO_TELL) {
            lane.kick();
        }
    }

    /** Under the lock: queues {@code item} at {@code number} unless that was told or is queued already. */
    private void place(long number, Item<T> item) {
        if (number > delivered && !covered(number)) {
            pending.put(number, item);
        }
    }

    /** Under the lock. */
    boolean covered(long number) {
        Map.Entry<Long, Item<T>> before = pending.floorEntry(number);
        return before != null && before.getValue().through >= number;
    }

    /**
     * Waits until the events of this process's calls sent so far have been told (and so every event before them),
     * or {@code nanos} have passed; whether they have. A call sent and not answered yet (a worker's, which Redis
     * may have applied already) is waited for first, so that its events count. Nothing is left to tell once the
     * reader stopped.
     *
     * @throws IllegalStateException if called by a listener (it would wait for itself)
     */
    boolean awaitTold(long nanos) throws InterruptedException {
        lane.refuseWaitOnLane(queue.toString());
        long deadline = System.nanoTime() + nanos;
        synchronized (lock) {
            long started = generation;
            long sentBefore = nextTicket;
            if (!awaitWhile(() -> sentBeforeUnsettled(sentBefore), started, deadline)) {
                return false;
            }
            long target = placedThrough;
            return awaitWhile(() -> delivered < target, started, deadline);
        }
    }

    /**
     * Under the lock: waits while {@code pending} holds and the reader of generation {@code started} reads, until
     * {@code deadline} (of {@link System#nanoTime}); false if the deadline came first.
     */
    private boolean awaitWhile(BooleanSupplier pending, long started, long deadline) throws InterruptedException {
        while (reader != null && generation == started && !closed && pending.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(lock, left);
        }
        return true;
    }

    /** Under the lock: whether a call whose ticket is below {@code ticket} is not settled yet. */
    private boolean sentBeforeUnsettled(long ticket) {
        return !unsettled.isEmpty() && unsettled.first() < ticket;
    }

    // ---------------------------------------------------------------- telling

    /** Under the lock: whether the event that comes next in order is placed (the lane may tell it). */
    boolean nextIsPlaced() {
        Map.Entry<Long, Item<T>> next = pending.firstEntry();
        while (next != null && next.getKey() <= delivered) {
            pending.pollFirstEntry();
            next = pending.firstEntry();
        }
        return next != null && next.getKey() == delivered + 1;
    }

    /** On the lane: tells the queued events that are next in order. */
    private void drain() {
        while (true) {
            Item<T> item;
            long from;
            synchronized (lock) {
                Map.Entry<Long, Item<T>> next = pending.firstEntry();
                while (next != null && next.getKey() <= delivered) {
                    pending.pollFirstEntry();
                    next = pending.firstEntry();
                }
                if (next == null || next.getKey() != delivered + 1) {
                    return;
                }
                pending.pollFirstEntry();
                from = next.getKey();
                item = next.getValue();
                telling = true;
            }
            try {
                if (item.missed) {
                    queue.listeners.tellMissed(from, item.through);
                } else if (item.event != null) {
                    queue.listeners.tell(item.event, from);
                }
                if (item.after != null) {
                    item.after.run();
                }
            } catch (RuntimeException e) {
                LOG.warn("{}: handling an event failed; the queue goes on", queue, e);
            } finally {
                synchronized (lock) {
                    delivered = Math.max(delivered, item.through);
                    telling = false;
                    lock.notifyAll();
                }
            }
        }
    }

    Item<T> missed(long from, long through) {
        LOG.debug("{}: events {} to {} are not in Redis; listeners are told they missed them", queue, from, through);
        return new Item<>(through, null, true, queue::eventsMissed);
    }

    /**
     * The packed events of a stream entry, in the order of their numbers (the entry's id is the last): one in field
     * {@code e}, several in field {@code b} (see queue-events.lua).
     */
    static List<byte[]> eventsOf(StreamMessage<byte[], byte[]> message) {
        for (Map.Entry<byte[], byte[]> field : message.getBody().entrySet()) {
            if (field.getKey().length == 1 && field.getKey()[0] == 'b') {
                try {
                    List<Object> packed = Replies.list(MessagePack.decode(field.getValue()));
                    List<byte[]> events = new ArrayList<>(packed.size());
                    for (Object event : packed) {
                        events.add((byte[]) event);
                    }
                    return events;
                } catch (RuntimeException e) {
                    // its events count as missed: the reader tells the gap up to the next it can read
                    LOG.warn("events up to {} in Redis cannot be read; they are skipped", message.getId(), e);
                    return List.of();
                }
            }
            return List.of(field.getValue());
        }
        throw new IllegalStateException("event " + message.getId() + " in Redis has no fields");
    }

    /**
     * For a caller that starts to listen or wait: the reply of {@code future} within the command timeout, which
     * an interrupt does not cut short (the interrupt is kept for the caller's own wait to see).
     *
     * @throws SluiceException as {@link #await}
     */
    private <V> V awaitForCaller(RedisFuture<V> future) {
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    return await(future, 0, "start listening to");
                } catch (SluiceException e) {
                    if (!(e.getCause() instanceof InterruptedException)) {
                        throw e;
                    }
                    interrupted = true;
                    Thread.interrupted();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The reply of {@code future} within the command timeout plus {@code extraNanos} (the engine's own client fails a
     * late command itself, with the same allowance for a blocking read: see {@link Connection#timesOutCommands}).
     *
     * @throws SluiceException saying what could not be done, if Redis fails, refuses or is too slow
     */
    <V> V await(RedisFuture<V> future, long extraNanos, String doing) {
        long timeout = engine.timeoutNanos() + extraNanos;
        try {
            return engine.connection.reply(future, timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SluiceException("interrupted while it waited to " + doing + " " + queue, e);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new SluiceException(
                    "Redis (" + engine.connection.description + ") did not answer within "
                            + TimeUnit.NANOSECONDS.toMillis(timeout) + " ms: cannot " + doing + " " + queue,
                    e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new SluiceException(
                    "Redis (" + engine.connection.description + ") failed: cannot " + doing + " " + queue + ": "
                            + cause.getMessage(),
                    cause);
        }
    }
}
