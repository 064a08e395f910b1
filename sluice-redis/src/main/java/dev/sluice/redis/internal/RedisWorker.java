package dev.sluice.redis.internal;

import dev.sluice.SluiceException;
import dev.sluice.internal.queue.AttemptEnd;
import dev.sluice.internal.queue.QueueFront;
import dev.sluice.internal.queue.QueueWorker;
import dev.sluice.internal.queue.WorkerStore;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobContext;
import dev.sluice.queue.Processor;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis engine's side of a {@link QueueWorker}: each job runs under a lease that the worker renews while the job
 * runs. A slot records how its job ended and claims the next in one call of the queue script; the script refuses an
 * ending whose lease was lost (another worker may have the job now). The slots' calls are combined by {@link
 * WorkerCalls}; a claimed job is a {@link ClaimedJob}, and the processor sees it through a {@link RedisJobContext}.
 */
final class RedisWorker<T> implements WorkerStore<T, ClaimedJob<T>> {
    private static final Logger LOG = LoggerFactory.getLogger(RedisWorker.class);
    /** The longest an idle slot waits without claiming, should its process's {@link WorkWatcher} fall silent. */
    private static final long IDLE_BACKSTOP_MILLIS = 30_000;

    private static final long NEVER = 1L << 53;
    private static final String CLOSED_REASON = "its worker closed before it finished";
    /** The script's kind of ending for a job returned to waiting by the close deadline. */
    private static final String RETURNED = "i";

    private final RedisJobQueue<T> queue;
    private final QueueWorker<T, ClaimedJob<T>> worker;
    /** The worker's calls of the queue script. */
    private final WorkerCalls<T> calls;

    private final WorkerOptions options;
    final String leaseMicros;
    final String maxStalls;
    /** An outage is logged once, at its start and at its end, whichever call meets it. */
    private final WorkerOutageLog outages;

    /** Whether the running jobs' leases are renewed: the worker takes jobs, or closes. Guarded by this. */
    private boolean renewing;

    private SluiceClock.Timer renewTimer;

    private RedisWorker(RedisJobQueue<T> queue, QueueWorker<T, ClaimedJob<T>> worker) {
        this.queue = queue;
        this.worker = worker;
        this.options = worker.options();
        this.leaseMicros = Long.toString(RedisJobQueue.micros(options.leaseTime()));
        this.maxStalls = Integer.toString(options.maxStalls());
        this.calls = new WorkerCalls<>(this, queue, options.concurrency());
        this.outages = new WorkerOutageLog(this, queue.engine.retryIntervalNanos());
    }

    /** A worker of {@code queue} running {@code processor} with {@code options}. */
    static <T> QueueWorker<T, ClaimedJob<T>> create(
            RedisJobQueue<T> queue, Processor<T> processor, WorkerOptions options) {
        return new QueueWorker<>(processor, options, w -> new RedisWorker<>(queue, w));
    }

    @Override
    public SlotCalls<ClaimedJob<T>> slotCalls(QueueWorker<T, ClaimedJob<T>>.Slot slot) {
        return new Slot(slot);
    }

    @Override
    public JobContext<T> context(ClaimedJob<T> job) {
        return new RedisJobContext<>(queue, job);
    }

    @Override
    public QueueFront<T> queue() {
        return queue;
    }

    @Override
    public void wakeIdle() {
        queue.signal();
    }

    @Override
    public void forget() {
        queue.forget(worker);
    }

    @Override
    public void failed(RuntimeException e) {
        outages.failed(e);
    }

    @Override
    public void succeeded() {
        outages.succeeded();
    }

    /** How many jobs it runs at once at most. */
    int concurrency() {
        return options.concurrency();
    }

    /** Whether the worker still takes jobs: it runs (started, or inside runDue) and the queue is open. */
    boolean claiming() {
        return worker.claiming();
    }

    /**
     * Whether an add may claim a job for an idle slot of this worker: it runs and the queue is open. If so, the claim
     * holds the close open until the slot's {@link Slot#handed} or {@link Slot#notHanded} settles it.
     */
    boolean beginHandOff() {
        return worker.beginHandOff();
    }

    /** This worker's calls, for an add that claims for its slots (claim references, lost claims). */
    WorkerCalls<T> calls() {
        return calls;
    }

    // ---------------------------------------------------------------- leases

    @Override
    public void started() {
        synchronized (this) {
            if (renewing) {
                return;
            }
            renewing = true;
            scheduleRenewal();
        }
        heartbeat();
    }

    @Override
    public void stopped() {
        synchronized (this) {
            renewing = false;
            if (renewTimer != null) {
                renewTimer.cancel();
                renewTimer = null;
            }
        }
        if (queue.obliterated) {
            return; // its registry is gone with it
        }
        try {
            calls.bye();
        } catch (SluiceException | IllegalStateException e) {
            outages.failed(e); // the entry ages out after three heartbeats
        }
    }

