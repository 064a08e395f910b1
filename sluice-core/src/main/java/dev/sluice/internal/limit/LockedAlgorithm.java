package dev.sluice.internal.limit;

import dev.sluice.limit.LimitPolicy;

/** A policy whose key state is more than one word, guarded by the state's own monitor. */
abstract sealed class LockedAlgorithm extends Algorithm
        permits FixedWindowAlgorithm, SlidingCounterAlgorithm, SlidingLogAlgorithm, ConcurrencyAlgorithm {

    LockedAlgorithm(String limiter, LimitPolicy policy) {
        super(limiter, policy);
    }

    /**
     * The start of the epoch-aligned window of {@code window} ns that {@code now} falls in, or {@code stateStart}
     * (the window a state last counted in) if the clock went back before it.
     */
    static long windowAt(long now, long window, long stateStart) {
        return Math.max(Math.floorDiv(now, window) * window, stateStart);
    }

    /** As {@link #refund}, on a state that is not retired; called holding the state's monitor. */
    abstract void refundLocked(KeyState.Locked state, long now, long permits);

    /** As {@link #reset}, on a state that is not retired; called holding the state's monitor. */
    abstract void resetLocked(KeyState.Locked state);

    @Override
    final void refund(KeyState keyState, long now, long permits) {
        KeyState.Locked state = (KeyState.Locked) keyState;
        synchronized (state) {
            if (!state.retired) {
                refundLocked(state, now, permits);
            }
        }
    }

    @Override
    final void reset(KeyState keyState) {
        KeyState.Locked state = (KeyState.Locked) keyState;
        synchronized (state) {
            if (!state.retired) {
                resetLocked(state);
            }
        }
    }

    /** Whether {@code state} is back at its full limit at {@code now}; called holding the state's monitor. */
    abstract boolean idleLocked(KeyState.Locked state, long now);

    @Override
    final boolean isIdle(KeyState keyState, long now) {
        KeyState.Locked state = (KeyState.Locked) keyState;
        synchronized (state) {
            return idleLocked(state, now);
        }
    }

    @Override
    final boolean retireIfIdle(KeyState keyState, long now) {
        KeyState.Locked state = (KeyState.Locked) keyState;
        synchronized (state) {
            if (state.retired || !idleLocked(state, now)) {
                return false;
            }
            state.retired = true;
            return true;
        }
    }
}
