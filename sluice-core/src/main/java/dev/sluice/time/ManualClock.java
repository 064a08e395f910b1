package dev.sluice.time;

import java.time.Duration;
import java.time.Instant;
import java.util.PriorityQueue;

/**
 * A clock that moves only when told to, for tests that run on virtual time.
 *
 * <p>{@link #advance(Duration)} moves time forward and runs, on the calling thread and in order of due
 * time, every task scheduled to fall due by then. {@link #sleep(long)} does not block: it advances the
 * clock by the requested amount, so code that waits completes at once while observing the right times.
 *
 * <p>Thread-safe. Time never moves backwards.
 */
public final class ManualClock implements SluiceClock {
    /** The instant a clock created with {@link #ManualClock()} starts at: 2026-01-01T00:00:00Z. */
    public static final Instant DEFAULT_START = Instant.parse("2026-01-01T00:00:00Z");

    private final PriorityQueue<Scheduled> scheduled = new PriorityQueue<>();
    private long nanos;
    private long sequence;

    /** A clock that starts at {@link #DEFAULT_START}. */
    public ManualClock() {
        this(DEFAULT_START);
    }

    /**
     * A clock that starts at {@code start}.
     *
     * @param start the instant of the clock's first reading
     * @throws IllegalArgumentException if {@code start} is null or more than {@link SluiceClock#MAX_NANOS} from the epoch
     */
    public ManualClock(Instant start) {
        if (start == null) {
            throw new IllegalArgumentException("a manual clock needs an instant to start at, was null");
        }
        long epochNanos;
        try {
            epochNanos = SluiceClock.toEpochNanos(start);
        } catch (ArithmeticException overflow) {
            epochNanos = Long.MAX_VALUE;
        }
        if (Math.abs(epochNanos) > MAX_NANOS) {
            throw new IllegalArgumentException("a clock reads at most " + MAX_NANOS + " ns from the epoch (between "
                    + Instant.EPOCH.minusNanos(MAX_NANOS) + " and " + Instant.EPOCH.plusNanos(MAX_NANOS) + "), was "
                    + start);
        }
        this.nanos = epochNanos;
    }

    @Override
    public synchronized long nanos() {
        return nanos;
    }

    /**
     * Moves time forward by {@code amount} and runs the tasks that fall due.
     *
     * @param amount how far to move, zero or more
     * @throws IllegalArgumentException if {@code amount} is null or negative, or would take the clock past {@link
     *     SluiceClock#MAX_NANOS}
     */
    public void advance(Duration amount) {
        if (amount == null) {
            throw new IllegalArgumentException("amount to advance by must be a duration, was null");
        }
        long nanos;
        try {
            nanos = amount.toNanos();
        } catch (ArithmeticException overflow) {
            nanos = amount.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        advanceNanos(nanos);
    }

    /**
     * Moves time forward by {@code amount} nanoseconds and runs the tasks that fall due.
     *
     * @param amount how far to move, in nanoseconds, zero or more
     * @throws IllegalArgumentException if {@code amount} is negative, or would take the clock past {@link
     *     SluiceClock#MAX_NANOS}
     */
    public void advanceNanos(long amount) {
        if (amount < 0) {
            throw new IllegalArgumentException("a manual clock only moves forward; amount was " + amount + " ns");
        }
        long target;
        synchronized (this) {
            if (amount > MAX_NANOS - nanos) {
                throw new IllegalArgumentException("a clock reads at most " + MAX_NANOS + " ns from the epoch; "
                        + amount + " ns from " + nanos + " ns goes past it");
            }
            target = nanos + amount;
        }
        for (Scheduled due; (due = nextDue(target)) != null; ) {
            due.task.run();
        }
        synchronized (this) {
            nanos = Math.max(nanos, target);
        }
    }

    /** Runs every task that is due at the current time, without moving time. */
    public void runDue() {
        advanceNanos(0);
    }

    /**
     * The number of scheduled tasks that have neither run nor been cancelled.
     *
     * @return how many tasks are pending
     */
    public synchronized int pendingTasks() {
        return scheduled.size();
    }

    private synchronized Scheduled nextDue(long target) {
        Scheduled head = scheduled.peek();
        if (head == null || head.dueNanos > target) {
            return null;
        }
        scheduled.poll();
        nanos = Math.max(nanos, head.dueNanos);
        return head;
    }

    @Override
    public void sleep(long nanos) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long left;
        synchronized (this) {
            left = MAX_NANOS - this.nanos;
        }
        advanceNanos(Math.min(Math.max(0, nanos), left));
    }

    @Override
    public synchronized Timer schedule(long delayNanos, Runnable task) {
        TaskCheck.notNull(task);
        // Saturates: a delay past the end of time never falls due, rather than wrapping into the past.
        long due = nanos + Math.max(0, delayNanos);
        if (due < nanos) {
            due = Long.MAX_VALUE;
        }
        Scheduled entry = new Scheduled(due, sequence++, task);
        scheduled.add(entry);
        return () -> {
            synchronized (ManualClock.this) {
                return scheduled.remove(entry);
            }
        };
    }

    @Override
    public synchronized String toString() {
        return "ManualClock[" + instant() + "]";
    }

    private record Scheduled(long dueNanos, long order, Runnable task) implements Comparable<Scheduled> {
        @Override
        public int compareTo(Scheduled other) {
            int byTime = Long.compare(dueNanos, other.dueNanos);
            return byTime != 0 ? byTime : Long.compare(order, other.order);
        }
    }
}
