package dev.sluice.internal.queue;

import dev.sluice.queue.Job;
import dev.sluice.queue.JobContext;
import dev.sluice.queue.Processor;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker on an in-memory queue: one virtual thread per slot, each running one job at a time. A slot whose job
 * ended queues how it ended; the first slot to take the queue's lock records every queued ending and takes the
 * next job for each of those slots, in one critical section.
 *
 * <p>Once the engine has closed, every method but closing (which then does nothing) throws, as its queue's do.
 */
final class InMemoryWorker<T> implements Worker<T> {
    /**
     * How often a slot whose attempt ended tries the lock, yielding between tries, before it waits for the
     * lock: meanwhile, the slot holding the lock usually records this slot's ending too.
     */
    private static final int COMBINE_TRIES = 64;

    private static final Logger LOG = LoggerFactory.getLogger(InMemoryWorker.class);

    private final InMemoryQueue<T> queue;
    private final Processor<T> processor;
    private final WorkerOptions options;
    private final ReentrantLock lock;
    private final List<Slot> slots = new ArrayList<>();
    private final CompletableFuture<CloseReport> closed = new CompletableFuture<>();
    private WorkerState state = WorkerState.NEW;
    private int active;
    private int finishedWhileClosing;
    private int returned;
    private SluiceClock.Timer deadlineTimer;

    /** Slots whose attempt ended, newest first, waiting for one of them to record every ending. */
    private final AtomicReference<Slot> ended = new AtomicReference<>();

    InMemoryWorker(InMemoryQueue<T> queue, Processor<T> processor, WorkerOptions options) {
        this.queue = queue;
        this.processor = processor;
        this.options = options;
        this.lock = queue.lock();
    }

    @Override
    public void start() {
        queue.checkOpen();
        lock.lock();
        try {
            if (state != WorkerState.NEW) {
                if (state == WorkerState.MANUAL) {
                    throw new IllegalStateException("worker is inside runDue(); start it after runDue returns");
                }
                return;
            }
            state = WorkerState.RUNNING;
            for (int i = 0; i < options.concurrency(); i++) {
                Slot slot = new Slot();
                slots.add(slot);
            }
        } finally {
            lock.unlock();
        }
        int i = 0;
        for (Slot slot : slots) {
            Thread.ofVirtual().name("sluice-" + queue.name() + "-" + i++).start(slot::loop);
        }
    }

