package dev.sluice.redis.internal;

import dev.sluice.internal.queue.QueueAdds;
import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.queue.Added;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.QueueFullException;
import dev.sluice.queue.QueueListener;
import dev.sluice.redis.ReplicaWaitException;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The adds of a Redis queue: the jobs prepared and checked, sent in calls of the queue script that carry the adds of
 * many producers at once ({@link Combiner}), answered, told to this process's listeners, and, when the queue is
 * full, the producer's wait for room.
 */
final class RedisAdds<T> implements QueueAdds<T> {
    /** The longest a producer waits for room without trying again, should the {@link WorkWatcher} fall silent. */
    private static final long ROOM_BACKSTOP_MILLIS = 30_000;

    private final RedisJobQueue<T> queue;
    private final String name;
    private final Combiner combiner;

    RedisAdds(RedisJobQueue<T> queue) {
        this.queue = queue;
        this.name = queue.name();
        this.combiner = new Combiner();
    }

    @Override
    public Added<T> add(NewJob<T> job) {
        QueueChecks.Prepared prepared = prepare(job, -1);
        return combiner.add(List.of(prepared), List.of(job.payload()), roomDeadline())
                .get(0);
    }

    @Override
    public List<Added<T>> addBulk(List<NewJob<T>> jobs) {
        List<QueueChecks.Prepared> prepared = prepareBulk(jobs);
        return prepared.isEmpty() ? List.of() : combiner.add(prepared, payloads(jobs), roomDeadline());
    }

    @Override
    public CompletableFuture<Added<T>> addAsync(NewJob<T> job) {
        QueueChecks.Prepared prepared = prepare(job, -1);
        return combiner.addAsync(List.of(prepared), List.of(job.payload()), roomDeadline())
                .thenApply(answers -> answers.get(0));
    }

    @Override
    public CompletableFuture<List<Added<T>>> addBulkAsync(List<NewJob<T>> jobs) {
        List<QueueChecks.Prepared> prepared = prepareBulk(jobs);
        return prepared.isEmpty()
                ? CompletableFuture.completedFuture(List.of())
                : combiner.addAsync(prepared, payloads(jobs), roomDeadline());
    }

    QueueChecks.Prepared prepare(NewJob<T> job, int index) {
        return QueueChecks.prepare(job, index, queue.opened(), queue.codec());
    }

    private List<QueueChecks.Prepared> prepareBulk(List<NewJob<T>> jobs) {
        QueueChecks.checkBulk(jobs);
        List<QueueChecks.Prepared> prepared = new ArrayList<>(jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            prepared.add(prepare(jobs.get(i), i));
        }
        return prepared;
    }

    private static <T> List<T> payloads(List<NewJob<T>> jobs) {
        List<T> payloads = new ArrayList<>(jobs.size());
        for (NewJob<T> job : jobs) {
            payloads.add(job.payload());
        }
        return payloads;
    }

    /**
     * Adds the jobs, all or none, in a call of their own, waiting for room until {@code deadline} on the engine clock
     * at most.
     */
    private List<Added<T>> addAlone(List<QueueChecks.Prepared> prepared, List<T> payloads, long deadline) {
        byte[][] args = new byte[3 + prepared.size() * AddFields.COUNT][];
        args[0] = RedisJobQueue.bytes("add");
        // 'w': if the queue is full, this producer waits for room, and the script notes it (see awaitRoom)
        boolean ownWakes = queue.idleSlots.idle() > 0;
        args[2] = RedisJobQueue.bytes(
                prepared.size() + (deadline == Long.MIN_VALUE ? "" : "w") + (ownWakes ? OWN_WAKES : ""));
        int at = 3;
        for (QueueChecks.Prepared p : prepared) {
            at = queue.addFields.write(args, at, p, "", 0);
        }
        while (true) {
            queue.checkOpen();
            args[1] = RedisJobQueue.bytes(queue.calls.now());
            QueueCalls.Sequenced sequenced = queue.calls.callConfirmed(args);
            List<Object> reply = Replies.list(sequenced.reply());
            if (Replies.text(reply.get(0)).equals("full")) {
                queue.calls.deliver(sequenced.ticket(), List.of());
                QueueFullException full = full(reply);
                if (!awaitRoom(deadline, full)) {
                    throw full;
                }
                continue;
            }
            List<Job<T>> fresh = new ArrayList<>();
            List<Added<T>> answers = answers(reply, prepared, payloads, fresh);
            tellAdded(sequenced, fresh, ownWakes, null, List.of());
            if (sequenced.shortfall() != null) {
                throw notReplicated(sequenced.shortfall(), prepared, answers);
            }
            return answers;
        }
    }

