package dev.sluice.internal.limit;

import dev.sluice.limit.Decision;
import dev.sluice.limit.LimiterListener;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The states of one limiter's keys, at most {@code maxKeys} of them.
 *
 * <p>Only idle states are dropped (see {@link Algorithm#isIdle}), so dropping never loses what a key has
 * taken. When the table is full of busy keys, new keys share one overflow state; a key that later gets its
 * own slot starts as used as the overflow, so it cannot gain permits by moving (grants from the overflow
 * and the seeding of new slots hold the table's lock, so no grant falls between the two). Sweeps for idle keys run
 * when the table is full (at most once per second, or once per {@code maxKeys / 4} keys sent to the
 * overflow, so an attacker cannot make every request pay for a sweep) and at least once a minute.
 */
final class KeyTable {
    static final long FULL_SWEEP_INTERVAL_NANOS = 1_000_000_000L;
    static final long IDLE_SWEEP_INTERVAL_NANOS = 60_000_000_000L;

    private final String limiter;
    private final int maxKeys;
    private final LimiterListener listener;
    private final ConcurrentHashMap<String, KeyState> states = new ConcurrentHashMap<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicInteger overflowedSinceSweep = new AtomicInteger();
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private volatile long lastSweepNanos;
    private volatile KeyState overflow;

    KeyTable(String limiter, int maxKeys, LimiterListener listener, long nowNanos) {
        this.limiter = limiter;
        this.maxKeys = maxKeys;
        this.listener = listener;
        this.lastSweepNanos = nowNanos;
    }

    /**
     * Decides {@code permits} for {@code key} at {@code now} on its state, created if needed, and looks the
     * key up again when a sweep retired the state first.
     *
     * @param used where to put the state that decided, at {@code index}; null if the caller does not need it
     */
    Decision decide(
            String key, Algorithm algorithm, long now, long permits, boolean commit, KeyState[] used, int index) {
        while (true) {
            KeyState state = states.get(key);
            Decision decision;
            if (state != null) {
                decision = algorithm.acquire(state, now, permits, commit);
            } else {
                state = insert(key, algorithm, now);
                if (state != overflow) {
                    decision = algorithm.acquire(state, now, permits, commit);
                } else {
                    synchronized (this) {
                        if (states.containsKey(key)) {
                            continue;
                        }
                        decision = algorithm.acquire(state, now, permits, commit);
                    }
                }
            }
            if (decision != null) {
                if (used != null) {
                    used[index] = state;
                }
                return decision;
            }
            forget(key, state);
        }
    }

    /** As {@link #decide}, answering only {@link Algorithm#GRANTED} or {@link Algorithm#DENIED}. */
    int consume(String key, Algorithm algorithm, long now, long permits) {
        while (true) {
            KeyState state = states.get(key);
            int outcome;
            if (state != null) {
                outcome = algorithm.consume(state, now, permits);
            } else {
                state = insert(key, algorithm, now);
                if (state != overflow) {
                    outcome = algorithm.consume(state, now, permits);
                } else {
                    synchronized (this) {
                        if (states.containsKey(key)) {
                            continue;
                        }
                        outcome = algorithm.consume(state, now, permits);
                    }
                }
            }
            if (outcome != Algorithm.RETIRED) {
                return outcome;
            }
            forget(key, state);
        }
    }

    /** The state of {@code key}, created if needed; may be retired by the time the caller uses it. */
    KeyState state(String key, Algorithm algorithm, long now) {
        KeyState state = states.get(key);
        return state != null ? state : insert(key, algorithm, now);
    }

    /** Forgets {@code state}, which the caller found retired. */
    void forget(String key, KeyState state) {
        if (states.remove(key, state)) {
            size.decrementAndGet();
        }
    }

    private KeyState insert(String key, Algorithm algorithm, long now) {
        if (now - lastSweepNanos >= IDLE_SWEEP_INTERVAL_NANOS) {
            sweep(algorithm, now);
        }
        if (!reserveSlot()) {
            if (now - lastSweepNanos >= FULL_SWEEP_INTERVAL_NANOS || overflowedSinceSweep.get() >= maxKeys / 4) {
                sweep(algorithm, now);
            }
            if (!reserveSlot()) {
                overflowedSinceSweep.incrementAndGet();
                listener.onKeyTableFull(limiter, key);
                return overflow(algorithm);
            }
        }
        KeyState fresh = algorithm.newState();
        KeyState existing;
        // Seeding and publishing under the lock that overflow grants hold: a request of this key that is already
        // on its way to the overflow (which another thread may be creating right now) either lands in the seed or
        // sees the key tracked and retries. Only new keys take this lock.
        synchronized (this) {
            KeyState shared = overflow;
            if (shared != null) {
                algorithm.copy(shared, fresh);
            }
            existing = states.putIfAbsent(key, fresh);
        }
        if (existing != null) {
            size.decrementAndGet();
            return existing;
        }
        return fresh;
    }

    /** Takes a slot if one is free; never counts past {@code maxKeys}, even for a moment. */
    private boolean reserveSlot() {
        for (int current = size.get(); current < maxKeys; current = size.get()) {
            if (size.compareAndSet(current, current + 1)) {
                return true;
            }
        }
        return false;
    }

    private KeyState overflow(Algorithm algorithm) {
        KeyState shared = overflow;
        if (shared == null) {
            synchronized (this) {
                shared = overflow;
                if (shared == null) {
                    overflow = shared = algorithm.newState();
                }
            }
        }
        return shared;
    }

    /** Drops every idle key; one sweep at a time, the others carry on without waiting. */
    void sweep(Algorithm algorithm, long now) {
        if (!sweeping.compareAndSet(false, true)) {
            return;
        }
        try {
            lastSweepNanos = now;
            overflowedSinceSweep.set(0);
            states.forEach((key, state) -> {
                if (algorithm.retireIfIdle(state, now) && states.remove(key, state)) {
                    size.decrementAndGet();
                    listener.onEvicted(limiter, key);
                }
            });
        } finally {
            sweeping.set(false);
        }
    }

    /** Re-expresses every state, and the overflow, under {@code next}. */
    void adopt(Algorithm next, Algorithm previous, long now) {
        states.values().forEach(state -> next.adopt(state, previous, now));
        KeyState shared = overflow;
        if (shared != null) {
            next.adopt(shared, previous, now);
        }
    }

    /** Re-expresses the state of {@code key} alone under {@code next}, if it has one of its own. */
    void adopt(String key, Algorithm next, Algorithm previous, long now) {
        KeyState state = states.get(key);
        if (state != null) {
            next.adopt(state, previous, now);
        }
    }

    /** Whether {@code state} is the overflow shared by untracked keys. */
    boolean isOverflow(KeyState state) {
        return state == overflow;
    }

    /** How many keys have their own state. */
    int size() {
        return size.get();
    }

    /** Whether {@code key} has its own state. */
    boolean tracks(String key) {
        return states.containsKey(key);
    }
}
