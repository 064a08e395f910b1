package dev.sluice.internal.limit;

import dev.sluice.limit.Decision;
import dev.sluice.limit.SlidingWindowLog;

/**
 * Every grant remembered until it leaves the window: a grant at {@code t} counts against every instant
 * before {@code t + window}. Grants at the same instant share one entry of a ring buffer.
 */
final class SlidingLogAlgorithm extends LockedAlgorithm {
    private final long window;

    SlidingLogAlgorithm(String limiter, SlidingWindowLog policy) {
        super(limiter, policy);
        this.window = policy.window().toNanos();
    }

    /** A ring of (time, permits) entries, oldest first. */
    static final class State extends KeyState.Locked {
        long[] times = new long[2];
        long[] counts = new long[2];
        int head;
        int size;
        long total;

        long time(int i) {
            return times[(head + i) & (times.length - 1)];
        }

        long count(int i) {
            return counts[(head + i) & (counts.length - 1)];
        }

        void expire(long now, long window) {
            while (size > 0 && times[head] + window <= now) {
                total -= counts[head];
                head = (head + 1) & (times.length - 1);
                size--;
            }
        }

        void add(long time, long permits) {
            total += permits;
            if (size > 0 && time(size - 1) == time) {
                counts[(head + size - 1) & (counts.length - 1)] += permits;
                return;
            }
            if (size == times.length) {
                grow();
            }
            int slot = (head + size) & (times.length - 1);
            times[slot] = time;
            counts[slot] = permits;
            size++;
        }

        private void grow() {
            long[] newTimes = new long[times.length * 2];
            long[] newCounts = new long[counts.length * 2];
            for (int i = 0; i < size; i++) {
                newTimes[i] = time(i);
                newCounts[i] = count(i);
            }
            times = newTimes;
            counts = newCounts;
            head = 0;
        }

        /** Forgets the newest {@code permits} permits, or all if there are fewer. */
        void removeNewest(long permits) {
            while (permits > 0 && size > 0) {
                int slot = (head + size - 1) & (counts.length - 1);
                long taken = Math.min(permits, counts[slot]);
                counts[slot] -= taken;
                total -= taken;
                permits -= taken;
                if (counts[slot] == 0) {
                    size--;
                }
            }
        }

        void clear() {
            head = 0;
            size = 0;
            total = 0;
        }

        /** Forgets up to {@code permits} of the permits granted at {@code time}; entries have distinct times. */
        void removeAt(long time, long permits) {
            for (int i = size - 1; i >= 0; i--) {
                if (time(i) == time) {
                    int slot = (head + i) & (counts.length - 1);
                    long taken = Math.min(permits, counts[slot]);
                    counts[slot] -= taken;
                    total -= taken;
                    break;
                }
            }
            while (size > 0 && count(size - 1) == 0) {
                size--;
            }
        }
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
            if (state.size > 0) {
                now = Math.max(now, state.time(state.size - 1));
            }
            state.expire(now, window);
            if (state.total + permits > limit) {
                long excess = state.total + permits - limit;
                int i = 0;
                for (long freed = 0; freed < excess; i++) {
                    freed += state.count(i);
                }
                long retryAt = state.time(i - 1) + window;
                return denied(Math.max(0, limit - state.total), retryAt - now, state.time(state.size - 1) + window);
            }
            if (commit) {
                state.add(now, permits);
            }
            return allowed(limit - state.total - (commit ? 0 : permits), now + window);
        }
    }

    @Override
    void undo(KeyState keyState, long now, long permits, Decision granted) {
        State state = (State) keyState;
        synchronized (state) {
            state.removeAt(granted.resetAtNanos() - window, permits);
        }
    }

    @Override
    void refundLocked(KeyState.Locked keyState, long now, long permits) {
        // Expired entries are the oldest: the newest permits are still counted unless none are, and permits taken
        // from an entry that has left the window change nothing.
        ((State) keyState).removeNewest(permits);
    }

    @Override
    void resetLocked(KeyState.Locked keyState) {
        ((State) keyState).clear();
    }

    @Override
    boolean idleLocked(KeyState.Locked keyState, long now) {
        State state = (State) keyState;
        return state.total == 0 || state.time(state.size - 1) + window <= now;
    }

    @Override
    void copy(KeyState source, KeyState target) {
        State from = (State) source;
        State to = (State) target;
        synchronized (from) {
            for (int i = 0; i < from.size; i++) {
                to.add(from.time(i), from.count(i));
            }
        }
    }

    @Override
    void adopt(KeyState keyState, Algorithm previous, long now) {
        // Grants keep their times; the new window decides when each one stops counting.
    }
}
