package dev.sluice.internal.limit;

import dev.sluice.limit.Decision;
import dev.sluice.limit.SlidingWindowCounter;

/**
 * Counts of the current and the previous epoch-aligned window; the previous one is weighted by the share
 * of it the sliding window still covers. The estimate at elapsed time {@code e} into the current window is
 * {@code previous × (window − e) / window + current}, compared in exact integer arithmetic.
 */
final class SlidingCounterAlgorithm extends LockedAlgorithm {
    private final long window;

    SlidingCounterAlgorithm(String limiter, SlidingWindowCounter policy) {
        super(limiter, policy);
        this.window = policy.window().toNanos();
    }

    static final class State extends KeyState.Locked {
        long windowStart = Long.MIN_VALUE;
        long current;
        long previous;
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
            long previous = previousAt(state, start);
            long current = currentAt(state, start);
            long elapsed = now - start;
            long weighted = previous - Arithmetic.mulDivFloor(previous, elapsed, window);
            long room = limit - current - weighted;
            if (permits > room) {
                long retryAt = retryAt(start, elapsed, previous, current, permits);
                return denied(Math.max(0, room), retryAt - now, resetAt(start, current));
            }
            if (commit) {
                state.windowStart = start;
                state.previous = previous;
                state.current = current + permits;
            }
            return allowed(room - permits, resetAt(start, current + permits));
        }
    }

    /** The count of the window before the one starting at {@code start}. */
    private long previousAt(State state, long start) {
        return state.windowStart == start ? state.previous : state.windowStart == start - window ? state.current : 0;
    }

    /** The count of the window starting at {@code start}. */
    private static long currentAt(State state, long start) {
        return state.windowStart == start ? state.current : 0;
    }

    @Override
    void refundLocked(KeyState.Locked keyState, long now, long permits) {
        State state = (State) keyState;
        long start = windowAt(now, window, state.windowStart);
        long previous = previousAt(state, start);
        long current = currentAt(state, start);
        long fromCurrent = Math.min(current, permits);
        state.windowStart = start;
        state.current = current - fromCurrent;
        state.previous = Math.max(0, previous - (permits - fromCurrent));
    }

    @Override
    void resetLocked(KeyState.Locked keyState) {
        State state = (State) keyState;
        state.windowStart = Long.MIN_VALUE;
        state.current = 0;
        state.previous = 0;
    }

    /** The earliest time the request is allowed if nothing else arrives; it is denied at {@code elapsed}. */
    private long retryAt(long start, long elapsed, long previous, long current, long permits) {
        long slack = limit - current - permits;
        if (slack >= 0) {
            // Allowed once previous × (window − e) ≤ slack × window, i.e. e ≥ window − ⌊slack × window / previous⌋.
            long at = window - Arithmetic.mulDivFloor(slack, window, previous);
            if (at < window) {
                return start + at;
            }
        }
        long next = start + window;
        long nextSlack = limit - permits;
        if (current == 0 || nextSlack >= current) {
            return next;
        }
        long at = window - Arithmetic.mulDivFloor(nextSlack, window, current);
        return at < window ? next + at : next + window;
    }

    /**
     * When the key is full again, {@code current} being its count in the window from {@code start}: a key with
     * nothing in that window is only ever denied because of the previous window, which stops counting at its end.
     */
    private long resetAt(long start, long current) {
        return current > 0 ? start + 2 * window : start + window;
    }

    @Override
    void undo(KeyState keyState, long now, long permits, Decision granted) {
        State state = (State) keyState;
        long grantWindow = granted.resetAtNanos() - 2 * window; // a grant leaves current > 0: reset two windows on
        synchronized (state) {
            if (state.windowStart == grantWindow) {
                state.current = Math.max(0, state.current - permits);
            } else if (state.windowStart == grantWindow + window) {
                state.previous = Math.max(0, state.previous - permits);
            }
        }
    }

    @Override
    boolean idleLocked(KeyState.Locked keyState, long now) {
        State state = (State) keyState;
        if (state.current == 0 && state.previous == 0) {
            return true;
        }
        long end = state.current > 0 ? state.windowStart + 2 * window : state.windowStart + window;
        return end <= now;
    }

    @Override
    void copy(KeyState source, KeyState target) {
        State from = (State) source;
        State to = (State) target;
        synchronized (from) {
            to.windowStart = from.windowStart;
            to.current = from.current;
            to.previous = from.previous;
        }
    }

    @Override
    void adopt(KeyState keyState, Algorithm previous, long now) {
        long oldWindow = ((SlidingCounterAlgorithm) previous).window;
        State state = (State) keyState;
        synchronized (state) {
            long oldStart = Math.floorDiv(now, oldWindow) * oldWindow;
            long current = state.windowStart == oldStart ? state.current : 0;
            long prior = state.windowStart == oldStart
                    ? state.previous
                    : state.windowStart == oldStart - oldWindow ? state.current : 0;
            state.windowStart = Math.floorDiv(now, window) * window;
            state.current = current;
            state.previous = prior;
        }
    }
}
