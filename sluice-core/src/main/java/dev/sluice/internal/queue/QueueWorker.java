package dev.sluice.internal.queue;

import dev.sluice.SluiceException;
import dev.sluice.queue.Processor;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * A worker, the same on every engine: one virtual thread per slot, each running one job at a time, over the engine's
 * {@link WorkerStore}. A slot records how its job ended and claims the next in one call of the store; an idle slot
 * waits in the store for work.
 *
 * <p>Closing stops the claims and waits for the running jobs until the deadline, then has the store give them
 * back and interrupts them. A claim on its way when the close began holds the close open until it is answered; a
 * job it brings after the deadline goes straight back. The worker's state is guarded by its monitor, which it never
 * holds while it calls the store or completes a future; the counts a slot's call changes are atomic, so that the
 * slots' calls take no lock of the worker's.
 *
 * @param <T> the payload type
 * @param <J> the engine's claimed job
 */
public final class QueueWorker<T, J extends ClaimedAttempt> implements Worker<T> {
    private final WorkerStore<T, J> store;
    private final QueueFront<T> queue;
    private final Processor<T> processor;
    private final WorkerOptions options;
    private final List<Slot> slots = new ArrayList<>();
    private final CompletableFuture<CloseReport> closed = new CompletableFuture<>();
    /** Written under the monitor; read without it where a stale answer is settled later (see {@link #claiming}). */
    private volatile WorkerState state = WorkerState.NEW;

    private final AtomicInteger active = new AtomicInteger();
    private final AtomicInteger finishedWhileClosing = new AtomicInteger();
    private final AtomicInteger returned = new AtomicInteger();
    /**
     * Claims on their way to the store, plus {@link #NO_MORE_CLAIMS} once the worker closes: the close completes only
     * once they are answered. Kept apart from the monitor so that a slot's claim takes no lock of the worker's.
     */
    private final AtomicInteger claims = new AtomicInteger();

    private static final int NO_MORE_CLAIMS = 1 << 30;
    /** Whether a job a claim on its way brings goes straight back: the deadline passed, or the worker never started. */
    private volatile boolean returnOnArrival;
    /** Whether the close no longer waits for running jobs: the deadline returned them, or the worker never started. */
    private boolean runningReleased;
    /** Whether the closed worker still has to tell the store and complete its close (outside the monitor). */
    private volatile boolean closeToComplete;

    private SluiceClock.Timer deadlineTimer;

    /**
     * A worker running {@code processor} with {@code options} over the store {@code storeOf} makes for it.
     *
     * @param storeOf the engine's store of this worker
     */
    public QueueWorker(
            Processor<T> processor, WorkerOptions options, Function<QueueWorker<T, J>, WorkerStore<T, J>> storeOf) {
        this.processor = processor;
        this.options = options;
        this.store = storeOf.apply(this);
        this.queue = store.queue();
    }

    /** The worker's options. */
    public WorkerOptions options() {
        return options;
    }

    @Override
    public void start() {
        queue.checkOpen();
        synchronized (this) {
            if (state != WorkerState.NEW) {
                if (state == WorkerState.MANUAL) {
                    throw new IllegalStateException("worker is inside runDue(); start it after runDue returns");
                }
                return;
            }
            state = WorkerState.RUNNING;
            for (int i = 0; i < options.concurrency(); i++) {
                slots.add(new Slot(i));
            }
        }
        store.started();
        for (Slot slot : List.copyOf(slots)) {
            Thread.ofVirtual().name("sluice-" + queue.name() + "-" + slot.index).start(slot::loop);
        }
    }

    @Override
    public int runDue() {
        queue.checkOpen();
        Slot slot = new Slot(0);
        synchronized (this) {
            if (state != WorkerState.NEW) {
                throw new IllegalStateException("runDue() is for a worker that has not started; this one is " + state);
            }
            state = WorkerState.MANUAL;
            slot.thread = Thread.currentThread();
            slots.add(slot);
        }
        store.started();
        int ran = 0;
        try {
            J finished = null;
            AttemptEnd ending = null;
            while (true) {
                J next = slot.next(finished, ending, WorkerState.MANUAL);
                ending = null;
                if (next == null) {
                    return ran;
                }
                ran++;
                finished = next;
                ending = slot.run(next);
            }
        } finally {
            synchronized (this) {
                slots.remove(slot);
                if (state == WorkerState.MANUAL) {
                    state = WorkerState.NEW;
                }
            }
            store.stopped();
        }
    }

    @Override
    public int active() {
        queue.checkOpen();
        return active.get();
    }

