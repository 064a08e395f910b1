package dev.sluice.redis.internal;

import dev.sluice.time.SluiceClock;
import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The slots of a queue's workers in this process that have nothing to run, and the announcements that work may start.
 * An announcement wakes as many idle slots as it names, the latest to fall idle first, and the others sleep on: a job
 * added wakes one slot, not every slot of the process. A slot that was busy while an announcement was made does not
 * wait for the next one, so that no announcement is lost between a slot's claim and its wait.
 *
 * <p>The slots pass announcements on: a claim call that started every job it asked for announces as many again (more
 * may wait), and a slot that stops while it may have been woken announces one.
 */
final class IdleSlots {
    /** An announcement that wakes every idle slot: what may start is not known. */
    static final int ALL = Integer.MAX_VALUE;

    private static final class Sleeper {
        final Thread thread = Thread.currentThread();
        volatile boolean woken;
    }

    private final ReentrantLock lock = new ReentrantLock();
    /** The idle slots, the latest to fall idle first. */
    private final ArrayDeque<Sleeper> idle = new ArrayDeque<>();

    private long announcements;

    /** The timer that announces due work; null when none is set. */
    private Due due;

    private static final class Due {
        final long at;
        SluiceClock.Timer timer;

        Due(long at) {
            this.at = at;
        }
    }

    /** The count of announcements so far, to wait for the next with {@link #await}. */
    long announcements() {
        lock.lock();
        try {
            return announcements;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Announces that up to {@code jobs} jobs may start ({@link #ALL}: not known): wakes as many idle slots. Returns
     * how many it woke.
     */
    int announce(int jobs) {
        lock.lock();
        try {
            announcements++;
            int woken = 0;
            for (; woken < jobs && !idle.isEmpty(); woken++) {
                Sleeper sleeper = idle.pollFirst();
                sleeper.woken = true;
                LockSupport.unpark(sleeper.thread);
            }
            return woken;
        } finally {
            lock.unlock();
        }
    }

    /** How many slots are idle now. */
    int idle() {
        lock.lock();
        try {
            return idle.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until an announcement after the {@code seen}-th wakes this thread, or {@code nanos} passed; returns at
     * once if one was made since. Returns whether an announcement woke it (or had been made).
     *
     * @throws InterruptedException if the thread is interrupted (a closing worker interrupts its idle slots)
     */
    boolean await(long seen, long nanos) throws InterruptedException {
        Sleeper me = new Sleeper();
        lock.lock();
        try {
            if (announcements != seen) {
                return true;
            }
            idle.addFirst(me);
        } finally {
            lock.unlock();
        }
        long deadline = System.nanoTime() + nanos;
        try {
            while (!me.woken) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, left);
            }
            return true;
        } finally {
            if (!me.woken) {
                lock.lock();
                try {
                    idle.remove(me);
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /**
     * Announces one job at {@code dueNanos} of {@code clock} (work falls due then), unless an announcement is set
     * for as early already: one timer for all the slots that wait for the same due work.
     */
    void announceAt(SluiceClock clock, long dueNanos) {
        lock.lock();
        try {
            if (due != null && due.at <= dueNanos) {
                return;
            }
            if (due != null) {
                due.timer.cancel();
            }
            Due next = new Due(dueNanos);
            due = next;
            next.timer = clock.schedule(Math.max(1, dueNanos - clock.nanos()), () -> {
                lock.lock();
                try {
                    if (due == next) {
                        due = null;
                    }
                } finally {
                    lock.unlock();
                }
                announce(1);
            });
        } finally {
            lock.unlock();
        }
    }

    /** Cancels the due timer (the queue closes). */
    void stop() {
        lock.lock();
        try {
            if (due != null) {
                due.timer.cancel();
                due = null;
            }
        } finally {
            lock.unlock();
        }
    }
}
