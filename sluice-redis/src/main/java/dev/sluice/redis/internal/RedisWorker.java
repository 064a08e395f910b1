package dev.sluice.redis.internal;

import dev.sluice.SluiceException;
import dev.sluice.internal.queue.AttemptRules;
import dev.sluice.internal.queue.LazyPayload;
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
    private static final long NEVER = 1L << 53;
    private static final String CLOSED_REASON = "its worker closed before it finished";

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
    private SluiceClock.Timer deadlineTimer;
    private SluiceClock.Timer renewTimer;

    RedisWorker(RedisJobQueue<T> queue, Processor<T> processor, WorkerOptions options) {
        this.queue = queue;
        this.processor = processor;
        this.options = options;
        this.leaseMicros = Long.toString(RedisJobQueue.micros(options.leaseTime()));
        this.maxStalls = Integer.toString(options.maxStalls());
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
                Claimed next;
                if (ending != null) {
                    next = slot.finish(ending, claimable(WorkerState.MANUAL));
                } else {
                    next = claimable(WorkerState.MANUAL) ? slot.claim() : null;
                }
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

    private synchronized boolean claimable(WorkerState expected) {
        return state == expected && !queue.isClosed();
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
            if (!started || active == 0) {
                finishClose();
            } else if (deadline.isZero()) {
                returnNow = true;
            } else {
                deadlineTimer = clock().schedule(deadline.toNanos(), this::deadlinePassed);
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
            for (Slot slot : slots) {
                if (slot.running != null) {
                    running.add(slot);
                }
            }
        }
        for (Slot slot : running) {
            Claimed job = slot.running;
            if (job == null) {
                continue;
            }
            boolean owned;
            try {
                owned = slot.end(job, new Ending("i", List.of(CLOSED_REASON), null, null, null), false, false)
                        .owned();
            } catch (RuntimeException e) {
                LOG.warn(
                        "returning job '{}' of {} at the close deadline failed; its lease will run out",
                        job.id,
                        queue,
                        e);
                owned = false;
            }
            synchronized (this) {
                if (owned && !job.released) {
                    job.released = true;
                    returned++;
                    active--;
                }
            }
            slot.interruptAttempt(job);
        }
        synchronized (this) {
            finishClose();
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
            LOG.warn(
                    "renewing the leases of {} jobs of {} failed; they hold until their lease runs out",
                    running.size(),
                    queue,
                    e);
        }
    }

    // ---------------------------------------------------------------- jobs

    /** A job claimed by a slot: its id, the token that owns it, its attempt number and its snapshot. */
    private final class Claimed {
        final String id;
        final long token;
        final int attempt;
        final Job<T> job;
        final byte[] payload;
        volatile boolean lost;
        SluiceClock.Timer timeout;
        /** Whether the worker no longer counts it as active: its slot is done with it, or it was returned. */
        boolean released;

        Claimed(Object reply) {
            List<Object> r = Replies.list(reply);
            this.id = Replies.text(r.get(0));
            this.token = Replies.number(r.get(17));
            this.payload = Replies.bytes(r.get(2));
            this.job = queue.snapshot(reply, null, false);
            this.attempt = job.attemptsMade() + 1;
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
                try {
                    next = ending != null
                            ? finishRunning(finished, ending)
                            : (claimable(WorkerState.RUNNING) ? claim() : null);
                } catch (SluiceException | IllegalStateException e) {
                    if (queue.isClosed()) {
                        exit();
                        return;
                    }
                    LOG.warn("{} could not reach Redis; it tries again", RedisWorker.this, e);
                    next = null;
                    if (ending != null && finished != null && !finished.lost) {
                        // the ending is kept and sent again: the job's lease may still hold
                        sleepQuietly();
                        continue;
                    }
                }
                ending = null;
                finished = null;
                if (next == null) {
                    if (!claimable(WorkerState.RUNNING)) {
                        exit();
                        return;
                    }
                    awaitWork();
                    continue;
                }
                Thread.interrupted();
                finished = next;
                ending = run(next);
            }
        }

        private Claimed finishRunning(Claimed job, Ending ending) {
            return end(job, ending, claimable(WorkerState.RUNNING), true).next();
        }

        private void sleepQuietly() {
            try {
                Thread.sleep(RedisJobQueue.POLL_MILLIS);
            } catch (InterruptedException e) {
                // closing: the loop decides
            }
        }

        private long nextDue = NEVER;

        /** Waits until this process changed the queue, something falls due, or a while passed (other processes). */
        private void awaitWork() {
            long seen = queue.changes();
            SluiceClock.Timer timer = null;
            if (nextDue < NEVER) {
                long wait = Math.max(1, nextDue * 1000 - clock().nanos());
                timer = clock().schedule(wait, queue::signal);
            }
            try {
                queue.awaitChangeAfter(seen, index == 0 ? RedisJobQueue.POLL_MILLIS : 10 * RedisJobQueue.POLL_MILLIS);
            } catch (InterruptedException e) {
                // closing interrupts idle slots: the loop decides
            } finally {
                if (timer != null) {
                    timer.cancel();
                }
            }
        }

        private void exit() {
            synchronized (RedisWorker.this) {
                if (state == WorkerState.CLOSING && active == 0) {
                    finishClose();
                }
            }
            Thread.interrupted();
        }

        /** Claims one job, or null. */
        Claimed claim() {
            RedisJobQueue.Sequenced sequenced =
                    queue.callInOrder(true, queue.arguments("claim", "1", leaseMicros, maxStalls));
            List<Consumer<QueueListener<T>>> events = new ArrayList<>(1);
            try {
                List<Object> reply = Replies.list(sequenced.reply());
                nextDue = Replies.number(reply.get(0));
                return reply.size() > 1 ? took(reply.get(1), events) : null;
            } finally {
                queue.deliver(sequenced.ticket(), events);
            }
        }

        /** Records {@code ending} of the job this slot ran and, if {@code claimNext}, claims the next. */
        Claimed finish(Ending ending, boolean claimNext) {
            return end(lastRun, ending, claimNext, true).next();
        }

        private Claimed lastRun;

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
         * Records how an attempt of {@code job} ended and, if {@code claimNext}, claims the next job. {@code
         * bySlot}: the slot's processor returned (the worker stops counting the job), as opposed to a timeout or
         * the close deadline ending the attempt while the processor may still run.
         */
        Ended end(Claimed job, Ending ending, boolean claimNext, boolean bySlot) {
            queue.finishing.add(job.id);
            try {
                return record(job, ending, claimNext, bySlot);
            } finally {
                queue.finishing.remove(job.id);
            }
        }

        private Ended record(Claimed job, Ending ending, boolean claimNext, boolean bySlot) {
            byte[][] argv = new byte[2 + 3 + (ending.how.equals("c") ? 1 : ending.args.size()) + 3][];
            int at = 0;
            argv[at++] = RedisJobQueue.bytes("finish");
            argv[at++] = RedisJobQueue.bytes(queue.now());
            argv[at++] = RedisJobQueue.bytes(job.id);
            argv[at++] = RedisJobQueue.bytes(Long.toString(job.token));
            argv[at++] = RedisJobQueue.bytes(ending.how);
            if (ending.how.equals("c")) {
                byte[] value = ending.value;
                byte[] marked = new byte[value == null ? 0 : value.length + 1];
                if (value != null) {
                    marked[0] = '=';
                    System.arraycopy(value, 0, marked, 1, value.length);
                }
                argv[at++] = marked;
            } else {
                for (String a : ending.args) {
                    argv[at++] = RedisJobQueue.bytes(a);
                }
            }
            argv[at++] = RedisJobQueue.bytes(claimNext ? "1" : "0");
            argv[at++] = RedisJobQueue.bytes(leaseMicros);
            argv[at++] = RedisJobQueue.bytes(maxStalls);
            RedisJobQueue.Sequenced sequenced = queue.callConfirmed(argv);
            if (sequenced.shortfall() != null) {
                LOG.warn(
                        "the ending of job '{}' of {} is recorded on the Redis master, but {}; the worker goes on"
                                + " (should a failover lose the ending, the job runs again once its lease runs out)",
                        job.id,
                        queue,
                        sequenced.shortfall().text());
            }
            List<Consumer<QueueListener<T>>> events = new ArrayList<>(3);
            try {
                return recorded(job, ending, bySlot, Replies.list(sequenced.reply()), events);
            } finally {
                queue.deliver(sequenced.ticket(), events);
                if (!events.isEmpty()) {
                    queue.signal();
                }
            }
        }

        private Ended recorded(
                Claimed job,
                Ending ending,
                boolean bySlot,
                List<Object> reply,
                List<Consumer<QueueListener<T>>> events) {
            boolean owned = Replies.number(reply.get(0)) == 1;
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
                }
            }
            if (owned) {
                ending(Replies.text(reply.get(2)), queue.snapshot(reply.get(1), null, false), ending, events);
                if (Replies.number(reply.get(4)) == 1) {
                    events.add(QueueListener::onDrained);
                }
            }
            nextDue = Replies.number(reply.get(3));
            return new Ended(owned, reply.size() > 5 ? took(reply.get(5), events) : null);
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
        private Claimed took(Object reply, List<Consumer<QueueListener<T>>> events) {
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
            events.add(l -> l.onActive(job.job));
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

    /** What the processor sees of one attempt; the payload is decoded when the processor first asks for it. */
    private final class Context implements JobContext<T> {
        private final Claimed claimed;
        private final LazyPayload<T> payload;

        Context(Claimed claimed) {
            this.claimed = claimed;
            this.payload = new LazyPayload<>(claimed.id, claimed.payload, queue.codec());
        }

        @Override
        public Job<T> job() {
            return queue.job(claimed.id).orElse(claimed.job);
        }

        @Override
        public T payload() {
            return payload.get();
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