    /** Every third of the lease time: tells the queue's registry of workers that this one is alive. */
    private void heartbeat() {
        if (queue.isClosed() || queue.obliterated) {
            return;
        }
        try {
            calls.hello(RedisJobQueue.micros(heartbeatInterval()));
        } catch (SluiceException | IllegalStateException e) {
            outages.failed(e);
        }
    }

    /** Under this monitor: renews the leases of the running jobs, and beats, every third of the lease time. */
    private void scheduleRenewal() {
        renewTimer = queue.clock().schedule(heartbeatInterval().toNanos(), this::renew);
    }

    /** How often the worker renews its leases and tells the registry it is alive: a third of its lease. */
    Duration heartbeatInterval() {
        return Duration.ofNanos(Math.max(1, options.leaseTime().toNanos() / 3));
    }

    private void renew() {
        synchronized (this) {
            if (!renewing) {
                return;
            }
            scheduleRenewal();
        }
        heartbeat();
        List<ClaimedJob<T>> running = worker.running();
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

    /** One slot's calls of the queue script, and what the slot knows of when work may come. */
    final class Slot implements SlotCalls<ClaimedJob<T>> {
        private final QueueWorker<T, ClaimedJob<T>>.Slot slot;
        final int index;
        /** The announcements of work this slot had seen when it last claimed. */
        private long seen;

        long nextDue = NEVER;

        Slot(QueueWorker<T, ClaimedJob<T>>.Slot slot) {
            this.slot = slot;
            this.index = slot.index;
        }

        @Override
        public ClaimedJob<T> endAndClaim(ClaimedJob<T> finished, AttemptEnd ending, boolean claim) {
            seen = queue.idleSlots.announcements();
            if (ending != null) {
                return end(finished, Ending.of(ending, finished.id, finished.job.rateLimits()), claim, true)
                        .next();
            }
            return calls().submit(new WorkerCalls.Request<>(this, null, null, true, true))
                    .next();
        }

        @Override
        public ClaimedJob<T> awaitWork(boolean afterFailure) {
            return awaitWork(
                    seen,
                    afterFailure
                            ? TimeUnit.NANOSECONDS.toMillis(queue.engine.retryIntervalNanos())
                            : IDLE_BACKSTOP_MILLIS);
        }

        @Override
        public boolean resendAfterPause(ClaimedJob<T> finished) {
            if (finished.lost) {
                return false;
            }
            // the ending is kept and sent again: the job's lease may still hold
            try {
                Thread.sleep(RedisJobQueue.POLL_MILLIS);
            } catch (InterruptedException e) {
                // closing: the loop decides
            }
            return true;
        }

        /**
         * Waits until work is announced after the {@code seen}-th announcement (by this process, or by another as the
         * {@link WorkWatcher} hears) and the announcement picks this slot, something falls due, or {@code
         * backstopMillis} passed; returns the job an add of this process claimed for this slot meanwhile, if one did.
         */
        @SuppressWarnings("unchecked")
        private ClaimedJob<T> awaitWork(long seen, long backstopMillis) {
            if (nextDue < NEVER) {
                queue.idleSlots.announceAt(queue.clock(), nextDue * 1000);
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
            return worker.settle(slot, took(reply, events));
        }

        /** Ends the claim an add began for this slot and that brought it no job. */
        void notHanded() {
            worker.settle(slot, null);
        }

        @Override
        public void exit() {
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
        }

        private WorkerCalls<T>.Lane calls() {
            return calls.lane(index);
        }

        @Override
        public void giveBack(ClaimedJob<T> job) {
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
            // a job returned at the close deadline is counted here, in the order Redis recorded the endings
            if (bySlot) {
                worker.endedBySlot(slot, job);
            } else if (owned && ending.how().equals(RETURNED)) {
                worker.returned(slot, job);
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
            worker.took(slot, job);
            Duration timeout = job.job.options().timeout();
            if (timeout != null) {
                job.timeout = queue.clock().schedule(timeout.toNanos(), () -> timedOut(job, timeout));
            }
            events.add(l -> l.onActive(job.withPayload()));
            return job;
        }

        /** Fails the attempt whose timeout passed (the script refuses it if the job ended meanwhile). */
        private void timedOut(ClaimedJob<T> job, Duration timeout) {
            if (slot.running() != job) {
                return;
            }
            Ending ending = Ending.of(
                    AttemptEnd.timedOut(job.attempt, job.job.options(), timeout), job.id, job.job.rateLimits());
            try {
                if (end(job, ending, false, false).owned()) {
                    slot.interruptAttempt(job);
                }
            } catch (RuntimeException e) {
                LOG.warn("recording the timeout of job '{}' of {} failed", job.id, queue, e);
            }
        }
    }

    @Override
    public String toString() {
        return worker.toString();
    }
}
