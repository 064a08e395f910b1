package dev.sluice.internal.limit;

import dev.sluice.limit.Decision;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.RatePolicy;
import dev.sluice.time.SluiceClock;

/**
 * A rate private to one queue, keyed by group: the queue asks under its own lock whether one start may go,
 * and takes the permit only once every other limit agreed, so a denial elsewhere burns nothing here. Not
 * thread-safe on its own: the queue's lock guards it.
 */
public final class QueueRate {
    private final String name;
    private final SluiceClock clock;
    private final KeyTable table;
    private Algorithm algorithm;
    private RatePolicy policy;

    /** A rate called {@code name} (for messages) under {@code policy}, holding up to {@code maxKeys} groups. */
    public QueueRate(String name, RatePolicy policy, SluiceClock clock, int maxKeys) {
        this.name = name;
        this.clock = clock;
        this.policy = policy;
        this.algorithm = Algorithm.of(name, policy, clock);
        this.table = new KeyTable(name, maxKeys, LimiterListener.none(), clock.nanos());
    }

    /** The policy in force. */
    public RatePolicy policy() {
        return policy;
    }

    /** Whether {@code policy} can take over this rate's state ({@link #update}); else start a new rate. */
    public boolean canAdopt(RatePolicy policy) {
        return policy.getClass() == this.policy.getClass();
    }

    /** Switches to {@code policy} of the same kind, keeping what each key has used. */
    public void update(RatePolicy policy) {
        Algorithm next = Algorithm.of(name, policy, clock);
        this.policy = policy;
        Algorithm previous = algorithm;
        algorithm = next;
        table.adopt(next, previous, clock.nanos());
    }

    /** Nanoseconds until one permit for {@code key} may go, 0 if it may go now; takes nothing. */
    public long peek(String key, long now) {
        return nanosToWait(table.decide(key, algorithm, now, 1, false, null, 0));
    }

    /** Takes one permit for {@code key} if it may go now (0), else returns the nanoseconds to wait. */
    public long take(String key, long now) {
        return nanosToWait(table.decide(key, algorithm, now, 1, true, null, 0));
    }

    private static long nanosToWait(Decision decision) {
        return decision.allowed() ? 0 : Math.max(1, decision.retryAfterNanos());
    }
}
