package dev.sluice.time;

import java.time.Instant;

/**
 * The source of time, sleeping and delayed execution for everything Sluice does.
 *
 * <p>Engine code never reads the system clock directly: it asks its {@code SluiceClock}. Production code uses
 * {@link #system()}; tests use a {@link ManualClock} and move time by hand, so delays, windows and
 * backoff are tested without sleeping.
 *
 * <p>Implementations are thread-safe.
 */
public interface SluiceClock {

    /**
     * The most a reading may be from the epoch, either way: 2^62 ns, about 146 years (1823 to 2116). Limits
     * add spans of up to a quarter of the long range to readings, which stays exact within this range.
     */
    long MAX_NANOS = 1L << 62;

    /**
     * The current time in nanoseconds since the Unix epoch, within {@link #MAX_NANOS} of it. Successive
     * readings never decrease, even when the host's wall clock is stepped backwards.
     */
    long nanos();

    /** The current time as an instant; the same reading as {@link #nanos()}. */
    default Instant instant() {
        return toInstant(nanos());
    }

    /** The instant {@code epochNanos} nanoseconds from the Unix epoch (negative: before it). */
    static Instant toInstant(long epochNanos) {
        return Instant.ofEpochSecond(
                Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
    }

    /**
     * {@code instant} in nanoseconds from the Unix epoch.
     *
     * @throws ArithmeticException if it lies more than about 292 years from the epoch
     */
    static long toEpochNanos(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
    }

    /**
     * Waits until this clock has moved forward by {@code nanos}.
     *
     * @param nanos how long to wait, in nanoseconds; zero or negative returns at once
     * @throws InterruptedException if the waiting thread is interrupted
     */
    void sleep(long nanos) throws InterruptedException;

    /**
     * Runs {@code task} once this clock has moved forward by {@code delayNanos}. The task runs on a thread
     * of the clock's choosing and must not block.
     *
     * @param delayNanos the delay in nanoseconds; zero or negative means as soon as possible
     * @param task what to run
     * @return a handle that cancels the task if it has not started yet
     */
    Timer schedule(long delayNanos, Runnable task);

    /** The clock of the running JVM: epoch-anchored, monotonic, sleeping and scheduling for real. */
    static SluiceClock system() {
        return SystemClock.INSTANCE;
    }

    /** A task scheduled on a clock. */
    interface Timer {
        /**
         * Cancels the task.
         *
         * @return true if the task will not run because of this call, false if it already ran or was
         *     cancelled
         */
        boolean cancel();
    }
}