    /**
     * What an add replied for the jobs {@code prepared} with {@code payloads} ({@code 'ok'}, the time it added them
     * at, then per job 1 and the snapshot of the job there for a duplicate, or 0 and the id of a job it added: see
     * queue-add.lua); the jobs it added go to {@code fresh}.
     */
    private List<Added<T>> answers(
            List<Object> reply, List<QueueChecks.Prepared> prepared, List<T> payloads, List<Job<T>> fresh) {
        List<Added<T>> answers = new ArrayList<>(payloads.size());
        long created = Replies.number(reply.get(1));
        for (int i = 0; i < payloads.size(); i++) {
            boolean duplicate = Replies.number(reply.get(2 + 2 * i)) == 1;
            Object job = reply.get(3 + 2 * i);
            if (duplicate) {
                answers.add(new Added<>(job == null ? null : queue.snapshot(job, null, false), true));
                continue;
            }
            Job<T> added = added(Replies.text(job), created, prepared.get(i), payloads.get(i));
            answers.add(new Added<>(added, false));
            fresh.add(added);
        }
        return answers;
    }

    /**
     * The snapshot of job {@code id} just added from {@code p} at {@code createdMicros}: delayed by its delay, if it
     * has one, as the script delays it.
     */
    private Job<T> added(String id, long createdMicros, QueueChecks.Prepared p, T payload) {
        // what the queue stores decodes to these options again (durations in nanoseconds, custom backoffs by
        // identity): QueueJobsContract checks that the answer equals the job as read back
        JobOptions options = p.options();
        long delay = RedisJobQueue.micros(options.delay());
        boolean delayed = delay > 0;
        return new Job<>(
                id,
                p.name(),
                payload,
                options.group(),
                delayed ? JobState.DELAYED : JobState.WAITING,
                options,
                0,
                0,
                JobSnapshots.instant(createdMicros),
                delayed ? JobSnapshots.instant(createdMicros + delay) : null,
                null,
                null,
                0,
                null,
                null,
                List.of());
    }

    /**
     * An add's flag: this process has an idle worker, which it wakes for what the add adds, so the script wakes no
     * other process for it (that worker's claim passes the word on if more wait).
     */
    private static final String OWN_WAKES = "s";

    /**
     * Tells this process's waiting threads and listeners of the jobs an add call added, and hands the jobs it
     * {@code claimed} to the slots of {@code handOff} (if the call claimed for idle slots); {@code ownWakes}: the
     * call said this process would wake an idle worker of its own for them (if none is idle any longer, the queue's
     * marker wakes another process's instead).
     */
    private void tellAdded(
            QueueCalls.Sequenced sequenced,
            List<Job<T>> fresh,
            boolean ownWakes,
            SlotHandOff<T> handOff,
            List<Object> claimed) {
        List<Consumer<QueueListener<T>>> events = new ArrayList<>(fresh.size() + claimed.size());
        for (Job<T> job : fresh) {
            events.add(l -> l.onAdded(job));
        }
        int started = 0;
        if (handOff != null) {
            started = handOff.handOver(claimed, events);
            if (started > 0) {
                queue.stats.statsRecorded();
            }
        }
        if (!fresh.isEmpty()) {
            queue.stateChanged();
            if (handOff == null) {
                if (queue.idleSlots.announce(fresh.size()) == 0 && ownWakes) {
                    queue.watcher.mark();
                }
            } else if (started == handOff.slots() && fresh.size() > started) {
                // every reserved slot got a job: more may start, in this process's other idle slots
                queue.idleSlots.announce(fresh.size() - started);
            }
        }
        if (!fresh.isEmpty() && !queue.metrics.isEmpty()) {
            queue.calls.measure(() -> {
                for (Job<T> job : fresh) {
                    queue.metrics.tell(m -> m.added(job.group()));
                }
            });
        }
        queue.calls.deliver(sequenced.ticket(), events);
    }

