package dev.sluice.redis.internal;

import dev.sluice.SluiceException;
import dev.sluice.queue.Job;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.RateChange;
import dev.sluice.queue.Result;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisCommandTimeoutException;
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
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reader of one queue's event stream for one run of holders ({@link QueueEvents#hold}): a thread that follows
 * the stream ({@code XREAD BLOCK} on a connection of its own), fills in the events of other processes between this
 * process's own, with the payloads Redis holds for their jobs, and marks where the stream no longer held them; and a
 * renewer that keeps the queue's listening mark alive. Its threads end when it stops.
 */
final class EventReader<T> {
    /** The log of {@link QueueEvents}, whose work this is: one logger for a queue's events. */
    private static final Logger LOG = LoggerFactory.getLogger(QueueEvents.class);

    private final QueueEvents<T> queueEvents;
    private final RedisJobQueue<T> queue;
    private final RedisEngine engine;
    /** The lock of {@link QueueEvents}, which guards what the reader fills in. */
    private final Object lock;

    private final long generation;
    private long lastRead;
    private volatile boolean stopped;
    private volatile Connection.Dedicated dedicated;
    private Thread thread;
    private Thread renewer;
    private long blockMillis;
    private boolean failing;

    EventReader(QueueEvents<T> queueEvents, long generation, long start) {
        this.queueEvents = queueEvents;
        this.queue = queueEvents.queue;
        this.engine = queueEvents.engine;
        this.lock = queueEvents.lock;
        this.generation = generation;
        this.lastRead = start;
        this.blockMillis = engine.connection.eventBlockMillis;
    }

