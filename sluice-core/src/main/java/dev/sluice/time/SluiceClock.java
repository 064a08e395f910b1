package dev.sluice.time;

import java.time.Instant;

/**
 * The source of time, sleeping and delayed execution for everything Sluice does.
 *
 * <p>Engine code never reads the system clock directly: it asks its {@code SluiceClock}. Production code uses
 * {@link #system()}; tests use a {@link ManualClock} and move time by hand, so delays, windows and
 * backoff are tested without sleeping.
 *
 * <p>One reading serves both needs. {@link #nanos()} is an instant (nanoseconds since the Unix epoch) that
 * never decreases, so the difference of two readings is a duration and an instant stored with a job, or
 * compared by another process, means the same moment everywhere. The system clock follows the host's wall
 * clock: it reads {@link System#nanoTime()} for nanosecond precision and re-anchors on the wall clock about
 * once a second, so it does not drift from real time over a long uptime. When the wall clock is stepped
 * forward, readings jump forward with it (a duration measured across the step includes the step); when it is
 * stepped back, readings do not go back: the clock runs slower, at no less than 7/8 of real time, until it is
 * level with the wall clock again (a duration measured meanwhile is up to 1/8 short). Sleeping and timers wait
 * until the clock itself has moved by the amount asked, through either.
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
     *
     * @return the current time, in nanoseconds since 1970-01-01T00:00:00Z
     */
    long nanos();

    /**
     * The current time as an instant; the same reading as {@link #nanos()}.
     *
     * @return the current time
     */
    default Instant instant() {
        return toInstant(nanos());
    }

    /**
     * The instant {@code epochNanos} nanoseconds from the Unix epoch.
     *
     * @param epochNanos nanoseconds since the Unix epoch; negative before it
     * @return that instant
     */
    static Instant toInstant(long epochNanos) {
        return Instant.ofEpochSecond(
                Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
    }

    /**
     * {@code instant} in nanoseconds from the Unix epoch.
     *
     * @param instant the instant to convert
     * @return nanoseconds since the Unix epoch; negative before it
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
     * @return a handle that cancels the task if it has not started yet; once cancelled, the clock holds no
     *     reference to the task
     * @throws IllegalArgumentException if {@code task} is null
     */
    Timer schedule(long delayNanos, Runnable task);

    /**
     * The clock of the running JVM: the host's wall clock with nanosecond precision, never decreasing,
     * sleeping and scheduling for real. Its tasks run on virtual threads; a cancelled task is released at once.
     *
     * @return the one system clock
     */
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