    /** An add waiting in {@link Combiner}: its jobs, and how the call that carried it answered. */
    private final class PendingAdd extends CallCombiner.Queued {
        final List<QueueChecks.Prepared> prepared;
        final List<T> payloads;
        List<Added<T>> answers;
        RuntimeException failure;
        /** The call's reply if the queue (or a job's group) was full: the producer then adds on its own. */
        List<Object> full;
        /** The telling of the call's events, for the producer's thread once the combiner let it go. */
        List<QueueCalls.Delivery> deliveries = List.of();
        /** The telling of the call's metrics, for this producer's thread once the combiner let it go (one per call). */
        List<Runnable> measures = List.of();

        PendingAdd(List<QueueChecks.Prepared> prepared, List<T> payloads) {
            super(prepared.size());
            this.prepared = prepared;
            this.payloads = payloads;
        }
    }

    /**
     * The adds of this process's producers, combined: while calls are on their way (two at most), the adds that come
     * wait, and the next call carries all of them (up to {@link #MOST_PER_CALL} jobs), each added on its own, all or
     * none (a full queue or a duplicate id answers that add only). One producer alone makes one call per add; many at
     * once share the call's fixed cost (the measured A case: 64 adds in flight). Adds are applied in the order they were
     * called on this process; one that finds the queue full and waits for room then waits alone, as it does in
     * memory, so later adds that fit go before it.
     */
    private final class Combiner extends CallCombiner<PendingAdd> {
        private static final int MOST_PER_CALL = 100;

        /**
         * Calls written before the reply of the one before is read: with two, Redis runs one while this process reads
         * the other's reply and writes the next (measured: single adds with 64 in flight, one producer thread).
         */
        private static final int CALLS_IN_FLIGHT = 2;

        Combiner() {
            super(
                    MOST_PER_CALL,
                    Thread.ofVirtual().name("sluice-" + name + "-add").factory(),
                    Thread::yield,
                    CALLS_IN_FLIGHT);
        }

        List<Added<T>> add(List<QueueChecks.Prepared> prepared, List<T> payloads, long deadline) {
            PendingAdd add = new PendingAdd(prepared, payloads);
            combine(add);
            add.deliveries.forEach(queue.calls::tell);
            add.measures.forEach(Runnable::run);
            return answer(add, deadline);
        }

        /** As {@link #add}, queued in its place at once, answered on a thread of its own. */
        CompletableFuture<List<Added<T>>> addAsync(
                List<QueueChecks.Prepared> prepared, List<T> payloads, long deadline) {
            PendingAdd add = new PendingAdd(prepared, payloads);
            CompletableFuture<List<Added<T>>> result = new CompletableFuture<>();
            combineAsync(add, () -> {
                try {
                    add.deliveries.forEach(queue.calls::tell);
                    add.measures.forEach(Runnable::run);
                    result.complete(answer(add, deadline));
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            });
            return result;
        }

        private List<Added<T>> answer(PendingAdd add, long deadline) {
            if (add.failure != null) {
                throw add.failure;
            }
            if (add.full != null) {
                if (deadline == Long.MIN_VALUE) {
                    // refused now, as in memory: trying again alone could add it after adds called later
                    throw full(add.full);
                }
                // waits for room, on its own: what an add does without other producers
                return addAlone(add.prepared, add.payloads, deadline);
            }
            return add.answers;
        }

        @Override
        void send(List<PendingAdd> batch) {
            complete(batch, dispatch(batch));
        }

        @Override
        Object dispatch(List<PendingAdd> batch) {
            AddCall call = new AddCall(batch);
            call.held(queue.calls.holding(call::write));
            return call;
        }

        @Override
        void complete(List<PendingAdd> batch, Object sent) {
            AddCall call = (AddCall) sent;
            call.held(queue.calls.holding(call::read));
            for (PendingAdd a : batch) {
                a.deliveries = call.deliveries;
            }
            batch.get(0).measures = call.measures;
        }
    }