    /** Under the lock. */
    void begin() {
        thread = Thread.ofVirtual().name("sluice-" + queue.name() + "-events").start(this::read);
        renewer =
                Thread.ofVirtual().name("sluice-" + queue.name() + "-listening").start(this::renew);
        queueEvents.recentThreads.add(thread);
        queueEvents.recentThreads.add(renewer);
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
                Thread.sleep(QueueEvents.RENEW_MILLIS);
            } catch (InterruptedException e) {
                continue;
            }
            synchronized (lock) {
                if (queueEvents.holders == 0) {
                    continue; // nobody here listens: let the mark lapse unless others renew it
                }
            }
            RedisClusterAsyncCommands<byte[], byte[]> keys = engine.connection.keys;
            try {
                queueEvents.await(
                        keys.set(
                                queueEvents.listening,
                                queueEvents.cap,
                                SetArgs.Builder.px(QueueEvents.LISTEN_TTL_MILLIS)),
                        0,
                        "keep listening to");
                queueEvents.await(
                        keys.pexpire(queueEvents.stream, QueueEvents.LISTEN_TTL_MILLIS), 0, "keep listening to");
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
                        block = queueEvents.holders == 0
                                ? Math.min(blockMillis, TimeUnit.NANOSECONDS.toMillis(QueueEvents.LINGER_NANOS))
                                : blockMillis;
                    }
                    List<StreamMessage<byte[], byte[]>> batch = queueEvents.await(
                            dedicated
                                    .commands()
                                    .xread(
                                            XReadArgs.Builder.block(block).count(QueueEvents.READ_COUNT),
                                            XReadArgs.StreamOffset.from(queueEvents.stream, "0-" + lastRead)),
                            TimeUnit.MILLISECONDS.toNanos(block),
                            "read the events of");
                    if (failing) {
                        failing = false;
                        LOG.info("{} reads its events from Redis again", queue);
                    }
                    backoff = 0;
                    if (batch != null && !batch.isEmpty() && !handle(batch)) {
                        // only this process's own events, told already: let the next read gather more
                        Thread.sleep(QueueEvents.OWN_EVENTS_PAUSE);
                    }
                    synchronized (lock) {
                        if (queueEvents.idleTooLong(this)) {
                            queueEvents.stop();
                        }
                    }
                } catch (SluiceException | io.lettuce.core.RedisException | IllegalStateException e) {
                    // IllegalStateException: a cluster client's connections closed under the read (the engine closes)
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
     * Waits while the lane tells an event, or has one to tell that it has not told yet, so that a listener that
     * falls behind holds up the reading too (the events it has not heard wait in Redis, not in this process's memory, and
     * those the stream no longer holds are told as missed). It reads on while what comes next is missing.
     */
    private void awaitTelling() throws InterruptedException {
        synchronized (lock) {
            while (!stopped
                    && queueEvents.generation == generation
                    && (queueEvents.telling || queueEvents.nextIsPlaced())) {
                queueEvents.lane.kick();
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
            if (queueEvents.generation != generation) {
                return true;
            }
            for (StreamMessage<byte[], byte[]> message : batch) {
                long last = numberOf(message.getId());
                top = Math.max(top, last);
                List<byte[]> events = QueueEvents.eventsOf(message);
                long number = last - events.size() + 1;
                for (byte[] packed : events) {
                    if (number > queueEvents.delivered && !queueEvents.covered(number)) {
                        needed.add(new Raw(number, packed));
                    }
                    number++;
                }
            }
        }
        lastRead = top;
        List<Decoded<T>> decoded = decode(needed);
        synchronized (lock) {
            if (queueEvents.generation != generation) {
                return true;
            }
            int at = 0;
            long number = queueEvents.delivered + 1;
            news = !needed.isEmpty();
            while (number <= top) {
                Map.Entry<Long, QueueEvents.Item<T>> cover = queueEvents.pending.floorEntry(number);
                if (cover != null && cover.getValue().through() >= number) {
                    number = cover.getValue().through() + 1;
                    continue;
                }
                while (at < decoded.size() && decoded.get(at).number < number) {
                    at++;
                }
                if (at < decoded.size() && decoded.get(at).number == number) {
                    queueEvents.pending.put(number, decoded.get(at).item);
                    number++;
                    continue;
                }
                // not in the stream: missed up to the next number known
                long next = at < decoded.size() ? decoded.get(at).number : top + 1;
                Long queued = queueEvents.pending.ceilingKey(number);
                if (queued != null && queued < next) {
                    next = queued;
                }
                queueEvents.pending.put(number, queueEvents.missed(number, next - 1));
                news = true;
                number = next;
            }
        }
        queueEvents.lane.kick();
        return news;
    }

    /**
     * Waits until this process's calls sent before now have handed over their events: any of them may have
     * made events of the batch just read. Bounded: a call that takes longer is told from the stream.
     */
    private void awaitCallsSentBefore() throws InterruptedException {
        long deadline = System.nanoTime() + 3 * engine.timeoutNanos() + TimeUnit.SECONDS.toNanos(1);
        synchronized (lock) {
            long horizon = queueEvents.nextTicket;
            while (!stopped && !queueEvents.unsettled.isEmpty() && queueEvents.unsettled.first() < horizon) {
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
        boolean listeners = queue.listeners.any();
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
            QueueEvents.Item<T> item = null;
            if (entry != null) {
                try {
                    item = item(raws.get(i).number, entry, listeners, awaited[i], payloadOf);
                } catch (RuntimeException e) {
                    LOG.warn("{}: event {} in Redis cannot be read; it is skipped", queue, raws.get(i).number, e);
                }
            }
            decoded.add(new Decoded<>(
                    raws.get(i).number, item == null ? new QueueEvents.Item<>(raws.get(i).number, null, null) : item));
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
        for (KeyValue<byte[], byte[]> value : hmget(
                queueEvents.payloads, ids.stream().map(RedisJobQueue::bytes).toList())) {
            if (value.hasValue()) {
                out.put(new String(value.getKey(), StandardCharsets.UTF_8), value.getValue());
            } else {
                kept.add(value.getKey());
            }
        }
        if (!kept.isEmpty()) {
            for (KeyValue<byte[], byte[]> record : hmget(queueEvents.jobs, kept)) {
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
        return queueEvents.await(
                dedicated.commands().hmget(key, fields.toArray(byte[][]::new)),
                0,
                "read the payloads of the events of");
    }

    /** An entry read from the stream: its number and its packed event. */
    private record Raw(long number, byte[] packed) {}

    /** An entry decoded: its number, and what to tell. */
    private record Decoded<T>(long number, QueueEvents.Item<T> item) {}

    /**
     * The item for event {@code number}, packed as emit() in {@code queue-lua} writes it: told to {@code listeners}
     * if any, and to the waiters of its job if it ends the job and is {@code awaited}.
     */
    private QueueEvents.Item<T> item(
            long number, List<Object> entry, boolean listeners, boolean awaited, Map<String, byte[]> payloadOf) {
        String kind = Replies.text(entry.get(0));
        String id = Replies.textOrNull(entry.get(1));
        if (kind.equals("drained")) {
            return new QueueEvents.Item<>(number, listeners ? QueueListener::onDrained : null, queue::signal);
        }
        if (kind.equals("removed")) {
            return new QueueEvents.Item<>(number, null, () -> queue.removedBeforeFinishing(id));
        }
        if (kind.equals("rate-changed")) {
            return new QueueEvents.Item<>(number, listeners ? rateChanged(entry) : null, null);
        }
        boolean ends = awaited && (kind.equals("completed") || kind.equals("failed"));
        if (!listeners && !ends) {
            return new QueueEvents.Item<>(number, null, null);
        }
        List<Object> fields = new ArrayList<>(Replies.list(entry.get(2)));
        fields.set(SnapshotField.PAYLOAD.ordinal(), payloadOf.get(id));
        // decoded when first told: an event of this process's own call that the reader read before the call's
        // reply placed it is never told from here, and its payload is then not decoded for nothing
        Once<Job<T>> job = new Once<>(() -> queue.snapshot(fields, null, false));
        Consumer<QueueListener<T>> event = switch (kind) {
            case "added" -> l -> l.onAdded(job.get());
            case "active" -> l -> l.onActive(job.get());
            case "progress" -> {
                int percent = (int) Replies.number(entry.get(3));
                yield l -> l.onProgress(job.get(), percent);
            }
            case "completed" -> l -> l.onCompleted(job.get());
            case "failed" -> l -> l.onFailed(job.get());
            case "retrying" -> {
                Duration delay = micros(entry.get(3));
                Object errorClass = entry.get(4);
                Throwable error = errorClass == null
                        ? null
                        : new RemoteFailure(Replies.text(errorClass), Replies.textOrNull(entry.get(5)));
                yield l -> l.onRetrying(job.get(), error, delay);
            }
            case "rate-limited" -> {
                Result.Scope scope = Result.Scope.valueOf(Replies.text(entry.get(3)));
                Duration retryAfter = micros(entry.get(4));
                yield l -> l.onRateLimited(job.get(), scope, retryAfter);
            }
            case "rescheduled" -> {
                Duration delay = micros(entry.get(3));
                yield l -> l.onRescheduled(job.get(), delay);
            }
            default -> null; // an event of a newer version of Sluice: nothing to tell
        };
        return new QueueEvents.Item<>(number, listeners ? event : null, ends ? () -> queue.finished(job.get()) : null);
    }

    /** A rate-changed event as queue-adaptive.lua packs it: {kind, false, false, scope, group or false, change}. */
    private static <T> Consumer<QueueListener<T>> rateChanged(List<Object> entry) {
        RateChange change = RedisStats.change(
                Replies.text(entry.get(5)),
                Result.Scope.valueOf(Replies.text(entry.get(3))),
                Replies.textOrNull(entry.get(4)));
        return l -> l.onRateChanged(change);
    }

    /** A value made when first asked for, once, whichever thread asks. */
    private static final class Once<V> {
        private Supplier<V> maker;
        private V value;

        Once(Supplier<V> maker) {
            this.maker = maker;
        }

        synchronized V get() {
            if (maker != null) {
                value = maker.get();
                maker = null;
            }
            return value;
        }
    }

    private static Duration micros(Object value) {
        return Duration.of(Math.max(0, Replies.number(value)), ChronoUnit.MICROS);
    }

    private static long numberOf(String streamId) {
        return Long.parseLong(streamId.substring(streamId.indexOf('-') + 1));
    }
}
