package dev.sluice.redis.internal;

import dev.sluice.SluiceException;
import dev.sluice.internal.queue.AttemptRules;
import dev.sluice.internal.queue.LazyPayload;
import dev.sluice.internal.queue.MetricsSet;
import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.internal.queue.WorkerState;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobContext;
import dev.sluice.queue.Processor;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import dev.sluice.queue.UnrecoverableJobException;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.DurationText;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker on a Redis queue: one virtual thread per slot, each running one job at a time under a lease that the
 * worker renews while the job runs. A slot records how its job ended and claims the next in one call of the
 * queue script; the script refuses an ending whose lease was lost (another worker may have the job now).
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
    private final Processor<T> processor;
    private final WorkerOptions options;
    private final List<Slot> slots = new ArrayList<>();
    private final CompletableFuture<CloseReport> closed = new CompletableFuture<>();
    private final String leaseMicros;
    private final String maxStalls;
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
        this.lanes = options.concurrency() > ONE_LANE_UP_TO ? List.of(new Calls(), new Calls()) : List.of(new Calls());
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
                Claimed next = slot.next(slot.lastRun, ending, WorkerState.MANUAL);
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
    private synchronized boolean claiming() {
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
            Claimed job = slot.running;
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

    /** Whether the last call of any slot failed: an outage is logged once, at its start and at its end. */
    private final AtomicBoolean unreachable = new AtomicBoolean();

    private void unreachable(RuntimeException e) {
        if (unreachable.compareAndSet(false, true)) {
            LOG.warn(
                    "{} cannot reach Redis ({}); it tries again every {} ms and keeps its running jobs' endings"
                            + " until it can record them",
                    this,
                    ConnectFailure.reason(e),
                    TimeUnit.NANOSECONDS.toMillis(queue.engine.retryIntervalNanos()));
        } else {
            LOG.debug("{} still cannot reach Redis", this, e);
        }
    }

    private void reachable() {
        if (unreachable.get() && unreachable.compareAndSet(true, false)) {
            LOG.info("{} reaches Redis again", this);
        }
    }

    // ---------------------------------------------------------------- leases

    /** Under this worker's monitor: renews the leases of the running jobs every third of the lease time. */
    private void scheduleRenewal() {
        long every = Math.max(1, options.leaseTime().toNanos() / 3);
        renewTimer = clock().schedule(every, this::renew);
    }

    private void renew() {
        List<Claimed> running = new ArrayList<>();
        synchronized (this) {
            if (state == WorkerState.CLOSED || state == WorkerState.NEW) {
                return;
            }
            for (Slot slot : slots) {
                Claimed job = slot.running;
                if (job != null) {
                    running.add(job);
                }
            }
            scheduleRenewal();
        }
        if (running.isEmpty() || queue.isClosed()) {
            return;
        }
        String[] args = new String[1 + 2 * running.size()];
        args[0] = leaseMicros;
        for (int i = 0; i < running.size(); i++) {
            args[1 + 2 * i] = running.get(i).id;
            args[2 + 2 * i] = Long.toString(running.get(i).token);
        }
        try {
            List<Object> held = Replies.list(queue.call(true, "renew", args));
            for (int i = 0; i < running.size(); i++) {
                if (Replies.number(held.get(i)) == 0) {
                    running.get(i).lost = true;
                }
            }
        } catch (SluiceException | IllegalStateException e) {
            // the same outage the slots see: one line for it, whichever call meets it first
            unreachable(e);
        }
    }

    // ---------------------------------------------------------------- jobs

    /**
     * A job claimed by a slot: its id, the token that owns it, its attempt number and its snapshot. The payload is
     * decoded once, when first needed (by the processor, or for a listener), never on the call's lane.
     */
    private final class Claimed {
        final String id;
        final long token;
        final int attempt;
        /** The snapshot without its payload (null), for the options and group. */
        final Job<T> job;

        final LazyPayload<T> payload;
        private final Object reply;
        private Job<T> withPayload;
        /** When the attempt started, epoch microseconds on Redis's clock (or the test clock). */
        final long startedMicros;
        /** The group's scope in the script's statistics: {@code u} without a group, else {@code g<group>}. */
        final String scope;
        /** How long the job waited since it was ready, by the engine's clock; -1 if the claim did not say. */
        final long waitedNanos;

        volatile boolean lost;
        SluiceClock.Timer timeout;
        /** Whether the worker no longer counts it as active: its slot is done with it, or it was returned. */
        boolean released;

        Claimed(Object reply) {
            List<Object> r = Replies.list(reply);
            this.id = Replies.text(SnapshotField.ID.of(r));
            this.token = Replies.number(SnapshotField.TOKEN.of(r));
            this.payload = new LazyPayload<>(id, Replies.bytes(SnapshotField.PAYLOAD.of(r)), queue.codec());
            this.reply = reply;
            this.job = queue.snapshot(reply, null, true);
            this.attempt = job.attemptsMade() + 1;
            this.startedMicros = Replies.number(SnapshotField.STARTED_AT.of(r));
            this.scope = job.group() == null ? "u" : "g" + job.group();
            if (SnapshotField.READY_AT.in(r)) {
                waitedNanos = (startedMicros - Replies.number(SnapshotField.READY_AT.of(r))) * 1000;
                queue.stats.pending.time(scope, 'w', waitedNanos);
            } else {
                waitedNanos = -1;
            }
        }

        /** The snapshot with its payload, as listeners hear it; null for a payload the codec cannot decode. */
        synchronized Job<T> withPayload() {
            if (withPayload == null) {
                T decoded;
                try {
                    decoded = payload.get();
                } catch (LazyPayload.Undecodable e) {
                    decoded = null;
                }
                withPayload = queue.snapshot(reply, decoded, true);
            }
            return withPayload;
        }
    }

    /** How an attempt ended: the script's kind and its arguments, and what the listeners hear. */
    private record Ending(String how, List<String> args, byte[] value, Throwable error, Object detail) {}

    /** One of the worker's threads, and the job it runs. */
    private final class Slot {
        final int index;
        Thread thread;
        volatile Claimed running;
        private boolean interruptSent;

        Slot(int index) {
            this.index = index;
        }

        void loop() {
            synchronized (RedisWorker.this) {
                thread = Thread.currentThread();
            }
            Ending ending = null;
            Claimed finished = null;
            while (true) {
                Claimed next;
                long seen = queue.changes();
                boolean failed = false;
                try {
                    next = next(finished, ending, WorkerState.RUNNING);
                } catch (SluiceException | IllegalStateException e) {
                    if (queue.isClosed()) {
                        exit();
                        return;
                    }
                    unreachable(e);
                    next = null;
                    failed = true;
                    if (ending != null && finished != null && !finished.lost) {
                        // the ending is kept and sent again: the job's lease may still hold
                        sleepQuietly();
                        continue;
                    }
                }
                if (!failed) {
                    reachable();
                }
                ending = null;
                finished = null;
                if (next == null) {
                    if (!claimable(WorkerState.RUNNING)) {
                        exit();
                        return;
                    }
                    awaitWork(
                            seen,
                            failed
                                    ? TimeUnit.NANOSECONDS.toMillis(queue.engine.retryIntervalNanos())
                                    : IDLE_BACKSTOP_MILLIS);
                    continue;
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
         * Waits until the queue changed after {@code seen} (in this process, or in another as the {@link WorkWatcher}
         * hears), something falls due, or {@code backstopMillis} passed.
         */
        private void awaitWork(long seen, long backstopMillis) {
            SluiceClock.Timer timer = null;
            if (nextDue < NEVER) {
                long wait = Math.max(1, nextDue * 1000 - clock().nanos());
                timer = clock().schedule(wait, queue::signal);
            }
            queue.watcher.waitStarts();
            try {
                queue.awaitChangeAfter(seen, backstopMillis);
            } catch (InterruptedException e) {
                // closing interrupts idle slots: the loop decides
            } finally {
                queue.watcher.waitEnds();
                if (timer != null) {
                    timer.cancel();
                }
            }
        }

        private void exit() {
            if (!lostClaims.isEmpty() && !queue.isClosed()) {
                try {
                    // gives back what calls whose replies were lost claimed, rather than leave it to their leases
                    calls().submit(new Request(this, null, null, false, true));
                } catch (SluiceException | IllegalStateException e) {
                    LOG.debug("{} could not give back the jobs of claims whose replies were lost", RedisWorker.this, e);
                }
            }
            synchronized (RedisWorker.this) {
                finishCloseIfDone();
            }
            Thread.interrupted();
        }

        private Calls calls() {
            return lanes.get(index % lanes.size());
        }

        /**
         * Records {@code ending} of {@code job}, the job this slot ran (unless {@code ending} is null), and claims the
         * next job if the worker still takes jobs in state {@code claimingIn}; returns the job to run next, or null.
         */
        Claimed next(Claimed job, Ending ending, WorkerState claimingIn) {
            boolean claiming = beginClaim(claimingIn);
            Claimed next = null;
            try {
                if (ending != null) {
                    next = end(job, ending, claiming, true).next();
                } else if (claiming) {
                    next = calls().submit(new Request(this, null, null, true, true))
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
        private Claimed settleClaim(Claimed next) {
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
        void giveBack(Claimed job) {
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

        private Claimed lastRun;

        /**
         * Records how an attempt of {@code job} ended and, if {@code claimNext}, claims the next job. {@code
         * bySlot}: the slot's processor returned (the worker stops counting the job), as opposed to a timeout or
         * the close deadline ending the attempt while the processor may still run.
         */
        Ended end(Claimed job, Ending ending, boolean claimNext, boolean bySlot) {
            queue.finishing.add(job.id);
            try {
                return calls().submit(new Request(this, job, ending, claimNext, bySlot));
            } finally {
                queue.finishing.remove(job.id);
            }
        }

        /** Takes the script's answer to the ending of {@code job}; the job's events go to {@code events}. */
        private boolean recorded(
                Claimed job,
                Ending ending,
                boolean bySlot,
                boolean owned,
                Object snapshot,
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
                } else if (owned && ending.how.equals(RETURNED) && !job.released) {
                    // returned at the close deadline; counted here, in the order Redis recorded the endings
                    job.released = true;
                    returned++;
                    active--;
                }
            }
            if (owned && snapshot != null) {
                ending(happened, queue.snapshot(snapshot, null, false), ending, events);
            }
            return owned;
        }

        /** The events of an ending the script recorded as {@code happened}; whoever waits for the job is told. */
        private void ending(String happened, Job<T> job, Ending ending, List<Consumer<QueueListener<T>>> events) {
            switch (happened) {
                case "completed" -> {
                    events.add(l -> l.onCompleted(job));
                    queue.finished(job);
                }
                case "failed" -> {
                    events.add(l -> l.onFailed(job));
                    queue.finished(job);
                }
                case "retrying" -> events.add(l -> l.onRetrying(job, ending.error, (Duration) ending.detail));
                case "rate-limited" -> {
                    Result.RateLimited limited = (Result.RateLimited) ending.detail;
                    events.add(l -> l.onRateLimited(job, limited.scope(), limited.retryAfter()));
                }
                case "rescheduled" -> events.add(l -> l.onRescheduled(job, (Duration) ending.detail));
                default -> {}
            }
        }

        /** A job this slot just claimed: counted, its timeout armed, the listeners told. */
        Claimed took(Object reply, List<Consumer<QueueListener<T>>> events) {
            Claimed job = new Claimed(reply);
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
            queue.signal();
            return job;
        }

        /** Fails the attempt whose timeout passed (the script refuses it if the job ended meanwhile). */
        private void timedOut(Claimed job, Duration timeout) {
            if (running != job) {
                return;
            }
            AttemptRules.Retry retry = AttemptRules.backoff(
                    job.attempt,
                    job.job.options().attempts(),
                    job.job.options().backoff(),
                    null,
                    "timed out after " + DurationText.format(timeout));
            Ending ending = failed("TIMED_OUT", retry.reason(), null, retry.delay());
            try {
                if (end(job, ending, false, false).owned()) {
                    interruptAttempt(job);
                }
            } catch (RuntimeException e) {
                LOG.warn("recording the timeout of job '{}' of {} failed", job.id, queue, e);
            }
        }

        /** Interrupts this slot's thread if it still runs {@code job}; the interrupt is cleared when the attempt ends. */
        synchronized void interruptAttempt(Claimed job) {
            if (inProcessor == job && thread != null) {
                interruptSent = true;
                thread.interrupt();
            }
        }

        private Claimed inProcessor;

        private synchronized void enter(Claimed job) {
            inProcessor = job;
        }

        private synchronized void leave() {
            inProcessor = null;
            if (interruptSent) {
                interruptSent = false;
                Thread.interrupted();
            }
        }

        /** Runs the processor on {@code job}; returns how to record the outcome. */
        Ending run(Claimed job) {
            Result result;
            enter(job);
            try {
                result = processor.process(new Context(job));
            } catch (LazyPayload.Undecodable e) {
                return failForGood(e.getCause(), e.getMessage());
            } catch (UnrecoverableJobException e) {
                return failForGood(e, QueueChecks.reasonOf(e));
            } catch (Throwable e) {
                return failure(job, e, QueueChecks.reasonOf(e));
            } finally {
                leave();
            }
            if (result == null) {
                return failure(job, null, QueueChecks.NULL_RESULT);
            }
            if (result instanceof Result.RateLimited limited) {
                String note = "rate limited (" + limited.scope() + ") for " + limited.retryAfter();
                return new Ending(
                        "r",
                        List.of(
                                limited.scope().name(),
                                Long.toString(RedisJobQueue.micros(limited.retryAfter())),
                                note),
                        null,
                        null,
                        limited);
            }
            if (result instanceof Result.RunAgain again) {
                return new Ending(
                        "a", List.of(Long.toString(RedisJobQueue.micros(again.delay()))), null, null, again.delay());
            }
            byte[] value = ((Result.Done) result).value();
            return new Ending("c", List.of(), value, null, null);
        }

        private Ending failForGood(Throwable error, String reason) {
            return failed("FAILED", reason, error, null);
        }

        private Ending failure(Claimed job, Throwable error, String reason) {
            AttemptRules.Retry retry = AttemptRules.backoff(
                    job.attempt, job.job.options().attempts(), job.job.options().backoff(), error, reason);
            return failed("FAILED", retry.reason(), error, retry.delay());
        }

        /** A failed attempt ({@code outcome} FAILED or TIMED_OUT), retried after {@code retryDelay} (null: fails now). */
        private Ending failed(String outcome, String reason, Throwable error, Duration retryDelay) {
            return new Ending(
                    "f",
                    List.of(
                            outcome,
                            reason,
                            error == null ? "" : error.getClass().getName(),
                            error == null ? "" : QueueChecks.stackTrace(error),
                            retryDelay == null ? "-1" : Long.toString(RedisJobQueue.micros(retryDelay))),
                    null,
                    error,
                    retryDelay);
        }
    }

    /** What a recorded ending answered: whether the job was still this worker's, and the job claimed next. */
    private final class Ended {
        private final boolean owned;
        private final Claimed next;

        Ended(boolean owned, Claimed next) {
            this.owned = owned;
            this.next = next;
        }

        boolean owned() {
            return owned;
        }

        Claimed next() {
            return next;
        }
    }

    /**
     * A slot's call to the script: an ending to record (or none) and whether to claim a job; {@code bySlot} as in
     * {@link Slot#end}. Its answer, or the failure of the call that carried it, is set before {@code done}.
     */
    private final class Request extends CallCombiner.Queued {
        final Slot slot;
        final Claimed job;
        final Ending ending;
        final boolean claimNext;
        final boolean bySlot;
        Ended answer;
        RuntimeException failure;
        /** The telling of the call's events, for the slot's thread once the combiner let it go. */
        List<RedisJobQueue.Delivery> deliveries = List.of();
        /** The telling of the call's metrics, for this request's thread once the combiner let it go (one per call). */
        List<Runnable> measures = List.of();

        Request(Slot slot, Claimed job, Ending ending, boolean claimNext, boolean bySlot) {
            this.slot = slot;
            this.job = job;
            this.ending = ending;
            this.claimNext = claimNext;
            this.bySlot = bySlot;
        }
    }

    /**
     * The worker's lanes of calls (a slot's calls all go through one lane, in order): one, whose calls carry all the
     * slots' requests; two for a worker of more than {@link #ONE_LANE_UP_TO} slots, so that one call is on its way
     * while Redis runs the other (measured: with 100 slots, 1.3x the jobs per second; with 10, fewer jobs per call
     * cost Redis more than the overlap gains).
     */
    private final List<Calls> lanes;

    private static final int ONE_LANE_UP_TO = 16;

    /**
     * This worker's name in claim references: a call that claims names its claims {@code <claimer>.<number>}, and
     * the jobs it claimed carry that while active, so that the worker can give back those of a call whose reply it
     * never got (they would otherwise wait for their lease to run out, and count a stall).
     */
    private final String claimer = Long.toHexString(ThreadLocalRandom.current().nextLong());

    private final AtomicLong claimCalls = new AtomicLong();
    /** The claim references of calls that failed, to release with the next calls. */
    private final ConcurrentLinkedQueue<String> lostClaims = new ConcurrentLinkedQueue<>();

    private static final int MOST_RELEASED_PER_CALL = 10;

    /**
     * A lane of the worker's calls to the script, one at a time: while one is in flight, the slots' requests wait,
     * and the next call carries all of them (up to {@link #MOST_PER_CALL}), endings in the order they came and one claim
     * per request that wants one. One slot alone makes one call per job, as it would without this.
     */
    private final class Calls extends CallCombiner<Request> {
        private static final int MOST_PER_CALL = 100;

        Calls() {
            super(MOST_PER_CALL);
        }

        /** Sends {@code request} (alone or with others) and returns its answer, or throws its call's failure. */
        Ended submit(Request request) {
            combine(request);
            request.deliveries.forEach(queue::tell);
            request.measures.forEach(Runnable::run);
            if (request.failure != null) {
                throw request.failure;
            }
            return request.answer;
        }

        @Override
        void send(List<Request> batch) {
            RedisJobQueue.Held held = queue.holding(() -> sendHeld(batch));
            for (Request r : batch) {
                r.deliveries = held.deliveries();
            }
            batch.get(0).measures = held.measures();
        }

        private void sendHeld(List<Request> batch) {
            List<Request> endings = new ArrayList<>(batch.size());
            int claims = 0;
            int size = 8;
            for (Request r : batch) {
                if (r.ending != null) {
                    endings.add(r);
                    size += 4 + (r.ending.how.equals("c") ? 1 : r.ending.args.size());
                }
                if (r.claimNext) {
                    claims++;
                }
            }
            if (!claiming()) {
                claims = 0;
            }
            List<String> releasing = new ArrayList<>();
            for (String lost; releasing.size() < MOST_RELEASED_PER_CALL && (lost = lostClaims.poll()) != null; ) {
                releasing.add(lost);
            }
            size += releasing.size();
            String claimRef = claims == 0 ? "" : claimer + "." + claimCalls.incrementAndGet();
            byte[][] argv = new byte[size][];
            byte[] wanted = RedisJobQueue.bytes(queue.hearsEndings() ? "1" : "0");
            int at = 0;
            argv[at++] = RedisJobQueue.bytes("finish");
            argv[at++] = RedisJobQueue.bytes(queue.now());
            argv[at++] = RedisJobQueue.bytes(Integer.toString(endings.size()));
            for (Request r : endings) {
                argv[at++] = RedisJobQueue.bytes(r.job.id);
                argv[at++] = RedisJobQueue.bytes(Long.toString(r.job.token));
                argv[at++] = RedisJobQueue.bytes(r.ending.how);
                argv[at++] = wanted;
                if (r.ending.how.equals("c")) {
                    byte[] value = r.ending.value;
                    byte[] marked = new byte[value == null ? 0 : value.length + 1];
                    if (value != null) {
                        marked[0] = '=';
                        System.arraycopy(value, 0, marked, 1, value.length);
                    }
                    argv[at++] = marked;
                } else {
                    for (String a : r.ending.args) {
                        argv[at++] = RedisJobQueue.bytes(a);
                    }
                }
            }
            argv[at++] = RedisJobQueue.bytes(Integer.toString(claims));
            argv[at++] = RedisJobQueue.bytes(leaseMicros);
            argv[at++] = RedisJobQueue.bytes(maxStalls);
            argv[at++] = RedisJobQueue.bytes(claimRef);
            argv[at++] = RedisJobQueue.bytes(Integer.toString(releasing.size()));
            for (String ref : releasing) {
                argv[at++] = RedisJobQueue.bytes(ref);
            }
            RedisJobQueue.Sequenced sequenced;
            try {
                sequenced = endings.isEmpty() ? queue.callInOrder(true, argv) : queue.callConfirmed(argv);
            } catch (RuntimeException e) {
                // the call may have run: the jobs it claimed go back with the next call, which may release them
                lostClaims.addAll(releasing);
                if (!claimRef.isEmpty()) {
                    lostClaims.add(claimRef);
                }
                for (Request r : batch) {
                    r.failure = e;
                }
                return;
            }
            if (sequenced.shortfall() != null && !endings.isEmpty()) {
                LOG.warn(
                        "the endings of {} jobs of {} are recorded on the Redis master, but {}; the worker goes on"
                                + " (should a failover lose an ending, its job runs again once its lease runs out)",
                        endings.size(),
                        queue,
                        sequenced.shortfall().text());
            }
            List<Consumer<QueueListener<T>>> events = new ArrayList<>(3 * batch.size());
            try {
                answer(batch, Replies.list(sequenced.reply()), events);
            } catch (RuntimeException e) {
                for (Request r : batch) {
                    if (r.answer == null) {
                        r.failure = e;
                    }
                }
            } finally {
                queue.deliver(sequenced.ticket(), events);
                if (!events.isEmpty()) {
                    queue.signal();
                }
            }
        }

        private void answer(List<Request> batch, List<Object> reply, List<Consumer<QueueListener<T>>> events) {
            long nextDue = Replies.number(reply.get(0));
            long now = Replies.number(reply.get(2));
            int at = 3;
            boolean measured = false;
            boolean[] owned = new boolean[batch.size()];
            for (int i = 0; i < batch.size(); i++) {
                Request r = batch.get(i);
                if (r.ending != null) {
                    owned[i] = r.slot.recorded(
                            r.job,
                            r.ending,
                            r.bySlot,
                            Replies.number(reply.get(at)) == 1,
                            reply.get(at + 1),
                            Replies.text(reply.get(at + 2)),
                            events);
                    if (owned[i]) {
                        measured = true;
                        long processingNanos = (now - r.job.startedMicros) * 1000;
                        String happened = Replies.text(reply.get(at + 2));
                        queue.stats.pending.time(r.job.scope, 'p', processingNanos);
                        if (happened.equals("completed")) {
                            queue.stats.pending.completed(r.job.scope, Math.floorDiv(now, 1_000_000));
                        }
                        measure(r, happened, Duration.ofNanos(processingNanos));
                    }
                    at += 3;
                }
            }
            if (Replies.number(reply.get(1)) == 1) {
                events.add(QueueListener::onDrained);
            }
            for (int i = 0; i < batch.size(); i++) {
                Request r = batch.get(i);
                Claimed next = null;
                if (r.claimNext && at < reply.size()) {
                    next = r.slot.took(reply.get(at++), events);
                    if (next != null) {
                        measureStart(next);
                    }
                }
                measured |= next != null;
                r.slot.nextDue = nextDue;
                r.answer = new Ended(owned[i], next);
            }
            if (measured) {
                queue.stats.statsRecorded();
            }
        }
    }

    /** Tells the queue's metrics that {@code job} started (once the combiner let go: see {@link RedisJobQueue#holding}). */
    private void measureStart(Claimed job) {
        if (job.waitedNanos >= 0 && !queue.metrics.isEmpty()) {
            String group = job.job.group();
            Duration waited = Duration.ofNanos(job.waitedNanos);
            queue.measure(() -> queue.metrics.tell(m -> m.started(group, waited)));
        }
    }

    /** Tells the queue's metrics of an ending the script recorded as {@code happened} (as {@link #measureStart}). */
    private void measure(Request r, String happened, Duration processing) {
        MetricsSet.Ending ending = MetricsSet.Ending.ofWord(happened);
        if (ending == null || queue.metrics.isEmpty()) {
            return;
        }
        Job.Attempt.Outcome outcome = switch (r.ending.how()) {
            case "c" -> Job.Attempt.Outcome.COMPLETED;
            case "f" -> Job.Attempt.Outcome.valueOf(r.ending.args().get(0));
            case "r" -> Job.Attempt.Outcome.RATE_LIMITED;
            case "a" -> Job.Attempt.Outcome.RESCHEDULED;
            default -> Job.Attempt.Outcome.INTERRUPTED;
        };
        Result.Scope scope = r.ending.detail() instanceof Result.RateLimited limited ? limited.scope() : null;
        String group = r.job.job.group();
        queue.measure(() -> queue.metrics.ended(group, ending, outcome, scope, processing));
    }

    /** What the processor sees of one attempt; the payload is decoded when the processor first asks for it. */
    private final class Context implements JobContext<T> {
        private final Claimed claimed;

        Context(Claimed claimed) {
            this.claimed = claimed;
        }

        @Override
        public Job<T> job() {
            return queue.job(claimed.id).orElseGet(claimed::withPayload);
        }

        @Override
        public T payload() {
            return claimed.payload.get();
        }

        @Override
        public int attempt() {
            return claimed.attempt;
        }

        @Override
        public void progress(int percent) {
            if (percent < 0 || percent > 100) {
                throw new IllegalArgumentException("progress must be between 0 and 100, was " + percent);
            }
            RedisJobQueue.Sequenced sequenced = queue.callInOrder(
                    true,
                    queue.arguments("progress", claimed.id, Long.toString(claimed.token), Integer.toString(percent)));
            List<Consumer<QueueListener<T>>> events = new ArrayList<>(1);
            try {
                if (sequenced.reply() != null) {
                    Job<T> job = queue.snapshot(sequenced.reply(), null, false);
                    events.add(l -> l.onProgress(job, percent));
                }
            } finally {
                queue.deliver(sequenced.ticket(), events);
            }
        }

        @Override
        public boolean isCancelled() {
            if (claimed.lost) {
                return true;
            }
            return Replies.number(queue.call(false, "owns", claimed.id, Long.toString(claimed.token))) == 0;
        }
    }

    @Override
    public String toString() {
        return "worker of " + queue + " (concurrency " + options.concurrency() + ")";
    }
}
