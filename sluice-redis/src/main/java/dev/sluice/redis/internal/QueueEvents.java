package dev.sluice.redis.internal;

import dev.sluice.SluiceException;
import dev.sluice.internal.limit.Limits;
import dev.sluice.internal.queue.DeliveryLane;
import dev.sluice.queue.Job;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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

    /** The longest a queue's close waits for its listeners to hear the events this process's calls made. */
    private static final long CLOSE_TELLING_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** The most events one read takes. */
    private static final int READ_COUNT = 1_000;

    /**
     * How long the reader waits after a read that brought only events this process had told already (its own
     * calls'), so that a process whose listeners hear mostly its own calls reads them in batches rather than one
     * read each: other processes' events wait that much longer at most.
     */
    private static final Duration OWN_EVENTS_PAUSE = Duration.ofMillis(1);

    /** A call whose events this process does not hand over (nobody listens here). */
    static final long UNTRACKED = -1;

    private static final byte[] EVENT_COUNTER = {'e', 'v'};

    private final RedisJobQueue<T> queue;
    private final RedisEngine engine;
    private final byte[] stream;
    private final byte[] listening;
    private final byte[] meta;
    /** The payloads of jobs not finished. */
    private final byte[] payloads;
    /** The job records: a kept finished job's payload is in its record. */
    private final byte[] jobs;

    private final byte[] cap;

    private final Object lock = new Object();

    // guarded by lock
    private int holders;
    private volatile Reader reader;
    private long generation;
    private boolean closed;
    /** Every event up to this number has been told, or was before this process began to listen. */
    private long delivered;
    /** Events to tell, by the first number each covers. */
    private final TreeMap<Long, Item<T>> pending = new TreeMap<>();

    /** The number of the last event this process's calls placed: {@link #awaitTold} waits for it. */
    private long placedThrough;

    private long nextTicket;
    /** Tickets below it belong to a reader that stopped. */
    private long firstTicket;
    /** Calls sent and not yet settled. */
    private final TreeSet<Long> unsettled = new TreeSet<>();
    /** What the replies of unsettled calls said of their events. */
    private final Map<Long, Range> ranges = new HashMap<>();
    /** The threads of the current reader and of stopped ones that had not ended yet, for tests: none is left. */
    private final List<Thread> recentThreads = new ArrayList<>();

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
    private final DeliveryLane lane;

    /**
     * An event to tell (null: nothing to tell listeners), or events missed, and what to do once told; it covers
     * the numbers from its key in {@link #pending} to {@code through}.
     */
    private record Item<T>(long through, Consumer<QueueListener<T>> event, boolean missed, Runnable after) {
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
    private boolean idleTooLong(Reader current) {
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
        if (!lane.isLaneThread()) {
            try {
                awaitTold(CLOSE_TELLING_NANOS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
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
        Reader next = new Reader(generation, start);
        reader = next;
        recentThreads.removeIf(t -> !t.isAlive());
        next.begin();
        return start;
    }

    /** Under the lock. */
    private void stop() {
        Reader current = reader;
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
        if (reader == null || !queue.hasListeners()) {
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
    private boolean covered(long number) {
        Map.Entry<Long, Item<T>> before = pending.floorEntry(number);
        return before != null && before.getValue().through >= number;
    }

    /**
     * Waits until the events this process's calls placed so far have been told (and so every event before them),
     * or {@code nanos} have passed; whether they have. Nothing is left to tell once the reader stopped.
     *
     * @throws IllegalStateException if called by a listener (it would wait for itself)
     */
    boolean awaitTold(long nanos) throws InterruptedException {
        if (lane.isLaneThread()) {
            throw new IllegalStateException(
                    "awaitListeners was called by a listener of " + queue + ", which would wait for itself");
        }
        long deadline = System.nanoTime() + nanos;
        synchronized (lock) {
            long target = placedThrough;
            long started = generation;
            while (delivered < target && generation == started && !closed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return true;
        }
    }

    // ---------------------------------------------------------------- telling

    /** Under the lock: whether the event that comes next in order is placed (the lane may tell it). */
    private boolean nextIsPlaced() {
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
            }
            try {
                if (item.missed) {
                    queue.tellMissed(from, item.through);
                } else if (item.event != null) {
                    queue.tell(item.event, from);
                }
                if (item.after != null) {
                    item.after.run();
                }
            } catch (RuntimeException e) {
                LOG.warn("{}: handling an event failed; the queue goes on", queue, e);
            } finally {
                synchronized (lock) {
                    delivered = Math.max(delivered, item.through);
                    lock.notifyAll();
                }
            }
        }
    }

    private Item<T> missed(long from, long through) {
        LOG.debug("{}: events {} to {} are not in Redis; listeners are told they missed them", queue, from, through);
        return new Item<>(through, null, true, queue::eventsMissed);
    }

    // ---------------------------------------------------------------- the reader

    /** An entry read from the stream: its number and its packed event. */
    private record Raw(long number, byte[] packed) {}

    /** An entry decoded: its number, and what to tell. */
    private record Decoded<T>(long number, Item<T> item) {}

    /** Follows the stream for one run of holders; its threads end when it stops. */
    private final class Reader {
        private final long generation;
        private long lastRead;
        private volatile boolean stopped;
        private volatile Connection.Dedicated dedicated;
        private Thread thread;
        private Thread renewer;
        private long blockMillis = engine.connection.eventBlockMillis;
        private boolean failing;

        Reader(long generation, long start) {
            this.generation = generation;
            this.lastRead = start;
        }

        /** Under the lock. */
        void begin() {
            thread = Thread.ofVirtual()
                    .name("sluice-" + queue.name() + "-events")
                    .start(this::read);
            renewer = Thread.ofVirtual()
                    .name("sluice-" + queue.name() + "-listening")
                    .start(this::renew);
            recentThreads.add(thread);
            recentThreads.add(renewer);
        }

        void stop() {
            stopped = true;
            Connection.Dedicated connection = dedicated;
            if (connection != null) {
                connection.close();
            }
            thread.interrupt();
            renewer.interrupt();
        }

        private void renew() {
            while (!stopped) {
                try {
                    Thread.sleep(RENEW_MILLIS);
                } catch (InterruptedException e) {
                    continue;
                }
                synchronized (lock) {
                    if (holders == 0) {
                        continue; // nobody here listens: let the mark lapse unless others renew it
                    }
                }
                RedisClusterAsyncCommands<byte[], byte[]> keys = engine.connection.keys;
                try {
                    await(keys.set(listening, cap, SetArgs.Builder.px(LISTEN_TTL_MILLIS)), 0, "keep listening to");
                    await(keys.pexpire(stream, LISTEN_TTL_MILLIS), 0, "keep listening to");
                } catch (SluiceException e) {
                    // the reader, which runs while this does, tells of the outage once
                    LOG.debug("{}; events written meanwhile are kept while the mark lasts", e.getMessage(), e);
                }
            }
        }

        private void read() {
            long backoff = 0;
            try {
                while (!stopped) {
                    try {
                        if (dedicated == null) {
                            dedicated = engine.connection.openDedicated();
                            if (stopped) {
                                break;
                            }
                        }
                        awaitTelling();
                        if (stopped) {
                            break;
                        }
                        long block;
                        synchronized (lock) {
                            // nobody holds it: it stops soon, so it blocks no longer than that
                            block = holders == 0
                                    ? Math.min(blockMillis, TimeUnit.NANOSECONDS.toMillis(LINGER_NANOS))
                                    : blockMillis;
                        }
                        List<StreamMessage<byte[], byte[]>> batch = await(
                                dedicated
                                        .commands()
                                        .xread(
                                                XReadArgs.Builder.block(block).count(READ_COUNT),
                                                XReadArgs.StreamOffset.from(stream, "0-" + lastRead)),
                                TimeUnit.MILLISECONDS.toNanos(block),
                                "read the events of");
                        if (failing) {
                            failing = false;
                            LOG.info("{} reads its events from Redis again", queue);
                        }
                        backoff = 0;
                        if (batch != null && !batch.isEmpty() && !handle(batch)) {
                            // only this process's own events, told already: let the next read gather more
                            Thread.sleep(OWN_EVENTS_PAUSE);
                        }
                        synchronized (lock) {
                            if (idleTooLong(this)) {
                                QueueEvents.this.stop();
                            }
                        }
                    } catch (SluiceException | io.lettuce.core.RedisException e) {
                        if (stopped) {
                            break;
                        }
                        if (e.getCause() instanceof RedisCommandTimeoutException && blockMillis > 1) {
                            // the application's client times out blocking reads sooner than they block
                            blockMillis = Math.max(1, blockMillis / 2);
                            continue;
                        }
                        backoff = Math.min(
                                Math.max(TimeUnit.MILLISECONDS.toNanos(10), backoff * 2), engine.retryIntervalNanos());
                        if (!failing) {
                            failing = true;
                            LOG.warn(
                                    "{} cannot read its events from Redis ({}); it tries again every {} ms at most",
                                    queue,
                                    ConnectFailure.reason(e),
                                    TimeUnit.NANOSECONDS.toMillis(engine.retryIntervalNanos()));
                            LOG.debug("{} cannot read its events from Redis", queue, e);
                        } else {
                            LOG.debug("{} still cannot read its events from Redis", queue, e);
                        }
                        TimeUnit.NANOSECONDS.sleep(backoff);
                    }
                }
            } catch (InterruptedException e) {
                // stopped
            } finally {
                Connection.Dedicated connection = dedicated;
                if (connection != null) {
                    connection.closeAndWait(Duration.ofSeconds(1));
                }
            }
        }

        /**
         * Waits while the lane has events to tell that it has not told yet, so that a listener that falls behind
         * holds up the reading too (the events it has not heard wait in Redis, not in this process's memory, and
         * those the stream no longer holds are told as missed). It reads on while what comes next is missing.
         */
        private void awaitTelling() throws InterruptedException {
            synchronized (lock) {
                while (!stopped && QueueEvents.this.generation == generation && nextIsPlaced()) {
                    lane.kick();
                    lock.wait(100);
                }
            }
        }

        /**
         * Fills in the events of {@code batch} that this process did not tell already, and tells what is next.
         * Returns whether there were any.
         */
        private boolean handle(List<StreamMessage<byte[], byte[]>> batch) throws InterruptedException {
            awaitCallsSentBefore();
            List<Raw> needed = new ArrayList<>();
            long top = lastRead;
            boolean news;
            synchronized (lock) {
                if (QueueEvents.this.generation != generation) {
                    return true;
                }
                for (StreamMessage<byte[], byte[]> message : batch) {
                    long last = numberOf(message.getId());
                    top = Math.max(top, last);
                    List<byte[]> events = eventsOf(message);
                    long number = last - events.size() + 1;
                    for (byte[] packed : events) {
                        if (number > delivered && !covered(number)) {
                            needed.add(new Raw(number, packed));
                        }
                        number++;
                    }
                }
            }
            lastRead = top;
            List<Decoded<T>> decoded = decode(needed);
            synchronized (lock) {
                if (QueueEvents.this.generation != generation) {
                    return true;
                }
                int at = 0;
                long number = delivered + 1;
                news = !needed.isEmpty();
                while (number <= top) {
                    Map.Entry<Long, Item<T>> cover = pending.floorEntry(number);
                    if (cover != null && cover.getValue().through >= number) {
                        number = cover.getValue().through + 1;
                        continue;
                    }
                    while (at < decoded.size() && decoded.get(at).number < number) {
                        at++;
                    }
                    if (at < decoded.size() && decoded.get(at).number == number) {
                        pending.put(number, decoded.get(at).item);
                        number++;
                        continue;
                    }
                    // not in the stream: missed up to the next number known
                    long next = at < decoded.size() ? decoded.get(at).number : top + 1;
                    Long queued = pending.ceilingKey(number);
                    if (queued != null && queued < next) {
                        next = queued;
                    }
                    pending.put(number, missed(number, next - 1));
                    news = true;
                    number = next;
                }
            }
            lane.kick();
            return news;
        }

        /**
         * Waits until this process's calls sent before now have handed over their events: any of them may have
         * made events of the batch just read. Bounded: a call that takes longer is told from the stream.
         */
        private void awaitCallsSentBefore() throws InterruptedException {
            long deadline = System.nanoTime() + 3 * engine.timeoutNanos() + TimeUnit.SECONDS.toNanos(1);
            synchronized (lock) {
                long horizon = nextTicket;
                while (!stopped && !unsettled.isEmpty() && unsettled.first() < horizon) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                }
            }
        }

        /** The events of {@code raws}, with the payloads Redis holds for their jobs now. */
        private List<Decoded<T>> decode(List<Raw> raws) {
            boolean listeners = queue.hasListeners();
            List<List<Object>> entries = new ArrayList<>(raws.size());
            boolean[] awaited = new boolean[raws.size()];
            Set<String> wanted = new LinkedHashSet<>();
            for (int i = 0; i < raws.size(); i++) {
                Raw raw = raws.get(i);
                List<Object> entry;
                try {
                    entry = Replies.list(MessagePack.decode(raw.packed));
                } catch (RuntimeException e) {
                    LOG.warn("{}: event {} in Redis cannot be read; it is skipped", queue, raw.number, e);
                    entry = null;
                }
                entries.add(entry);
                // decided once: a waiter that comes later reads the finished job itself
                awaited[i] = entry != null && awaited(entry);
                if (entry != null && entry.get(2) != null && (listeners || awaited[i])) {
                    wanted.add(Replies.text(entry.get(1)));
                }
            }
            Map<String, byte[]> payloadOf = wanted.isEmpty() ? Map.of() : fetchPayloads(wanted);
            List<Decoded<T>> decoded = new ArrayList<>(raws.size());
            for (int i = 0; i < raws.size(); i++) {
                List<Object> entry = entries.get(i);
                Item<T> item = null;
                if (entry != null) {
                    try {
                        item = item(raws.get(i).number, entry, listeners, awaited[i], payloadOf);
                    } catch (RuntimeException e) {
                        LOG.warn("{}: event {} in Redis cannot be read; it is skipped", queue, raws.get(i).number, e);
                    }
                }
                decoded.add(new Decoded<>(
                        raws.get(i).number, item == null ? new Item<>(raws.get(i).number, null, null) : item));
            }
            return decoded;
        }

        private boolean awaited(List<Object> entry) {
            String kind = Replies.text(entry.get(0));
            return (kind.equals("completed") || kind.equals("failed")) && queue.awaits(Replies.text(entry.get(1)));
        }

        /** The payloads Redis holds now for jobs {@code ids}: a waiting or running job's, or a kept job's. */
        private Map<String, byte[]> fetchPayloads(Set<String> ids) {
            Map<String, byte[]> out = new HashMap<>();
            List<byte[]> kept = new ArrayList<>();
            for (KeyValue<byte[], byte[]> value :
                    hmget(payloads, ids.stream().map(RedisJobQueue::bytes).toList())) {
                if (value.hasValue()) {
                    out.put(new String(value.getKey(), StandardCharsets.UTF_8), value.getValue());
                } else {
                    kept.add(value.getKey());
                }
            }
            if (!kept.isEmpty()) {
                for (KeyValue<byte[], byte[]> record : hmget(jobs, kept)) {
                    String id = new String(record.getKey(), StandardCharsets.UTF_8);
                    try {
                        byte[] payload = record.hasValue() ? JobRecord.keptPayload(record.getValue()) : null;
                        if (payload != null) {
                            out.put(id, payload);
                        }
                    } catch (IllegalStateException e) {
                        LOG.warn(
                                "{}: the record of job '{}' in Redis cannot be read; its events have no payload",
                                queue,
                                id,
                                e);
                    }
                }
            }
            return out;
        }

        private List<KeyValue<byte[], byte[]>> hmget(byte[] key, List<byte[]> fields) {
            return await(
                    dedicated.commands().hmget(key, fields.toArray(byte[][]::new)),
                    0,
                    "read the payloads of the events of");
        }
    }

    /**
     * The item for event {@code number}, packed as emit() in {@code queue-events.lua} writes it: told to {@code listeners}
     * if any, and to the waiters of its job if it ends the job and is {@code awaited}.
     */
    private Item<T> item(
            long number, List<Object> entry, boolean listeners, boolean awaited, Map<String, byte[]> payloadOf) {
        String kind = Replies.text(entry.get(0));
        String id = Replies.textOrNull(entry.get(1));
        if (kind.equals("drained")) {
            return new Item<>(number, listeners ? QueueListener::onDrained : null, queue::signal);
        }
        if (kind.equals("removed")) {
            return new Item<>(number, null, () -> queue.removedBeforeFinishing(id));
        }
        boolean ends = awaited && (kind.equals("completed") || kind.equals("failed"));
        if (!listeners && !ends) {
            return new Item<>(number, null, null);
        }
        List<Object> fields = new ArrayList<>(Replies.list(entry.get(2)));
        fields.set(SnapshotField.PAYLOAD.ordinal(), payloadOf.get(id));
        Job<T> job = queue.snapshot(fields, null, false);
        Consumer<QueueListener<T>> event = switch (kind) {
            case "added" -> l -> l.onAdded(job);
            case "active" -> l -> l.onActive(job);
            case "progress" -> {
                int percent = (int) Replies.number(entry.get(3));
                yield l -> l.onProgress(job, percent);
            }
            case "completed" -> l -> l.onCompleted(job);
            case "failed" -> l -> l.onFailed(job);
            case "retrying" -> {
                Duration delay = micros(entry.get(3));
                Object errorClass = entry.get(4);
                Throwable error = errorClass == null
                        ? null
                        : new RemoteFailure(Replies.text(errorClass), Replies.textOrNull(entry.get(5)));
                yield l -> l.onRetrying(job, error, delay);
            }
            case "rate-limited" -> {
                Result.Scope scope = Result.Scope.valueOf(Replies.text(entry.get(3)));
                Duration retryAfter = micros(entry.get(4));
                yield l -> l.onRateLimited(job, scope, retryAfter);
            }
            case "rescheduled" -> {
                Duration delay = micros(entry.get(3));
                yield l -> l.onRescheduled(job, delay);
            }
            default -> null; // an event of a newer version of Sluice: nothing to tell
        };
        return new Item<>(number, listeners ? event : null, ends ? () -> queue.finished(job) : null);
    }

    private static Duration micros(Object value) {
        return Duration.of(Math.max(0, Replies.number(value)), ChronoUnit.MICROS);
    }

    private static long numberOf(String streamId) {
        return Long.parseLong(streamId.substring(streamId.indexOf('-') + 1));
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
     * The reply of {@code future} within the command timeout plus {@code extraNanos}.
     *
     * @throws SluiceException saying what could not be done, if Redis fails, refuses or is too slow
     */
    private <V> V await(RedisFuture<V> future, long extraNanos, String doing) {
        long timeout = engine.timeoutNanos() + extraNanos;
        try {
            return future.get(timeout, TimeUnit.NANOSECONDS);
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
