package dev.sluice.internal.limit;

import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;

/** A count per epoch-aligned window; the count starts again at zero in each new window. */
final class FixedWindowAlgorithm extends LockedAlgorithm {
    private final long window;

    FixedWindowAlgorithm(String limiter, FixedWindow policy) {
        super(limiter, policy);
        this.window = policy.window().toNanos();
    }

    static final class State extends KeyState.Locked {
        long windowStart = Long.MIN_VALUE;
        long count;
    }

    @Override
    KeyState newState() {
        return new State();
    }

    @Override
    Decision acquire(KeyState keyState, long now, long permits, boolean commit) {
        State state = (State) keyState;
        synchronized (state) {
            if (state.retired) {
                return null;
            }
            long start = windowAt(now, window, state.windowStart);
            now = Math.max(now, start);
            long count = state.windowStart == start ? state.count : 0;
            long end = start + window;
            if (count + permits > limit) {
                return denied(Math.max(0, limit - count), end - now, end);
            }
            if (commit) {
                state.windowStart = start;
                state.count = count + permits;
            }
            return allowed(limit - count - permits, end);
        }
    }

    @Override
    void refundLocked(KeyState.Locked keyState, long now, long permits) {
        State state = (State) keyState;
        if (state.windowStart == windowAt(now, window, state.windowStart)) {
            state.count = Math.max(0, state.count - permits);
        }
    }

    @Override
    void resetLocked(KeyState.Locked keyState) {
        State state = (State) keyState;
        state.windowStart = Long.MIN_VALUE;
        state.count = 0;
    }

    @Override
    void undo(KeyState keyState, long now, long permits, Decision granted) {
        State state = (State) keyState;
        synchronized (state) {
            if (state.windowStart == granted.resetAtNanos() - window) {
                state.count = Math.max(0, state.count - permits);
            }
        }
    }

    @Override
    boolean idleLocked(KeyState.Locked keyState, long now) {
        State state = (State) keyState;
        return state.count == 0 || state.windowStart + window <= now;
    }

    @Override
    void copy(KeyState source, KeyState target) {
        State from = (State) source;
        State to = (State) target;
        synchronized (from) {
            to.windowStart = from.windowStart;
            to.count = from.count;
        }
    }

    @Override
    void adopt(KeyState keyState, Algorithm previous, long now) {
        long oldWindow = ((FixedWindowAlgorithm) previous).window;
        State state = (State) keyState;
        synchronized (state) {
            boolean current = state.windowStart != Long.MIN_VALUE && state.windowStart + oldWindow > now;
            state.windowStart = current ? Math.floorDiv(now, window) * window : Long.MIN_VALUE;
            state.count = current ? state.count : 0;
        }
    }
}