    @Override
    public CompletableFuture<CloseReport> closeAsync(Duration deadline) {
        QueueChecks.checkCloseDeadline(deadline);
        boolean returnNow = false;
        synchronized (this) {
            if (state == WorkerState.CLOSING || state == WorkerState.CLOSED) {
                return closed.copy();
            }
            boolean started = state == WorkerState.RUNNING;
            state = WorkerState.CLOSING;
            claims.getAndUpdate(c -> c | NO_MORE_CLAIMS);
            for (Slot slot : slots) {
                if (slot.running.get() == null && slot.thread != null && slot.thread != Thread.currentThread()) {
                    slot.thread.interrupt();
                }
            }
            returnOnArrival = !started;
            runningReleased = !started;
            finishCloseIfDone();
            if (state == WorkerState.CLOSING && started) {
                if (deadline.isZero()) {
                    returnNow = true;
                } else {
                    deadlineTimer = queue.clock().schedule(deadline.toNanos(), this::deadlinePassed);
                }
            }
        }
        completeCloseIfDue();
        store.wakeIdle();
        if (returnNow) {
            deadlinePassed();
        }
        return closed.copy();
    }

    /** Returns every running job to waiting (without using an attempt) and interrupts its processor. */
    private void deadlinePassed() {
        List<Slot> running = new ArrayList<>();
        synchronized (this) {
            if (state != WorkerState.CLOSING) {
                return;
            }
            returnOnArrival = true;
            for (Slot slot : slots) {
                if (slot.running.get() != null) {
                    running.add(slot);
                }
            }
        }
        for (Slot slot : running) {
            J job = slot.running.get();
            if (job != null) {
                slot.calls.giveBack(job);
                slot.interruptAttempt(job);
            }
        }
        synchronized (this) {
            runningReleased = true;
            finishCloseIfDone();
        }
        completeCloseIfDue();
    }

    /** Under the monitor: closes once nothing holds the close open; {@link #completeCloseIfDue} then completes it. */
    private void finishCloseIfDone() {
        if (state == WorkerState.CLOSING && claims.get() == NO_MORE_CLAIMS && (runningReleased || active.get() == 0)) {
            state = WorkerState.CLOSED;
            closeToComplete = true;
        }
    }

    /** Outside the monitor: tells the store the worker closed and completes the close, once. */
    private void completeCloseIfDue() {
        if (!closeToComplete) {
            return;
        }
        CloseReport report;
        SluiceClock.Timer deadline;
        synchronized (this) {
            if (!closeToComplete) {
                return;
            }
            closeToComplete = false;
            report = new CloseReport(finishedWhileClosing.get(), returned.get());
            deadline = deadlineTimer;
        }
        if (deadline != null) {
            deadline.cancel();
        }
        store.stopped();
        store.forget();
        closed.complete(report);
    }

    // ---------------------------------------------------------------- what the store tells

    /**
     * Whether the worker still takes jobs: it runs (started, or inside {@code runDue}) and the engine is open. A
     * store asks it before it claims; a close that begins just after is settled by {@link #settle}.
     */
    public boolean claiming() {
        WorkerState now = state;
        return (now == WorkerState.RUNNING || now == WorkerState.MANUAL) && !queue.isClosed();
    }

    private boolean claimable(WorkerState expected) {
        return state == expected && !queue.isClosed();
    }

    /** Whether the worker takes jobs in state {@code expected}; if so, a claim is on its way until it is settled. */
    private boolean beginClaim(WorkerState expected) {
        if (!claimable(expected)) {
            return false;
        }
        while (true) {
            int pending = claims.get();
            if ((pending & NO_MORE_CLAIMS) != 0) {
                return false;
            }
            if (claims.compareAndSet(pending, pending + 1)) {
                return true;
            }
        }
    }

    /**
     * Whether the store may claim a job for an idle slot of this started worker, outside the slot's own calls; if so,
     * the claim holds the close open until {@link #settle} ends it.
     */
    public boolean beginHandOff() {
        return beginClaim(WorkerState.RUNNING);
    }

    /**
     * Ends a claim for {@code slot} that brought {@code next} (or nothing: null) and returns the job to run; a job
     * that came after the close deadline goes back to waiting unrun, and this returns null.
     */
    public J settle(Slot slot, J next) {
        boolean giveBack = next != null && returnOnArrival;
        if (!giveBack && claims.decrementAndGet() == NO_MORE_CLAIMS) {
            synchronized (this) {
                finishCloseIfDone();
            }
        }
        if (giveBack) {
            slot.calls.giveBack(next); // still pending: the close's report counts it before the close completes
            synchronized (this) {
                claims.decrementAndGet();
                finishCloseIfDone();
            }
        }
        completeCloseIfDue();
        return giveBack ? null : next;
    }

