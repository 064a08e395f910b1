package dev.sluice.internal.queue;

import dev.sluice.queue.Job;
import dev.sluice.queue.JobContext;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.Processor;
import dev.sluice.queue.Result;
import dev.sluice.queue.WorkerOptions;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-memory engine's side of a {@link QueueWorker}. A slot whose job ended queues how it ended; the first slot to
 * take the queue's lock records every queued ending and takes the next job for each of those slots, in one critical
 * section. An idle slot waits on the queue's condition until something that may let a job start changed since its
 * last claim.
 */
final class InMemoryWorker<T> implements WorkerStore<T, InMemoryWorker.Claim> {
    /**
     * How often a slot whose attempt ended tries the lock, yielding between tries, before it waits for the
     * lock: meanwhile, the slot holding the lock usually records this slot's ending too.
     */
    private static final int COMBINE_TRIES = 64;

    private static final Logger LOG = LoggerFactory.getLogger(InMemoryWorker.class);

    private final InMemoryQueue<T> queue;
    private final QueueWorker<T, Claim> worker;
    private final ReentrantLock lock;

    /** Slots whose attempt ended, newest first, waiting for one of them to record every ending. */
    private final AtomicReference<Calls> ended = new AtomicReference<>();

    private InMemoryWorker(InMemoryQueue<T> queue, QueueWorker<T, Claim> worker) {
        this.queue = queue;
        this.worker = worker;
        this.lock = queue.lock();
    }

    /** A worker of {@code queue} running {@code processor} with {@code options}. */
    static <T> QueueWorker<T, Claim> create(InMemoryQueue<T> queue, Processor<T> processor, WorkerOptions options) {
        return new QueueWorker<>(processor, options, w -> new InMemoryWorker<>(queue, w));
    }

    /**
     * An attempt of a job a slot claimed, owning the job while the record's token is still {@link #token}; the record
     * points to it meanwhile, and its timeout interrupts the slot's processor, {@link #inProcessor}.
     */
    static final class Claim implements ClaimedAttempt {
        final JobRecord record;
        final int token;
        final int attempt;
        final RunningAttempt inProcessor;

        Claim(JobRecord record, RunningAttempt inProcessor) {
            this.record = record;
            this.token = record.token;
            this.attempt = record.attemptsMade + 1;
            this.inProcessor = inProcessor;
        }

        @Override
        public String jobId() {
            return record.id;
        }

        @Override
        public long token() {
            return token;
        }

        @Override
        public int attempt() {
            return attempt;
        }

        @Override
        public JobOptions options() {
            return record.options;
        }
    }

    @Override
    public SlotCalls<Claim> slotCalls(QueueWorker<T, Claim>.Slot slot) {
        return new Calls(slot);
    }

    @Override
    public JobContext<T> context(Claim job) {
        return new Context(job);
    }

    @Override
    public QueueFront<T> queue() {
        return queue;
    }

    @Override
    public void started() {}

    @Override
    public void stopped() {}

