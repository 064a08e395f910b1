package dev.sluice.internal.limit;

import dev.sluice.EngineListener;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.queue.JobQueue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link EngineListener}s of one engine, for both engines: each limiter's decisions go to them through its
 * {@link LimiterEvents}, and each limiter and queue is announced to each listener exactly once, whether it was
 * created before the listener was added or after.
 *
 * <p>Exactly once: who hears what is decided under {@link #lock}, and the listeners are called after it is
 * released, so that no user code runs under the engine-wide lock. A limiter or queue is marked as announced under
 * the lock after it is in its engine's map, with the listeners there then; adding a listener, under the same lock,
 * takes the ones marked so far to replay. One created while a listener is added is either marked before (the new
 * listener replays it) or after (its announcement reaches the new listener too).
 */
public final class EngineListeners {
    /** Made on the first failure, so that engines whose listeners never throw never start SLF4J. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(EngineListeners.class);
    }

    private static final Entry[] NONE = {};
    private static final LimiterListener[] NO_LISTENERS = {};

    /** A listener and its decision events made safe to call. */
    private record Entry(EngineListener listener, LimiterListener safe) {}

    /** The engine, named in errors once it is closed. */
    private final Object engine;

    private final BooleanSupplier closed;
    private final Object lock = new Object();
    private volatile Entry[] entries = NONE;
    /** The {@link Entry#safe} of each entry, in order: what the limiters tell; written with {@link #entries}. */
    private volatile LimiterListener[] decisionListeners = NO_LISTENERS;
    /**
     * The limiters and queues being made now, each by the one thread that makes it, outside any lock (a Redis queue's
     * making is a round trip): a name's other openers wait for its making only.
     */
    private final ConcurrentHashMap<Making, CompletableFuture<Object>> making = new ConcurrentHashMap<>();

    /** A name in one engine map: the map by identity. */
    private record Making(Object map, String name) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Making m && m.map == map && m.name.equals(name);
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(map) * 31 + name.hashCode();
        }
    }

    /** The limiters and queues announced so far; guarded by {@link #lock}. */
    private final Set<Object> announced = Collections.newSetFromMap(new IdentityHashMap<>());

    /** The listeners of {@code engine}, which is closed once {@code closed} says so. */
    public EngineListeners(Object engine, BooleanSupplier closed) {
        this.engine = engine;
        this.closed = closed;
    }

    /**
     * As {@link dev.sluice.Sluice#addListener}: adds {@code listener} and tells it, at once, of each of {@code
     * limiters} and {@code queues} (the engine's) that was announced already.
     */
    public void add(EngineListener listener, Iterable<?> limiters, Iterable<? extends JobQueue<?>> queues) {
        checkOpen();
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null; use EngineListener.none()");
        }
        List<Object> replay = new ArrayList<>();
        synchronized (lock) {
            Entry[] next = Arrays.copyOf(entries, entries.length + 1);
            next[next.length - 1] = new Entry(listener, SafeListener.of(listener));
            set(next);
            for (Object limiter : limiters) {
                if (announced.contains(limiter)) {
                    replay.add(limiter);
                }
            }
            for (JobQueue<?> queue : queues) {
                if (announced.contains(queue)) {
                    replay.add(queue);
                }
            }
        }
        replay.forEach(opened -> tellOpened(listener, opened));
        if (closed.getAsBoolean()) {
            // a close that ran meanwhile cleared the listeners before this one was added
            clear();
            throw Limits.closed(engine);
        }
    }

    /** As {@link dev.sluice.Sluice#removeListener}: removes one addition of {@code listener}; whether it was there. */
    public boolean remove(EngineListener listener) {
        checkOpen();
        synchronized (lock) {
            Entry[] current = entries;
            for (int i = 0; i < current.length; i++) {
                if (current[i].listener == listener) {
                    Entry[] next = new Entry[current.length - 1];
                    System.arraycopy(current, 0, next, 0, i);
                    System.arraycopy(current, i + 1, next, i, next.length - i);
                    set(next);
                    return true;
                }
            }
            return false;
        }
    }

    /** Drops every listener and what was announced: the engine closed. */
    public void clear() {
        synchronized (lock) {
            set(NONE);
            announced.clear();
        }
    }

    private void set(Entry[] next) {
        LimiterListener[] listeners = new LimiterListener[next.length];
        for (int i = 0; i < next.length; i++) {
            listeners[i] = next[i].safe;
        }
        entries = next;
        decisionListeners = listeners;
    }

    /** The decision events of the listeners now, each made safe to call; an array not to be changed. */
    LimiterListener[] decisionListeners() {
        return decisionListeners;
    }

    private void checkOpen() {
        if (closed.getAsBoolean()) {
            throw Limits.closed(engine);
        }
    }

    /**
     * The limiter called {@code name} in {@code limiters}, made by {@code factory} if there is none; one it made
     * is announced to every listener before this returns.
     */
    public <L> L limiter(ConcurrentHashMap<String, L> limiters, String name, Function<String, L> factory) {
        return open(limiters, name, factory, made -> {});
    }

    /**
     * The queue called {@code name} in {@code queues}, made by {@code factory} if there is none; one it made is
     * announced to every listener before this returns, once {@code check} (which may throw) has accepted it.
     */
    public <Q extends JobQueue<?>> Q queue(
            ConcurrentHashMap<String, Q> queues, String name, Function<String, Q> factory, Consumer<Q> check) {
        return open(queues, name, factory, check);
    }

    private <V> V open(ConcurrentHashMap<String, V> map, String name, Function<String, V> factory, Consumer<V> check) {
        V value = map.get(name);
        boolean made = false;
        while (value == null) {
            Making key = new Making(map, name);
            CompletableFuture<Object> mine = new CompletableFuture<>();
            CompletableFuture<Object> other = making.putIfAbsent(key, mine);
            if (other != null) {
                // another thread makes it: its value, or, should its making fail, a making of this thread's own
                other.exceptionally(e -> null).join();
                value = map.get(name);
                continue;
            }
            try {
                value = map.get(name);
                if (value == null) {
                    // a close that began before this making was registered does not wait for it: it must not start
                    checkOpen();
                    value = factory.apply(name);
                    map.put(name, value);
                    made = true;
                }
                mine.complete(value);
            } catch (RuntimeException | Error e) {
                mine.completeExceptionally(e);
                throw e;
            } finally {
                making.remove(key, mine);
            }
        }
        check.accept(value);
        if (made) {
            Entry[] told = NONE;
            synchronized (lock) {
                if (announced.add(value)) {
                    told = entries;
                }
            }
            for (Entry entry : told) {
                tellOpened(entry.listener, value);
            }
        }
        return value;
    }

    /**
     * Waits until no limiter or queue is being made: an engine's close calls it after it is marked closed, before
     * it closes what a making uses (a connection), since a making that began before then goes on.
     */
    public void awaitMakings() {
        for (CompletableFuture<Object> each : making.values()) {
            each.exceptionally(e -> null).join();
        }
    }

    /** What limiter {@code limiter} tells: its own {@code listener}, then these. */
    public LimiterEvents forLimiter(LimiterListener listener) {
        return new LimiterEvents(SafeListener.of(listener), this);
    }

    /** Tells {@code listener} of {@code opened}, a limiter or a queue; what it throws is logged. */
    private static void tellOpened(EngineListener listener, Object opened) {
        try {
            if (opened instanceof NamedLimiter limiter) {
                listener.onLimiterOpened(limiter);
            } else {
                listener.onQueueOpened((JobQueue<?>) opened);
            }
        } catch (RuntimeException e) {
            Log.LOG.warn("listener {} threw when told of {}; the engine goes on", listener, opened, e);
        }
    }
}