    /**
     * One call of the combined adds: written ({@link #write}), then its reply read ({@link #read}), another call
     * possibly written between; what each part held back is told once the combiner let go.
     */
    private final class AddCall {
        private final List<PendingAdd> batch;
        private final List<QueueCalls.Delivery> deliveries = new ArrayList<>(1);
        private final List<Runnable> measures = new ArrayList<>();
        private SlotHandOff<T> handOff;
        private boolean ownWakes;
        private QueueCalls.Dispatched dispatched;
        private RuntimeException failure;

        AddCall(List<PendingAdd> batch) {
            this.batch = batch;
        }

        void held(QueueCalls.Held held) {
            deliveries.addAll(held.deliveries());
            measures.addAll(held.measures());
        }

        void write() {
            int jobs = 0;
            for (PendingAdd a : batch) {
                jobs += a.prepared.size();
            }
            handOff = SlotHandOff.reserve(queue, jobs);
            byte[][] args = new byte
                    [3 + batch.size() + jobs * AddFields.COUNT + (handOff == null ? 0 : SlotHandOff.CLAIM_VALUES)][];
            args[0] = RedisJobQueue.bytes("add");
            ownWakes = handOff == null && queue.idleSlots.idle() > 0;
            args[2] = RedisJobQueue.bytes(batch.size() + "i" + (ownWakes ? OWN_WAKES : ""));
            int at = 3;
            for (PendingAdd a : batch) {
                args[at++] = RedisJobQueue.bytes(Integer.toString(a.prepared.size()));
                for (QueueChecks.Prepared p : a.prepared) {
                    at = queue.addFields.write(args, at, p, "", 0);
                }
            }
            if (handOff != null) {
                handOff.writeClaim(args, at);
            }
            try {
                queue.checkOpen();
                args[1] = RedisJobQueue.bytes(queue.calls.now());
                dispatched = queue.calls.dispatchConfirmed(args);
            } catch (RuntimeException e) {
                failure = e;
            }
        }

        void read() {
            boolean handedOver = false;
            try {
                if (failure != null) {
                    throw failure;
                }
                QueueCalls.Sequenced sequenced = queue.calls.complete(dispatched);
                List<Object> reply = Replies.list(sequenced.reply());
                List<Object> claimed = handOff == null ? List.of() : Replies.list(reply.get(1 + batch.size()));
                List<Job<T>> fresh = new ArrayList<>();
                for (int i = 0; i < batch.size(); i++) {
                    PendingAdd a = batch.get(i);
                    List<Object> own = Replies.list(reply.get(1 + i));
                    if (Replies.text(own.get(0)).equals("full")) {
                        a.full = own;
                        continue;
                    }
                    a.answers = answers(own, a.prepared, a.payloads, fresh);
                    if (sequenced.shortfall() != null) {
                        a.failure = notReplicated(sequenced.shortfall(), a.prepared, a.answers);
                    }
                }
                handedOver = true;
                tellAdded(sequenced, fresh, ownWakes, handOff, claimed);
            } catch (RuntimeException e) {
                for (PendingAdd a : batch) {
                    if (a.answers == null && a.full == null) {
                        a.failure = e;
                    }
                }
            } finally {
                if (handOff != null && !handedOver) {
                    // whatever ended the call (an error too), the reserved slots must not wait for it forever
                    handOff.lost();
                }
            }
        }
    }

