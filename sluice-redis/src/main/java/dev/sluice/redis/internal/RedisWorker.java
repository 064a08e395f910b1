package dev.sluice.redis.internal;

import dev.sluice.SluiceException;
import dev.sluice.internal.queue.AttemptEnd;
import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.internal.queue.RunningAttempt;
import dev.sluice.internal.queue.WorkerState;
import dev.sluice.queue.Job;
import dev.sluice.queue.Processor;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker on a Redis queue: one virtual thread per slot, each running one job at a time under a lease that the
 * worker renews while the job runs. A slot records how its job ended and claims the next in one call of the
 * queue script; the script refuses an ending whose lease was lost (another worker may have the job now). The slots'
 * calls are combined by {@link WorkerCalls}; a claimed job is a {@link ClaimedJob}, and the processor sees it through a
 * {@link RedisJobContext}.
 */
final class RedisWorker<T> implements Worker<T> {
    private static final Logger LOG = LoggerFactory.getLogger(RedisWorker.class);
    /** The longest an idle slot waits without claiming, should its process's {@link WorkWatcher} fall silent. */
    private static final long IDLE_BACKSTOP_MILLIS = 30_000;

    private static final long NEVER = 1L << 53;
    private static final String CLOSED_REASON = "its worker closed before it finished";
    /** The script's kind of ending for a job returned to waiting by the close deadline. */
    private static final String RETURNED = "i";

    private final RedisJobQueue<T> queue;
    /** The worker's calls of the queue script. */
    private final WorkerCalls<T> calls;

    private final Processor<T> processor;
    private final WorkerOptions options;
    private final List<Slot> slots = new ArrayList<>();
    private final CompletableFuture<CloseReport> closed = new CompletableFuture<>();
    final String leaseMicros;
    final String maxStalls;
    private WorkerState state = WorkerState.NEW;
    private int active;
    private int finishedWhileClosing;
    private int returned;
    /** Slots' claims on their way to Redis: close completes only once they are answered. */
    private int claimsPending;
    /**
     * Whether a job that a claim on its way brings goes straight back to waiting: the close deadline passed, or the
     * worker closed inside {@link #runDue}.
     */
    private boolean returnOnArrival;
    /** Whether close no longer waits for running jobs: the deadline returned them, or the worker was not started. */
    private boolean runningReleased;

    private SluiceClock.Timer deadlineTimer;
    private SluiceClock.Timer renewTimer;

    RedisWorker(RedisJobQueue<T> queue, Processor<T> processor, WorkerOptions options) {
        this.queue = queue;
        this.processor = processor;
        this.options = options;
        this.leaseMicros = Long.toString(RedisJobQueue.micros(options.leaseTime()));
        this.maxStalls = Integer.toString(options.maxStalls());
        this.calls = new WorkerCalls<>(this, queue, options.concurrency());
        this.outages = new WorkerOutageLog(this, queue.engine.retryIntervalNanos());
    }

