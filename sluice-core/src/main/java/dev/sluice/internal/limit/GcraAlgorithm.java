package dev.sluice.internal.limit;

import dev.sluice.limit.Decision;
import dev.sluice.limit.LimitPolicy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Token bucket and GCRA, which are one algorithm: a key's state is the time at which its bucket is full
 * again (the theoretical arrival time). Taking {@code n} permits pushes it {@code n × interval} later;
 * a request is allowed while that time stays within {@code tolerance = capacity × interval} of now.
 *
 * <p>Why this design: one word of state per key, updated with one compare-and-set and no allocation;
 * refill is continuous and exact in nanoseconds; and retry-after falls out of the same inequality.
 */
final class GcraAlgorithm extends Algorithm {
    private static final long RETIRED_TAT = Long.MIN_VALUE;
    private static final VarHandle TAT;

    static {
        try {
            TAT = MethodHandles.lookup().findVarHandle(State.class, "tat", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final long interval;
    final long tolerance;

    GcraAlgorithm(String limiter, LimitPolicy policy, long interval, long capacity) {
        super(limiter, policy);
        this.interval = interval;
        this.tolerance = capacity * interval;
    }

    static final class State extends KeyState {
        /** Full since forever, whatever the clock reads: clock readings before the epoch are negative. */
        volatile long tat = Long.MIN_VALUE + 1;
    }

    @Override
    KeyState newState() {
        return new State();
    }

    @Override
    Decision acquire(KeyState keyState, long now, long permits, boolean commit) {
        State state = (State) keyState;
        int backOff = 0;
        while (true) {
            long tat = state.tat;
            if (tat == RETIRED_TAT) {
                return null;
            }
            long base = Math.max(tat, now);
            long next = base + permits * interval;
            if (next - now > tolerance) {
                return denied(Math.max(0, (tolerance - (base - now)) / interval), next - tolerance - now, base);
            }
            if (!commit || TAT.compareAndSet(state, tat, next)) {
                return allowed((tolerance - (next - now)) / interval, next);
            }
            backOff = backOff(backOff);
        }
    }

    @Override
    int consume(KeyState keyState, long now, long permits) {
        State state = (State) keyState;
        long cost = permits * interval;
        int backOff = 0;
        while (true) {
            long tat = state.tat;
            if (tat == RETIRED_TAT) {
                return RETIRED;
            }
            long next = Math.max(tat, now) + cost;
            if (next - now > tolerance) {
                return DENIED;
            }
            if (TAT.compareAndSet(state, tat, next)) {
                return GRANTED;
            }
            backOff = backOff(backOff);
        }
    }

    /**
     * Waits a little after a lost compare-and-set, longer after each one (32, 64, then 128 spins): two threads
     * writing one key in lock step lose most of their time moving its cache line between cores; letting the
     * winner go on alone for a moment more than doubles what the pair gets through.
     */
    private static int backOff(int spins) {
        int next = spins == 0 ? 32 : Math.min(spins * 2, 128);
        for (int i = 0; i < next; i++) {
            Thread.onSpinWait();
        }
        return next;
    }

    @Override
    void undo(KeyState keyState, long now, long permits, Decision granted) {
        // The grant pushed the arrival time to granted.resetAtNanos(); by now only the part of its cost that
        // lies ahead of now is still in the state, whatever others took since.
        giveBack((State) keyState, now, Math.min(permits * interval, Math.max(0, granted.resetAtNanos() - now)));
    }

    @Override
    void refund(KeyState keyState, long now, long permits) {
        giveBack((State) keyState, now, permits * interval);
    }

    /** Moves the time the bucket is full again {@code owed} nanoseconds earlier, not before {@code now}. */
    private static void giveBack(State state, long now, long owed) {
        while (true) {
            long tat = state.tat;
            if (tat == RETIRED_TAT
                    || tat <= now
                    || owed == 0
                    || TAT.compareAndSet(state, tat, Math.max(tat - owed, now))) {
                return;
            }
        }
    }

    @Override
    void reset(KeyState keyState) {
        State state = (State) keyState;
        while (true) {
            long tat = state.tat;
            if (tat == RETIRED_TAT || TAT.compareAndSet(state, tat, Long.MIN_VALUE + 1)) {
                return;
            }
        }
    }

    @Override
    boolean isIdle(KeyState keyState, long now) {
        return ((State) keyState).tat <= now;
    }

    @Override
    boolean retireIfIdle(KeyState keyState, long now) {
        State state = (State) keyState;
        long tat = state.tat;
        return tat != RETIRED_TAT && tat <= now && TAT.compareAndSet(state, tat, RETIRED_TAT);
    }

    @Override
    void copy(KeyState source, KeyState target) {
        long tat = ((State) source).tat;
        if (tat != RETIRED_TAT) {
            ((State) target).tat = tat;
        }
    }

    @Override
    void adopt(KeyState keyState, Algorithm previous, long now) {
        long oldInterval = ((GcraAlgorithm) previous).interval;
        State state = (State) keyState;
        while (true) {
            long tat = state.tat;
            if (tat == RETIRED_TAT || tat <= now) {
                return;
            }
            long debt = Math.min(Arithmetic.mulDivCeil(tat - now, interval, oldInterval), Long.MAX_VALUE / 4);
            if (TAT.compareAndSet(state, tat, now + debt)) {
                return;
            }
        }
    }
}