    /** The add's jobs are on the master, but fewer replicas than the engine waits for acknowledged them. */
    private ReplicaWaitException notReplicated(
            ReplicaWait.Shortfall shortfall, List<QueueChecks.Prepared> prepared, List<Added<T>> answers) {
        List<String> ids = new ArrayList<>(answers.size());
        for (int i = 0; i < answers.size(); i++) {
            Job<T> job = answers.get(i).job();
            ids.add(job != null ? job.id() : prepared.get(i).id());
        }
        String jobs = ids.size() == 1
                ? "job '" + ids.get(0) + "' is"
                : "jobs '" + String.join("', '", ids.subList(0, Math.min(3, ids.size()))) + "'"
                        + (ids.size() > 3 ? " and " + (ids.size() - 3) + " more" : "") + " are";
        return new ReplicaWaitException(
                "queue '" + name + "': " + jobs + " written on the Redis master, but " + shortfall.text()
                        + " (RedisSluice.builder().waitForReplicas): whether "
                        + (ids.size() == 1 ? "it survives" : "they survive")
                        + " a failover is unknown; adding again with the same job id is safe",
                shortfall.acknowledged(),
                shortfall.required(),
                ids);
    }

    private QueueFullException full(List<Object> reply) {
        String gid = Replies.text(reply.get(1));
        int max = (int) Math.min(Integer.MAX_VALUE, Replies.number(reply.get(2)));
        long held = Replies.number(reply.get(3));
        long wanted = Replies.number(reply.get(4));
        if (gid.isEmpty()) {
            return new QueueFullException(
                    name,
                    null,
                    max,
                    "queue '" + name + "' is full: it holds " + held + " waiting or delayed jobs, at most " + max
                            + ", and " + wanted + " more do not fit; nothing was added");
        }
        String group = gid.equals("u") ? null : gid.substring(1);
        String which = group == null ? "the ungrouped jobs" : "group '" + group + "'";
        return new QueueFullException(
                name,
                group,
                max,
                "queue '" + name + "': " + which + " holds " + held
                        + " waiting or delayed jobs, at most " + max + " (its maxQueued), and " + wanted
                        + " more do not fit; nothing was added");
    }

    /** Until when an add may wait for room, on the engine clock; {@code Long.MIN_VALUE} to reject at once. */
    private long roomDeadline() {
        Duration blockFor = queue.opened().whenFull().blockFor();
        return blockFor.isZero() ? Long.MIN_VALUE : queue.clock().nanos() + blockFor.toNanos();
    }

    /**
     * Waits a little for room; false once {@code deadline} has passed or {@code full} cannot fit at all.
     *
     * @throws QueueFullException saying so, if the producer is interrupted while it waits
     * @throws IllegalStateException if the engine closes meanwhile
     */
    private boolean awaitRoom(long deadline, QueueFullException full) {
        long now = queue.clock().nanos();
        if (deadline == Long.MIN_VALUE || now >= deadline) {
            return false;
        }
        long seen = queue.changes();
        // the engine closing after this signals, which ends the wait; closed before it, it throws here. Room made
        // meanwhile by this process is announced by the room marker too (the script saw this producer's note).
        queue.checkOpen();
        SluiceClock.Timer timer = queue.clock().schedule(deadline - now, queue::signal);
        queue.roomWatcher.waitStarts();
        try {
            queue.awaitChangeAfter(seen, ROOM_BACKSTOP_MILLIS);
        } catch (InterruptedException e) {
            throw QueueChecks.interruptedWaitingForRoom(name, full, e);
        } finally {
            queue.roomWatcher.waitEnds();
            timer.cancel();
        }
        queue.checkOpen();
        return true;
    }
}
