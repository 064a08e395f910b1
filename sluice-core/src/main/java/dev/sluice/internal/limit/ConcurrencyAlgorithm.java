package dev.sluice.internal.limit;

import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.Lease;
import dev.sluice.time.SluiceClock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;

/** Permits held by leases; a lease returns its permits when released or when it expires. */
final class ConcurrencyAlgorithm extends LockedAlgorithm {
    /** A waiting caller asks again this often, since a release can come before the reported expiry. */
    private static final long WAIT_STEP_NANOS = 5_000_000;

    private final long leaseTimeout;
    private final SluiceClock clock;
    private final BooleanSupplier closed;

    ConcurrencyAlgorithm(String limiter, ConcurrencyLimit policy, SluiceClock clock, BooleanSupplier closed) {
        super(limiter, policy);
        this.leaseTimeout = policy.leaseTimeout().toNanos();
        this.clock = clock;
        this.closed = closed;
    }

    /**
     * The leases a key holds. One lease can be held by two states: a lease granted from the table's shared
     * overflow is also held by the state a key gets when it leaves the overflow (see {@link #copy}); a state
     * drops a lease released elsewhere the next time it looks at its leases.
     */
    static final class State extends KeyState.Locked {
        final List<HeldLease> leases = new ArrayList<>(2);
        long held;

        void expire(long now) {
            leases.removeIf(lease -> {
                boolean gone = lease.expiresAtNanos <= now || lease.released;
                if (gone) {
                    held -= lease.permits;
                }
                return gone;
            });
        }

        /** Drops every lease, which then returns nothing when released. */
        void clear() {
            for (HeldLease lease : leases) {
                synchronized (lease) {
                    lease.released = true;
                }
            }
            leases.clear();
            held = 0;
        }
    }

    final class HeldLease implements Lease {
        private final long permits;
        private final long expiresAtNanos;
        /** Set once, under the lease's own monitor; a state that holds the lease drops it when it sees it set. */
        private volatile boolean released;

        HeldLease(long permits, long expiresAtNanos) {
            this.permits = permits;
            this.expiresAtNanos = expiresAtNanos;
        }

        @Override
        public boolean release() {
            if (closed.getAsBoolean()) {
                return false;
            }
            long now = clock.nanos();
            // The states that hold the lease drop it, and its permits, the next time they look at their leases:
            // every acquire and idle test does so first.
            synchronized (this) {
                if (expiresAtNanos <= now || released) {
                    return false;
                }
                released = true;
                return true;
            }
        }

        @Override
        public long expiresAtNanos() {
            return expiresAtNanos;
        }

        @Override
        public String toString() {
            return "Lease[" + limiter + ", " + permits + " permits]";
        }
    }

    @Override
    KeyState newState() {
        return new State();
    }

    @Override
    long maxWaitStepNanos() {
        return WAIT_STEP_NANOS;
    }

    @Override
    Decision acquire(KeyState keyState, long now, long permits, boolean commit) {
        State state = (State) keyState;
        synchronized (state) {
            if (state.retired) {
                return null;
            }
            state.expire(now);
            if (state.held + permits > limit) {
                return denied(Math.max(0, limit - state.held), retryAt(state, permits) - now, lastExpiry(state, now));
            }
            Lease lease = Lease.none();
            if (commit) {
                HeldLease held = new HeldLease(permits, now + leaseTimeout);
                state.leases.add(held);
                state.held += permits;
                lease = held;
            }
            long remaining = limit - state.held - (commit ? 0 : permits);
            long resetAt = Math.max(lastExpiry(state, now), now + leaseTimeout);
            return new Decision(true, remaining, limit, 0, resetAt, limiter, lease);
        }
    }

    private long retryAt(State state, long permits) {
        List<HeldLease> byExpiry = new ArrayList<>(state.leases);
        byExpiry.sort(Comparator.comparingLong(HeldLease::expiresAtNanos));
        long excess = state.held + permits - limit;
        long freed = 0;
        for (HeldLease lease : byExpiry) {
            freed += lease.permits;
            if (freed >= excess) {
                return lease.expiresAtNanos;
            }
        }
        throw new IllegalStateException("permits " + permits + " exceed the limit " + limit);
    }

    private static long lastExpiry(State state, long now) {
        long last = now;
        for (HeldLease lease : state.leases) {
            last = Math.max(last, lease.expiresAtNanos);
        }
        return last;
    }

    @Override
    void undo(KeyState keyState, long now, long permits, Decision granted) {
        granted.release();
    }

    @Override
    void refundLocked(KeyState.Locked keyState, long now, long permits) {
        // Only a RateLimiter refunds, and a ConcurrencyLimit is never a rate limiter's policy.
        throw new UnsupportedOperationException("leases are released, not refunded");
    }

    @Override
    void resetLocked(KeyState.Locked keyState) {
        ((State) keyState).clear();
    }

    @Override
    boolean idleLocked(KeyState.Locked keyState, long now) {
        State state = (State) keyState;
        state.expire(now);
        return state.held == 0;
    }

    @Override
    void copy(KeyState source, KeyState target) {
        State from = (State) source;
        State to = (State) target;
        synchronized (from) {
            for (HeldLease lease : from.leases) {
                if (!lease.released) {
                    to.leases.add(lease);
                    to.held += lease.permits;
                }
            }
        }
    }

    @Override
    void adopt(KeyState keyState, Algorithm previous, long now) {
        // Leases keep their permits and expiry; the new maximum applies to the next acquire.
    }
}
