package dev.sluice.time;

import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * The JVM's clock: the host's wall clock read through {@link System#nanoTime()}, re-anchored about once a
 * second.
 *
 * <p>A reading is one piece of a piecewise-linear function of the monotonic source: each piece starts at a
 * monotonic instant, at a reading, and lasts {@link #PIECE} monotonic nanoseconds, during which it runs at
 * full speed or, while it catches up with a wall clock that is behind it, at no less than 7/8 of it. The
 * first reading past a piece's end takes a lock, reads the wall clock, and starts the next piece from where
 * the last one got to: ahead by the wall clock's lead if the wall clock is ahead (a jump forward), slowed by
 * its lag (at most {@link #MAX_SLEW} per piece) if it is behind. A reader of a piece never reads past its
 * end, so every reading is one value of one non-decreasing function, whichever thread takes it. The hot path
 * is one volatile read, one {@code nanoTime}, and integer arithmetic.
 *
 * <p>Timers run on one daemon thread of a {@link ScheduledThreadPoolExecutor} that removes cancelled tasks
 * at once; a task that falls due runs on a virtual thread of its own.
 */
final class SystemClock implements SluiceClock {
    static final SystemClock INSTANCE = new SystemClock(SystemClock::monotonicNanos, SystemClock::wallNanos);

    private static final int PIECE_SHIFT = 30;

    /** How long a piece lasts, in monotonic nanoseconds: 2^30 ns, about 1.07 s. */
    static final long PIECE = 1L << PIECE_SHIFT;

    /** The most one piece slows the clock by: an eighth of it, so the clock runs at 7/8 speed or more. */
    static final long MAX_SLEW = PIECE >> 3;

    /**
     * A wall reading that took longer than this (the reading thread was descheduled) is not trusted: the piece
     * after it continues the last one unchanged.
     */
    static final long MAX_READ_SPAN = 100_000;

    private static final ThreadFactory TASK_THREADS =
            Thread.ofVirtual().name("sluice-clock-task").factory();

    private final LongSupplier monotonic;
    private final LongSupplier wall;
    private final ScheduledThreadPoolExecutor timers;
    private volatile Piece piece;

    /**
     * A clock on the given sources.
     *
     * @param monotonic nanoseconds from an arbitrary origin, never decreasing ({@code System.nanoTime()})
     * @param wall nanoseconds since the epoch, as the host's clock says, which may step either way
     */
    SystemClock(LongSupplier monotonic, LongSupplier wall) {
        this.monotonic = monotonic;
        this.wall = wall;
        this.timers = new ScheduledThreadPoolExecutor(
                1, Thread.ofPlatform().name("sluice-clock").daemon().factory());
        timers.setRemoveOnCancelPolicy(true);
        long start = monotonic.getAsLong();
        this.piece = new Piece(start, wall.getAsLong(), 0);
    }

    private static long monotonicNanos() {
        return System.nanoTime();
    }

    private static long wallNanos() {
        return SluiceClock.toEpochNanos(Instant.now());
    }

    @Override
    public long nanos() {
        Piece current = piece;
        long elapsed = monotonic.getAsLong() - current.start;
        if (Long.compareUnsigned(elapsed, PIECE) >= 0) {
            return nextPiece();
        }
        return current.at(elapsed);
    }

    /** Called once the monotonic source has passed the current piece's end (or, on a faulty source, gone back). */
    private synchronized long nextPiece() {
        Piece current = piece;
        long now = monotonic.getAsLong();
        long elapsed = Math.max(0, now - current.start);
        if (elapsed < PIECE) {
            return current.at(elapsed);
        }
        long reached = current.base + elapsed - current.slew;
        long wallNow = wall.getAsLong();
        long readSpan = monotonic.getAsLong() - now;
        Piece next;
        if (readSpan > MAX_READ_SPAN) {
            next = new Piece(now, reached, 0);
        } else {
            long lead = wallNow - readSpan / 2 - reached;
            next = lead >= 0 ? new Piece(now, reached + lead, 0) : new Piece(now, reached, Math.min(-lead, MAX_SLEW));
        }
        piece = next;
        return next.base;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Sleeps again for what is left if the clock moved less than the time slept (while it catches up with a
     * wall clock that was set back).
     */
    @Override
    public void sleep(long nanos) throws InterruptedException {
        if (nanos <= 0) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            return;
        }
        long until = saturatedAdd(nanos(), nanos);
        for (long left = nanos; left > 0; left = until - nanos()) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    @Override
    public Timer schedule(long delayNanos, Runnable task) {
        TaskCheck.notNull(task);
        long delay = Math.max(0, delayNanos);
        SystemTimer timer = new SystemTimer(task, saturatedAdd(nanos(), delay));
        timer.arm(delay);
        return timer;
    }

    /** The number of timers queued and not yet due or cancelled. */
    int queuedTimers() {
        return timers.getQueue().size();
    }

    /** How many times a timer fell due on the executor: ran its task, or found the clock short and re-armed. */
    long timerFirings() {
        return timers.getCompletedTaskCount();
    }

    @Override
    public String toString() {
        return this == INSTANCE ? "SluiceClock.system()" : "SystemClock[" + instant() + "]";
    }

    private static long saturatedAdd(long reading, long nanos) {
        long sum = reading + nanos;
        return sum < reading ? Long.MAX_VALUE : sum;
    }

    /**
     * One piece of the clock: from the monotonic instant {@code start}, reading {@code base}, and losing
     * {@code slew} nanoseconds spread evenly over its {@link #PIECE} nanoseconds.
     */
    private record Piece(long start, long base, long slew) {
        /** The reading {@code elapsed} nanoseconds into the piece, {@code 0 <= elapsed < PIECE}. */
        long at(long elapsed) {
            return base + elapsed - ((elapsed * slew) >> PIECE_SHIFT);
        }
    }

    /**
     * A task due when the clock reads {@code due}. It holds the task until it runs or is cancelled, and the
     * executor holds it only while it is queued: after either, nothing here keeps the task reachable.
     */
    private final class SystemTimer implements Timer, Runnable {
        private final AtomicReference<Runnable> task;
        private final long due;
        private volatile ScheduledFuture<?> queued;

        SystemTimer(Runnable task, long due) {
            this.task = new AtomicReference<>(task);
            this.due = due;
        }

        void arm(long delayNanos) {
            queued = timers.schedule(this, delayNanos, TimeUnit.NANOSECONDS);
            if (task.get() == null) {
                queued.cancel(false); // cancelled while being armed: leave nothing queued
            }
        }

        @Override
        public void run() {
            Runnable pending = task.get();
            if (pending == null) {
                return;
            }
            long left = due - nanos();
            if (left > 0) {
                arm(left);
            } else if (task.compareAndSet(pending, null)) {
                TASK_THREADS.newThread(pending).start();
            }
        }

        @Override
        public boolean cancel() {
            if (task.getAndSet(null) == null) {
                return false;
            }
            ScheduledFuture<?> future = queued;
            if (future != null) {
                future.cancel(false);
            }
            return true;
        }

        @Override
        public String toString() {
            return "Timer[due " + SluiceClock.toInstant(due) + (task.get() == null ? ", done" : "") + "]";
        }
    }
}