    private SluiceClock clock() {
        return queue.clock();
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
            scheduleRenewal();
        }
        for (Slot slot : slots) {
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
            scheduleRenewal();
        }
        int ran = 0;
        try {
            Ending ending = null;
            while (true) {
                ClaimedJob<T> next = slot.next(slot.lastRun, ending, WorkerState.MANUAL);
                ending = null;
                if (next == null) {
                    return ran;
                }
                ran++;
                ending = slot.run(next);
            }
        } finally {
            synchronized (this) {
                slots.remove(slot);
                if (renewTimer != null) {
                    renewTimer.cancel();
                    renewTimer = null;
                }
                if (state == WorkerState.MANUAL) {
                    state = WorkerState.NEW;
                }
            }
        }
    }

    /** Whether the worker still takes jobs: it runs (started, or inside runDue) and the queue is open. */
    synchronized boolean claiming() {
        return (state == WorkerState.RUNNING || state == WorkerState.MANUAL) && !queue.isClosed();
    }

    private synchronized boolean claimable(WorkerState expected) {
        return state == expected && !queue.isClosed();
    }

    /** Whether the worker takes jobs in state {@code expected}; if so, a claim is on its way until it is settled. */
    private synchronized boolean beginClaim(WorkerState expected) {
        if (!claimable(expected)) {
            return false;
        }
        claimsPending++;
        return true;
    }

    /**
     * Whether an add may claim a job for an idle slot of this worker: it runs and the queue is open. If so, the claim
     * holds the close open until the slot's {@link Slot#handed} or {@link Slot#notHanded} settles it.
     */
    boolean beginHandOff() {
        return beginClaim(WorkerState.RUNNING);
    }

    /** This worker's calls, for an add that claims for its slots (claim references, lost claims). */
    WorkerCalls<T> calls() {
        return calls;
    }

    /** Under this worker's monitor: completes the close once nothing holds it open. */
    private void finishCloseIfDone() {
        if (state == WorkerState.CLOSING && claimsPending == 0 && (runningReleased || active == 0)) {
            finishClose();
        }
    }

    @Override
    public synchronized int active() {
        queue.checkOpen();
        return active;
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
            for (Slot slot : slots) {
                if (slot.running == null && slot.thread != null && slot.thread != Thread.currentThread()) {
                    slot.thread.interrupt();
                }
            }
            returnOnArrival = !started;
            runningReleased = !started;
            finishCloseIfDone();
            if (state == WorkerState.CLOSING && !returnOnArrival) {
                if (deadline.isZero()) {
                    returnNow = true;
                } else {
                    deadlineTimer = clock().schedule(deadline.toNanos(), this::deadlinePassed);
                }
            }
        }
        queue.signal();
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
                if (slot.running != null) {
                    running.add(slot);
                }
            }
        }
        for (Slot slot : running) {
            ClaimedJob<T> job = slot.running;
            if (job != null) {
                slot.giveBack(job);
                slot.interruptAttempt(job);
            }
        }
        synchronized (this) {
            runningReleased = true;
            finishCloseIfDone();
        }
    }

    /** Under this worker's monitor. */
    private void finishClose() {
        if (state == WorkerState.CLOSED) {
            return;
        }
        state = WorkerState.CLOSED;
        if (deadlineTimer != null) {
            deadlineTimer.cancel();
        }
        if (renewTimer != null) {
            renewTimer.cancel();
        }
        queue.forget(this);
        closed.complete(new CloseReport(finishedWhileClosing, returned));
    }

    /** An outage is logged once, at its start and at its end, whichever call meets it. */
    private final WorkerOutageLog outages;

    // ---------------------------------------------------------------- leases

    /** Under this worker's monitor: renews the leases of the running jobs every third of the lease time. */
    private void scheduleRenewal() {
        long every = Math.max(1, options.leaseTime().toNanos() / 3);
        renewTimer = clock().schedule(every, this::renew);
    }

    private void renew() {
        List<ClaimedJob<T>> running = new ArrayList<>();
        synchronized (this) {
            if (state == WorkerState.CLOSED || state == WorkerState.NEW) {
                return;
            }
            for (Slot slot : slots) {
                ClaimedJob<T> job = slot.running;
                if (job != null) {
                    running.add(job);
                }
            }
            scheduleRenewal();
        }
        if (running.isEmpty() || queue.isClosed()) {
            return;
        }
        try {
            calls.renew(running);
        } catch (SluiceException | IllegalStateException e) {
            // the same outage the slots see: one line for it, whichever call meets it first
            outages.failed(e);
        }
    }

    // ---------------------------------------------------------------- jobs

    /** One of the worker's threads, and the job it runs. */
    final class Slot {
        final int index;
        Thread thread;
        volatile ClaimedJob<T> running;

        Slot(int index) {
            this.index = index;
        }

        void loop() {
            synchronized (RedisWorker.this) {
                thread = Thread.currentThread();
            }
            Ending ending = null;
            ClaimedJob<T> finished = null;
            while (true) {
                ClaimedJob<T> next;
                long seen = queue.idleSlots.announcements();
                boolean failed = false;
                try {
                    next = next(finished, ending, WorkerState.RUNNING);
                } catch (SluiceException | IllegalStateException e) {
                    if (queue.isClosed()) {
                        exit();
                        return;
                    }
                    outages.failed(e);
                    next = null;
                    failed = true;
                    if (ending != null && finished != null && !finished.lost) {
                        // the ending is kept and sent again: the job's lease may still hold
                        sleepQuietly();
                        continue;
                    }
                }
                if (!failed) {
                    outages.succeeded();
                }
                ending = null;
                finished = null;
                if (next == null) {
                    if (!claimable(WorkerState.RUNNING)) {
                        exit();
                        return;
                    }
                    next = awaitWork(
                            seen,
                            failed
                                    ? TimeUnit.NANOSECONDS.toMillis(queue.engine.retryIntervalNanos())
                                    : IDLE_BACKSTOP_MILLIS);
                    if (next == null) {
                        continue;
                    }
                }
                Thread.interrupted();
                finished = next;
                ending = run(next);
            }
        }

        private void sleepQuietly() {
            try {
                Thread.sleep(RedisJobQueue.POLL_MILLIS);
            } catch (InterruptedException e) {
                // closing: the loop decides
            }
        }

        long nextDue = NEVER;

        /**
         * Waits until work is announced after the {@code seen}-th announcement (by this process, or by another as the
         * {@link WorkWatcher} hears) and the announcement picks this slot, something falls due, or {@code
         * backstopMillis} passed; returns the job an add of this process claimed for this slot meanwhile, if one did.
         */
        @SuppressWarnings("unchecked")
        private ClaimedJob<T> awaitWork(long seen, long backstopMillis) {
            if (nextDue < NEVER) {
                queue.idleSlots.announceAt(clock(), nextDue * 1000);
            }
            queue.watcher.waitStarts();
            try {
                Object woken = queue.idleSlots.await(this, seen, TimeUnit.MILLISECONDS.toNanos(backstopMillis));
                return woken instanceof ClaimedJob<?> handed ? (ClaimedJob<T>) handed : null;
            } catch (InterruptedException e) {
                // closing interrupts idle slots: the loop decides
                return null;
            } finally {
                queue.watcher.waitEnds();
            }
        }

        /** The worker this slot belongs to. */
        RedisWorker<T> worker() {
            return RedisWorker.this;
        }

        /**
         * A job an add claimed for this idle slot (see {@link #beginHandOff}): counted, its timeout armed, the
         * listeners told; null if the close deadline passed meanwhile (the job went back to waiting).
         */
        ClaimedJob<T> handed(Object reply, List<Consumer<QueueListener<T>>> events) {
            return settleClaim(took(reply, events));
        }

        /** Ends the claim an add began for this slot and that brought it no job. */
        void notHanded() {
            settleClaim(null);
        }

        private void exit() {
            // this slot may have been the one an announcement woke: another takes the work
            queue.idleSlots.announce(1);
            if (!calls.lostClaims.isEmpty() && !queue.isClosed()) {
                try {
                    // gives back what calls whose replies were lost claimed, rather than leave it to their leases
                    calls().submit(new WorkerCalls.Request<>(this, null, null, false, true));
                } catch (SluiceException | IllegalStateException e) {
                    LOG.debug("{} could not give back the jobs of claims whose replies were lost", RedisWorker.this, e);
                }
            }
            synchronized (RedisWorker.this) {
                finishCloseIfDone();
            }
            Thread.interrupted();
        }

        private WorkerCalls<T>.Lane calls() {
            return calls.lane(index);
        }

        /**
         * Records {@code ending} of {@code job}, the job this slot ran (unless {@code ending} is null), and claims the
         * next job if the worker still takes jobs in state {@code claimingIn}; returns the job to run next, or null.
         */
        ClaimedJob<T> next(ClaimedJob<T> job, Ending ending, WorkerState claimingIn) {
            boolean claiming = beginClaim(claimingIn);
            ClaimedJob<T> next = null;
            try {
                if (ending != null) {
                    next = end(job, ending, claiming, true).next();
                } else if (claiming) {
                    next = calls().submit(new WorkerCalls.Request<>(this, null, null, true, true))
                            .next();
                }
            } finally {
                if (claiming) {
                    next = settleClaim(next);
                }
            }
            return next;
        }

        /** Ends this slot's claim: a job it brought after the close deadline goes back to waiting, unrun. */
        private ClaimedJob<T> settleClaim(ClaimedJob<T> next) {
            synchronized (RedisWorker.this) {
                if (next == null || !returnOnArrival) {
                    claimsPending--;
                    finishCloseIfDone();
                    return next;
                }
            }
            giveBack(next); // still pending: the close's report counts it before the close completes
            synchronized (RedisWorker.this) {
                claimsPending--;
                if (running == next) {
                    running = null;
                }
                finishCloseIfDone();
            }
            return null;
        }

        /** Returns {@code job} to waiting, without using an attempt, as the close deadline does. */
        void giveBack(ClaimedJob<T> job) {
            try {
                end(job, new Ending(RETURNED, List.of(CLOSED_REASON), null, null, null), false, false);
            } catch (RuntimeException e) {
                LOG.warn(
                        "returning job '{}' of {} at the close deadline failed; its lease will run out",
                        job.id,
                        queue,
                        e);
            }
        }

        private ClaimedJob<T> lastRun;

        /**
         * Records how an attempt of {@code job} ended and, if {@code claimNext}, claims the next job. {@code
         * bySlot}: the slot's processor returned (the worker stops counting the job), as opposed to a timeout or
         * the close deadline ending the attempt while the processor may still run.
         */
        WorkerCalls.Ended<T> end(ClaimedJob<T> job, Ending ending, boolean claimNext, boolean bySlot) {
            queue.finishing.add(job.id);
            try {
                return calls().submit(new WorkerCalls.Request<>(this, job, ending, claimNext, bySlot));
            } finally {
                queue.finishing.remove(job.id);
            }
        }

        /** Takes the script's answer to the ending of {@code job}; the job's events go to {@code events}. */
        boolean recorded(
                ClaimedJob<T> job,
                Ending ending,
                boolean bySlot,
                boolean owned,
                Object ended,
                String happened,
                List<Consumer<QueueListener<T>>> events) {
            if (owned && job.timeout != null) {
                job.timeout.cancel();
            }
            synchronized (RedisWorker.this) {
                if (bySlot) {
                    if (running == job) {
                        running = null;
                    }
                    if (!job.released) {
                        job.released = true;
                        active--;
                        if (state == WorkerState.CLOSING) {
                            finishedWhileClosing++;
                        }
                    }
                } else if (owned && ending.how().equals(RETURNED) && !job.released) {
                    // returned at the close deadline; counted here, in the order Redis recorded the endings
                    job.released = true;
                    returned++;
                    active--;
                }
            }
            if (owned && ended != null) {
                Job<T> endedJob = queue.snapshots.fromEnding(job.id, ended);
                ending.tell(happened, endedJob, events);
                if (happened.equals("completed") || happened.equals("failed")) {
                    queue.finished(endedJob);
                }
            }
            return owned;
        }

        /** A job this slot just claimed: counted, its timeout armed, the listeners told. */
        ClaimedJob<T> took(Object reply, List<Consumer<QueueListener<T>>> events) {
            ClaimedJob<T> job = new ClaimedJob<>(queue, reply);
            synchronized (RedisWorker.this) {
                active++;
                running = job;
                lastRun = job;
            }
            Duration timeout = job.job.options().timeout();
            if (timeout != null) {
                job.timeout = clock().schedule(timeout.toNanos(), () -> timedOut(job, timeout));
            }
            events.add(l -> l.onActive(job.withPayload()));
            return job;
        }

        /** Fails the attempt whose timeout passed (the script refuses it if the job ended meanwhile). */
        private void timedOut(ClaimedJob<T> job, Duration timeout) {
            if (running != job) {
                return;
            }
            Ending ending = Ending.of(AttemptEnd.timedOut(job.attempt, job.job.options(), timeout));
            try {
                if (end(job, ending, false, false).owned()) {
                    interruptAttempt(job);
                }
            } catch (RuntimeException e) {
                LOG.warn("recording the timeout of job '{}' of {} failed", job.id, queue, e);
            }
        }

        /** Interrupts this slot's thread if it still runs {@code job}; the interrupt is cleared when the attempt ends. */
        void interruptAttempt(ClaimedJob<T> job) {
            inProcessor.interrupt(job, job.token);
        }

        /** The attempt inside the processor now, which a timeout or the close deadline interrupts. */
        private final RunningAttempt inProcessor = new RunningAttempt();

        /** Runs the processor on {@code job}; returns how to record the outcome. */
        Ending run(ClaimedJob<T> job) {
            AttemptEnd end;
            inProcessor.enter(job, job.token);
            try {
                end = AttemptEnd.run(processor, new RedisJobContext<>(queue, job), job.attempt, job.job.options());
            } finally {
                inProcessor.leave();
            }
            return Ending.of(end);
        }
    }

    @Override
    public String toString() {
        return "worker of " + queue + " (concurrency " + options.concurrency() + ")";
    }
}