    @Override
    public int runDue() {
        queue.checkOpen();
        Slot slot = new Slot();
        lock.lock();
        try {
            if (state != WorkerState.NEW) {
                throw new IllegalStateException("runDue() is for a worker that has not started; this one is " + state);
            }
            state = WorkerState.MANUAL;
            slot.thread = Thread.currentThread();
        } finally {
            lock.unlock();
        }
        int ran = 0;
        try {
            Ending<T> ending = null;
            while (true) {
                JobRecord job;
                Events<T> events;
                lock.lock();
                try {
                    events = queue.events();
                    if (ending != null) {
                        ending.apply(events, queue.clock().nanos());
                        active--;
                    }
                    ending = null;
                    job = queue.isClosed() || state != WorkerState.MANUAL
                            ? null
                            : queue.attempts.claim(slot, queue.clock().nanos());
                    if (job != null) {
                        slot.take(job, events);
                        active++;
                    }
                } finally {
                    lock.unlock();
                }
                queue.fire(events);
                if (job == null) {
                    return ran;
                }
                ran++;
                ending = slot.run(job);
            }
        } finally {
            lock.lock();
            try {
                if (state == WorkerState.MANUAL) {
                    state = WorkerState.NEW;
                }
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    public int active() {
        queue.checkOpen();
        lock.lock();
        try {
            return active;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public CompletableFuture<CloseReport> closeAsync(Duration deadline) {
        QueueChecks.checkCloseDeadline(deadline);
        boolean returnNow = false;
        lock.lock();
        try {
            if (state == WorkerState.CLOSING || state == WorkerState.CLOSED) {
                return closed.copy();
            }
            boolean started = state == WorkerState.RUNNING;
            state = WorkerState.CLOSING;
            queue.workAvailable().signalAll();
            for (Slot slot : slots) {
                if (slot.job == null && slot.thread != null) {
                    slot.thread.interrupt();
                }
            }
            if (!started || active == 0) {
                finishClose();
            } else if (deadline.isZero()) {
                returnNow = true;
            } else {
                deadlineTimer = queue.clock().schedule(deadline.toNanos(), this::deadlinePassed);
            }
        } finally {
            lock.unlock();
        }
        if (returnNow) {
            deadlinePassed();
        }
        return closed.copy();
    }

    private void deadlinePassed() {
        List<Runnable> interrupt = new ArrayList<>();
        Events<T> events = null;
        lock.lock();
        try {
            if (state != WorkerState.CLOSING) {
                return;
            }
            long now = queue.clock().nanos();
            events = queue.events();
            for (Slot slot : slots) {
                JobRecord job = slot.job;
                if (job != null && queue.attempts.interrupt(job, slot.token, now, events)) {
                    returned++;
                    active--;
                    slot.job = null;
                    int token = slot.token;
                    interrupt.add(() -> slot.interruptAttempt(job, token));
                }
            }
            finishClose();
        } finally {
            lock.unlock();
        }
        queue.fire(events);
        interrupt.forEach(Runnable::run);
    }

    /** Under the lock. */
    private void finishClose() {
        if (state == WorkerState.CLOSED) {
            return;
        }
        state = WorkerState.CLOSED;
        if (deadlineTimer != null) {
            deadlineTimer.cancel();
        }
        queue.forget(this);
        closed.complete(new CloseReport(finishedWhileClosing, returned));
    }

    /** How one attempt ended, computed outside the lock and recorded under it. */
    private interface Ending<T> {
        void apply(Events<T> events, long now);
    }

    /** The chain of queued slots from {@code newest}, reversed: the slot that ended first comes first. */
    private Slot reversed(Slot newest) {
        Slot first = null;
        for (Slot slot = newest; slot != null; ) {
            Slot older = slot.nextEnded;
            slot.nextEnded = first;
            first = slot;
            slot = older;
        }
        return first;
    }

    /** One of the worker's threads, and the job it runs. */
    final class Slot {
        Thread thread;
        JobRecord job;
        int token;
        int attempt;

        /** How this slot's last attempt ended, queued in {@link #ended} until a slot records it. */
        private Ending<T> queuedEnding;

        /** The slot queued in {@link #ended} before this one. */
        private Slot nextEnded;

        /** The job claimed for this slot when its ending was recorded (null if none), read once served. */
        private JobRecord claimed;

        /** Whether the queued ending was recorded and {@link #claimed} set. */
        private volatile boolean served;

        /** The attempt inside the processor now, which a timeout or the close deadline interrupts. */
        final RunningAttempt inProcessor = new RunningAttempt();

        /**
         * Interrupts this slot's thread if it still runs attempt {@code token} of {@code target}; never the
         * slot's next attempt, and the interrupt is cleared when the attempt leaves the processor.
         */
        void interruptAttempt(JobRecord target, int token) {
            inProcessor.interrupt(target, token);
        }

        /** Under the lock. */
        void take(JobRecord claimed, Events<T> events) {
            job = claimed;
            token = claimed.token;
            attempt = claimed.attemptsMade + 1;
            if (Events.metered(events)) {
                String group = claimed.options.group();
                Duration waited = Duration.ofNanos(claimed.startedAt - claimed.readyAt);
                Events.measure(events, m -> m.started(group, waited));
            }
            if (Events.listened(events)) {
                Undecoded<T> snapshot = queue.undecoded(claimed);
                events.add(l -> l.onActive(snapshot.job()));
            }
        }

        void loop() {
            lock.lock();
            try {
                thread = Thread.currentThread();
            } finally {
                lock.unlock();
            }
            Ending<T> ending = null;
            while (true) {
                JobRecord next = ending == null ? null : endAndClaim(ending);
                ending = null;
                if (next == null) {
                    next = awaitNext();
                }
                if (next == null) {
                    exit();
                    return;
                }
                Thread.interrupted();
                ending = run(next);
            }
        }

        /**
         * Records how this slot's attempt ended and takes its next job (or null). The slot queues its ending;
         * whichever slot of the worker takes the lock first records every queued ending and claims a job for
         * each of those slots in one critical section, so that short jobs do not pay one lock hand-over each.
         */
        private JobRecord endAndClaim(Ending<T> ending) {
            queuedEnding = ending;
            served = false;
            Slot head;
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
            JobRecord next = claimed;
            claimed = null;
            return next;
        }

        /**
         * Under the lock, which it releases: records the endings of every slot queued in {@link #ended} and
         * claims the next job for each.
         */
        private void combine() {
            Events<T> events;
            try {
                events = queue.events();
                long now = queue.clock().nanos();
                Slot first = reversed(ended.getAndSet(null));
                for (Slot slot = first; slot != null; ) {
                    Slot following = slot.nextEnded;
                    slot.nextEnded = null;
                    try {
                        slot.endAttempt(events, now);
                    } catch (RuntimeException e) {
                        LOG.error("recording how a job of {} ended failed; the slot goes on", queue, e);
                        slot.claimed = null;
                        slot.served = true;
                    }
                    slot = following;
                }
            } finally {
                lock.unlock();
            }
            queue.fire(events);
        }

        /** Under the lock: records this slot's queued ending and claims its next job, then lets it go on. */
        private void endAttempt(Events<T> events, long now) {
            Ending<T> done = queuedEnding;
            queuedEnding = null;
            done.apply(events, now);
            if (job != null) {
                active--;
                job = null;
                if (state == WorkerState.CLOSING) {
                    finishedWhileClosing++;
                }
            }
            claimed = state == WorkerState.RUNNING && !queue.isClosed() ? claimNext(events, now) : null;
            served = true;
        }

        /** Under the lock: the next job, taken by this slot, or null. */
        private JobRecord claimNext(Events<T> events) {
            return claimNext(events, queue.clock().nanos());
        }

        /** Under the lock: the next job that may start at {@code now}, taken by this slot, or null. */
        private JobRecord claimNext(Events<T> events, long now) {
            JobRecord next = queue.attempts.claim(this, now);
            if (next != null) {
                take(next, events);
                active++;
            }
            return next;
        }

        /** Waits until a job may start (returned, taken) or the worker closes (null). */
        private JobRecord awaitNext() {
            Events<T> events = null;
            JobRecord next = null;
            lock.lock();
            try {
                while (state == WorkerState.RUNNING && !queue.isClosed()) {
                    events = queue.events();
                    next = claimNext(events);
                    if (next != null) {
                        break;
                    }
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
            queue.fire(events);
            return next;
        }

        private void exit() {
            lock.lock();
            try {
                if (state == WorkerState.CLOSING && active == 0) {
                    finishClose();
                }
                queue.workAvailable().signal();
            } finally {
                lock.unlock();
            }
            Thread.interrupted();
        }

        /**
         * Runs the processor on {@code current}, the job this slot just took; returns how to record the outcome. The
         * job comes from the caller, not from {@link #job}: a close deadline may clear that field meanwhile (it
         * returns the job to waiting), and the attempt then runs on, unable to record its end.
         */
        Ending<T> run(JobRecord current) {
            int owned = token;
            int number = attempt;
            AttemptEnd end;
            inProcessor.enter(current, owned);
            try {
                end = AttemptEnd.run(processor, new Context(current, owned, number), number, current.options);
            } finally {
                inProcessor.leave();
            }
            return switch (end) {
                case AttemptEnd.Completed done ->
                    (events, now) -> queue.attempts.complete(current, owned, done.value(), now, events);
                case AttemptEnd.RateLimited limited ->
                    (events, now) -> queue.attempts.rateLimited(current, owned, limited.result(), now, events);
                case AttemptEnd.RunAgain again ->
                    (events, now) -> queue.attempts.runAgain(current, owned, again.delay(), now, events);
                case AttemptEnd.Failed failed ->
                    (events, now) -> queue.attempts.fail(
                            current,
                            owned,
                            failed.error(),
                            failed.reason(),
                            Job.Attempt.Outcome.FAILED,
                            failed.retryDelay(),
                            now,
                            events);
                case AttemptEnd.TimedOut timedOut ->
                    (events, now) -> queue.attempts.fail(
                            current,
                            owned,
                            null,
                            timedOut.reason(),
                            Job.Attempt.Outcome.TIMED_OUT,
                            timedOut.retryDelay(),
                            now,
                            events);
            };
        }
    }

    /** What the processor sees of one attempt; the payload is decoded when the processor first asks for it. */
    private final class Context implements JobContext<T> {
        private final JobRecord record;
        private final int token;
        private final int attempt;
        private final LazyPayload<T> payload;

        Context(JobRecord record, int token, int attempt) {
            this.record = record;
            this.token = token;
            this.attempt = attempt;
            this.payload = new LazyPayload<>(record.id, record.payload, queue.codec());
        }

        @Override
        public Job<T> job() {
            Undecoded<T> snapshot;
            lock.lock();
            try {
                snapshot = queue.undecoded(record);
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
            return attempt;
        }

        @Override
        public void progress(int percent) {
            if (percent < 0 || percent > 100) {
                throw new IllegalArgumentException("progress must be between 0 and 100, was " + percent);
            }
            queue.attempts.progress(record, token, percent);
        }

        @Override
        public boolean isCancelled() {
            lock.lock();
            try {
                return record.token != token;
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    public String toString() {
        return "worker of " + queue + " (concurrency " + options.concurrency() + ")";
    }
}
