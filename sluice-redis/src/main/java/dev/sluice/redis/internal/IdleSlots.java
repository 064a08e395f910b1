package dev.sluice.redis.internal;

import dev.sluice.time.SluiceClock;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
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

    /** An idle slot's wait. */
    static final class Sleeper {
        final Thread thread = Thread.currentThread();
        /** The slot that waits; null for a waiter that is no slot (tests). */
        final RedisWorker<?>.Slot slot;

        volatile boolean woken;
        /** Taken out of the idle ones by {@link #reserve}: it waits, whatever its deadline, until handed over. */
        volatile boolean reserved;
        /** Interrupted while reserved: its wait ends with the interrupt once it is released without a job. */
        boolean interruptedWhileReserved;
        /** What {@link #handOver} gave it. */
        volatile Object handed;
        /** Whether its backstop's timeout ran: its wait then ends by its own deadline. */
        volatile boolean backstopFired;

        Sleeper(RedisWorker<?>.Slot slot) {
            this.slot = slot;
        }
    }

    /**
     * Ends the long waits of idle slots (the backstop should nothing announce work): a timer wheel of the Redis
     * client's, whose entries cost no thread wake-up to set or cancel; null: each wait is a timed park, whose timer a
     * virtual thread sets and cancels through the fork-join pool's delay scheduler (two wake-ups of its thread per
     * wait).
     */
    private final Timer backstops;

    IdleSlots() {
        this(null);
    }

    IdleSlots(Timer backstops) {
        this.backstops = backstops;
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
        return await(null, seen, nanos) != NOT_WOKEN;
    }

    /** What {@link #await(RedisWorker.Slot, long, long)} returns when no announcement woke the slot. */
    static final Object NOT_WOKEN = new Object();

    /** What {@link #await(RedisWorker.Slot, long, long)} returns when an announcement woke the slot. */
    static final Object ANNOUNCED = new Object();

    /**
     * As {@link #await(long, long)}, for {@code slot}: returns {@link #ANNOUNCED}, {@link #NOT_WOKEN}, or the job an
     * add claimed for this slot and {@link #handOver handed over}. A slot {@link #reserve reserved} by an add waits
     * for its answer, whatever its deadline and interrupts.
     */
    Object await(RedisWorker<?>.Slot slot, long seen, long nanos) throws InterruptedException {
        Sleeper me = new Sleeper(slot);
        lock.lock();
        try {
            if (announcements != seen) {
                return ANNOUNCED;
            }
            idle.addFirst(me);
        } finally {
            lock.unlock();
        }
        long deadline = System.nanoTime() + nanos;
        Timeout backstop = backstops == null ? null : backstop(me, nanos);
        try {
            return sleep(me, deadline, backstop);
        } finally {
            if (backstop != null) {
                backstop.cancel();
            }
        }
    }

    /** A timeout that wakes {@code me} once {@code nanos} passed; null if the timer no longer takes any. */
    private Timeout backstop(Sleeper me, long nanos) {
        try {
            return backstops.newTimeout(
                    timeout -> {
                        me.backstopFired = true;
                        LockSupport.unpark(me.thread);
                    },
                    nanos,
                    TimeUnit.NANOSECONDS);
        } catch (IllegalStateException stopped) {
            return null;
        }
    }

    private Object sleep(Sleeper me, long deadline, Timeout backstop) throws InterruptedException {
        while (!me.woken) {
            boolean interrupted = Thread.interrupted();
            long left = deadline - System.nanoTime();
            if (interrupted || left <= 0 || me.interruptedWhileReserved) {
                lock.lock();
                try {
                    if (me.woken) {
                        break;
                    }
                    if (!me.reserved) {
                        idle.remove(me);
                        if (interrupted || me.interruptedWhileReserved) {
                            throw new InterruptedException();
                        }
                        return NOT_WOKEN;
                    }
                    me.interruptedWhileReserved |= interrupted;
                } finally {
                    lock.unlock();
                }
                LockSupport.park(this);
            } else if (backstop != null && !me.backstopFired) {
                LockSupport.park(this);
            } else {
                LockSupport.parkNanos(this, left);
            }
        }
        return me.handed != null ? me.handed : ANNOUNCED;
    }

    /**
     * Takes up to {@code most} idle slots of one worker (that of the latest to fall idle) out of the idle ones, the
     * latest first, for an add to claim jobs for: each then waits until {@link #handOver handed} a job or {@link
     * #release released}.
     */
    List<Sleeper> reserve(int most) {
        lock.lock();
        try {
            if (idle.isEmpty()) {
                return List.of();
            }
            List<Sleeper> taken = new ArrayList<>(Math.min(most, idle.size()));
            Object worker = null;
            for (Iterator<Sleeper> it = idle.iterator(); it.hasNext() && taken.size() < most; ) {
                Sleeper sleeper = it.next();
                if (sleeper.slot == null || (worker != null && sleeper.slot.worker() != worker)) {
                    continue;
                }
                worker = sleeper.slot.worker();
                it.remove();
                sleeper.reserved = true;
                taken.add(sleeper);
            }
            return taken;
        } finally {
            lock.unlock();
        }
    }

    /** Gives a reserved slot {@code job} and wakes it (null: wakes it as an announcement would). */
    void handOver(Sleeper sleeper, Object job) {
        lock.lock();
        try {
            sleeper.handed = job;
            sleeper.reserved = false;
            sleeper.woken = true;
            LockSupport.unpark(sleeper.thread);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Puts a reserved slot that got no job back among the idle ones, the latest first, where it waits on (or ends its
     * wait, if its deadline passed or it was interrupted meanwhile).
     */
    void release(Sleeper sleeper) {
        lock.lock();
        try {
            sleeper.reserved = false;
            idle.addFirst(sleeper);
            LockSupport.unpark(sleeper.thread);
        } finally {
            lock.unlock();
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