    @Override
    public void wakeIdle() {
        lock.lock();
        try {
            queue.workMayStart(true);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void forget() {
        queue.forget(worker);
    }

    @Override
    public void failed(RuntimeException e) {
        LOG.error("a slot of {} failed; it goes on", worker, e);
    }

    @Override
    public void succeeded() {}

    /** The chain of queued slots from {@code newest}, reversed: the slot that ended first comes first. */
    private Calls reversed(Calls newest) {
        Calls first = null;
        for (Calls slot = newest; slot != null; ) {
            Calls older = slot.nextEnded;
            slot.nextEnded = first;
            first = slot;
            slot = older;
        }
        return first;
    }

    /** One slot's calls, and the ending it queued for whichever slot takes the lock first. */
    final class Calls implements SlotCalls<Claim> {
        private final QueueWorker<T, Claim>.Slot slot;

        /** The attempt whose ending this slot queued in {@link #ended}, how it ended, and whether to claim next. */
        private Claim queuedJob;

        private AttemptEnd queuedEnding;
        private boolean queuedClaim;

        /** The slot queued in {@link #ended} before this one. */
        private Calls nextEnded;

        /** The job claimed for this slot when its ending was recorded (null if none), read once served. */
        private Claim claimed;

        /** Whether the queued ending was recorded and {@link #claimed} set. */
        private volatile boolean served;

        /** The queue's count of changes that may let a job start, at this slot's last claim; under the lock. */
        private long seen;

        Calls(QueueWorker<T, Claim>.Slot slot) {
            this.slot = slot;
        }

        @Override
        public Claim endAndClaim(Claim finished, AttemptEnd ending, boolean claim) {
            if (ending == null) {
                Events<T> events;
                Claim next;
                lock.lock();
                try {
                    events = queue.events();
                    next = claimNext(events, queue.clock().nanos());
                } finally {
                    lock.unlock();
                }
                queue.fire(events);
                return next;
            }
            queuedJob = finished;
            queuedEnding = ending;
            queuedClaim = claim;
            served = false;
            Calls head;
            do {
                head = ended.get();
                nextEnded = head;
            } while (!ended.compareAndSet(head, this));
            for (int tries = 0; !served; tries++) {
                if (tries < COMBINE_TRIES) {
                    if (lock.tryLock()) {
                        combine();
                    } else {
                        Thread.yield();
                    }
                } else {
                    lock.lock();
                    combine();
                }
            }
            Claim next = claimed;
            claimed = null;
            return next;
        }

        /**
         * Under the lock, which it releases: records the endings of every slot queued in {@link #ended} and claims
         * the next job for each that asked.
         */
        private void combine() {
            Events<T> events;
            try {
                events = queue.events();
                long now = queue.clock().nanos();
                Calls first = reversed(ended.getAndSet(null));
                for (Calls calls = first; calls != null; ) {
                    Calls following = calls.nextEnded;
                    calls.nextEnded = null;
                    calls.recordQueued(events, now);
                    calls = following;
                }
            } finally {
                lock.unlock();
            }
            queue.fire(events);
        }

        /** Under the lock: records this slot's queued ending and claims its next job, then lets it go on. */
        private void recordQueued(Events<T> events, long now) {
            Claim job = queuedJob;
            AttemptEnd ending = queuedEnding;
            queuedJob = null;
            queuedEnding = null;
            try {
                record(job, ending, now, events);
            } catch (RuntimeException e) {
                LOG.error("recording how a job of {} ended failed; the slot goes on", queue, e);
            }
            worker.endedBySlot(slot, job);
            try {
                claimed = queuedClaim ? claimNext(events, now) : null;
            } catch (RuntimeException e) {
                LOG.error("claiming a job of {} failed; the slot goes on", queue, e);
                claimed = null;
            } finally {
                served = true;
            }
        }

        /** Under the lock: records {@code ending} of {@code job}, if the attempt still owns the job. */
        private void record(Claim job, AttemptEnd ending, long now, Events<T> events) {
            InMemoryAttempts<T> attempts = queue.attempts;
            switch (ending) {
                case AttemptEnd.Completed done -> attempts.complete(job.record, job.token, done.value(), now, events);
                case AttemptEnd.RateLimited limited ->
                    attempts.rateLimited(job.record, job.token, limited.result(), now, events);
                case AttemptEnd.RunAgain again -> attempts.runAgain(job.record, job.token, again.delay(), now, events);
                case AttemptEnd.Overloaded overloaded ->
                    attempts.overloaded(job.record, job.token, overloaded.result(), now, events);
                case AttemptEnd.Failed failed ->
                    attempts.fail(
                            job.record,
                            job.token,
                            failed.error(),
                            failed.reason(),
                            Job.Attempt.Outcome.FAILED,
                            failed.retryDelay(),
                            now,
                            events);
                case AttemptEnd.TimedOut timedOut ->
                    attempts.fail(
                            job.record,
                            job.token,
                            null,
                            timedOut.reason(),
                            Job.Attempt.Outcome.TIMED_OUT,
                            timedOut.retryDelay(),
                            now,
                            events);
            }
        }

        /** Under the lock: the next job that may start at {@code now}, taken by this slot, or null. */
        private Claim claimNext(Events<T> events, long now) {
            seen = queue.workChanges();
            if (queue.isClosed() || !worker.claiming()) {
                return null;
            }
            JobRecord record = queue.attempts.claim(now);
            if (record == null) {
                return null;
            }
            Claim job = new Claim(record, slot.inProcessor());
            record.claim = job;
            if (Events.metered(events)) {
                String group = record.options.group();
                Duration waited = Duration.ofNanos(record.startedAt - record.readyAt);
                Events.measure(events, m -> m.started(group, waited));
            }
            if (Events.listened(events)) {
                Undecoded<T> snapshot = queue.undecoded(record);
                events.add(l -> l.onActive(snapshot.job()));
            }
            worker.took(slot, job);
            return job;
        }

        @Override
        public Claim awaitWork(boolean afterFailure) {
            lock.lock();
            try {
                while (seen == queue.workChanges() && worker.claiming()) {
                    queue.idleWorkers(1);
                    try {
                        queue.workAvailable().await();
                    } catch (InterruptedException e) {
                        // closing interrupts idle slots; the loop condition decides
                    } finally {
                        queue.idleWorkers(-1);
                    }
                }
            } finally {
                lock.unlock();
            }
            return null;
        }

        @Override
        public void giveBack(Claim job) {
            Events<T> events;
            lock.lock();
            try {
                events = queue.events();
                if (queue.attempts.interrupt(
                        job.record, job.token, queue.clock().nanos(), events)) {
                    worker.returned(slot, job);
                }
            } finally {
                lock.unlock();
            }
            queue.fire(events);
        }

        @Override
        public boolean resendAfterPause(Claim finished) {
            return false;
        }

        @Override
        public void exit() {
            // this slot may have been the one a change woke: another looks again
            lock.lock();
            try {
                queue.workMayStart(false);
            } finally {
                lock.unlock();
            }
        }
    }

    /** What the processor sees of one attempt; the payload is decoded when the processor first asks for it. */
    private final class Context implements JobContext<T> {
        private final Claim claim;
        private final LazyPayload<T> payload;

        Context(Claim claim) {
            this.claim = claim;
            this.payload = new LazyPayload<>(claim.record.id, claim.record.payload, queue.codec());
        }

        @Override
        public Job<T> job() {
            Undecoded<T> snapshot;
            lock.lock();
            try {
                snapshot = queue.undecoded(claim.record);
            } finally {
                lock.unlock();
            }
            return snapshot.job();
        }

        @Override
        public T payload() {
            return payload.get();
        }

        @Override
        public int attempt() {
            return claim.attempt;
        }

        @Override
        public void progress(int percent) {
            if (percent < 0 || percent > 100) {
                throw new IllegalArgumentException("progress must be between 0 and 100, was " + percent);
            }
            queue.attempts.progress(claim.record, claim.token, percent);
        }

        @Override
        public void quota(Result.Scope scope, long remaining, Duration resetIn) {
            long resetNanos = QueueChecks.checkQuota(scope, remaining, resetIn);
            queue.attempts.quota(claim.record, scope, remaining, resetNanos);
        }

        @Override
        public boolean isCancelled() {
            lock.lock();
            try {
                return claim.record.token != claim.token;
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    public String toString() {
        return worker.toString();
    }
}