    /** The store claimed {@code job} for {@code slot}: the worker counts it as running. */
    public void took(Slot slot, J job) {
        active.incrementAndGet();
        slot.running.set(job);
    }

    /**
     * The store recorded the end of the attempt of {@code job} that {@code slot}'s processor returned from, whether or
     * not the attempt still owned the job: the worker no longer counts it, unless the close deadline returned it
     * before. Told in the order the store recorded the job's endings.
     */
    public void endedBySlot(Slot slot, J job) {
        if (slot.running.compareAndSet(job, null)) {
            active.decrementAndGet();
            if (state == WorkerState.CLOSING) {
                finishedWhileClosing.incrementAndGet();
            }
        }
    }

    /**
     * The store returned {@code job}, which {@code slot} runs and the store still owned, to waiting at the close
     * deadline: the worker counts it as returned, unless the slot's ending was recorded before.
     */
    public void returned(Slot slot, J job) {
        if (slot.running.compareAndSet(job, null)) {
            returned.incrementAndGet();
            active.decrementAndGet();
        }
    }

    /** The jobs the slots run now; none once the worker closed or before it took jobs. */
    public synchronized List<J> running() {
        List<J> running = new ArrayList<>();
        if (state == WorkerState.CLOSED || state == WorkerState.NEW) {
            return running;
        }
        for (Slot slot : slots) {
            J job = slot.running.get();
            if (job != null) {
                running.add(job);
            }
        }
        return running;
    }

    // ---------------------------------------------------------------- slots

    /** One of the worker's threads, and the job it runs. */
    public final class Slot {
        /** The slot's number, 0 to the concurrency less one. */
        public final int index;

        private final WorkerStore.SlotCalls<J> calls;
        private Thread thread;
        private final AtomicReference<J> running = new AtomicReference<>();

        /** The attempt inside the processor now, which a timeout or the close deadline interrupts. */
        private final RunningAttempt inProcessor = new RunningAttempt();

        Slot(int index) {
            this.index = index;
            this.calls = store.slotCalls(this);
        }

        /** The worker this slot belongs to. */
        public QueueWorker<T, J> worker() {
            return QueueWorker.this;
        }

        /** The job this slot runs now, or null. */
        public J running() {
            return running.get();
        }

        /** The attempt inside this slot's processor now, which a timeout interrupts. */
        public RunningAttempt inProcessor() {
            return inProcessor;
        }

        /** Interrupts this slot's thread if it still runs {@code job}; the interrupt is cleared when the attempt ends. */
        public void interruptAttempt(J job) {
            inProcessor.interrupt(job, job.token());
        }

        void loop() {
            synchronized (QueueWorker.this) {
                thread = Thread.currentThread();
            }
            AttemptEnd ending = null;
            J finished = null;
            while (true) {
                J next;
                boolean failed = false;
                try {
                    next = next(finished, ending, WorkerState.RUNNING);
                } catch (SluiceException | IllegalStateException e) {
                    if (queue.isClosed()) {
                        exit();
                        return;
                    }
                    store.failed(e);
                    next = null;
                    failed = true;
                    if (ending != null && finished != null && calls.resendAfterPause(finished)) {
                        continue;
                    }
                }
                if (!failed) {
                    store.succeeded();
                }
                ending = null;
                finished = null;
                if (next == null) {
                    if (!claimable(WorkerState.RUNNING)) {
                        exit();
                        return;
                    }
                    next = calls.awaitWork(failed);
                    if (next == null) {
                        continue;
                    }
                }
                Thread.interrupted();
                finished = next;
                ending = run(next);
            }
        }

        private void exit() {
            calls.exit();
            synchronized (QueueWorker.this) {
                finishCloseIfDone();
            }
            completeCloseIfDue();
            Thread.interrupted();
        }

        /**
         * Records {@code ending} of {@code job}, the job this slot ran (unless {@code ending} is null), and claims the
         * next job if the worker still takes jobs in state {@code claimingIn}; returns the job to run next, or null.
         */
        J next(J job, AttemptEnd ending, WorkerState claimingIn) {
            boolean claiming = beginClaim(claimingIn);
            J next = null;
            try {
                if (ending != null || claiming) {
                    next = calls.endAndClaim(job, ending, claiming);
                }
            } finally {
                if (claiming) {
                    next = settle(this, next);
                }
            }
            return next;
        }

        /** Runs the processor on {@code job}; returns how the attempt ended. */
        AttemptEnd run(J job) {
            inProcessor.enter(job, job.token());
            try {
                return AttemptEnd.run(processor, store.context(job), job.attempt(), job.options());
            } finally {
                inProcessor.leave();
            }
        }
    }

    @Override
    public String toString() {
        return "worker of " + queue + " (concurrency " + options.concurrency() + ")";
    }
}
