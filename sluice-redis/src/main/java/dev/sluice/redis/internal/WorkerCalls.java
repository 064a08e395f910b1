package dev.sluice.redis.internal;

import dev.sluice.internal.queue.MetricsSet;
import dev.sluice.internal.queue.ThisProcess;
import dev.sluice.queue.Job;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redis worker's calls of the queue script: its slots' requests (an ending to record, a job to claim) are combined
 * into calls, one at a time per lane, each carrying all the requests that came while the one before was in flight;
 * the replies are handed back to each slot, with the events and metrics of the call told once the combiner let go.
 */
final class WorkerCalls<T> {
    /** The log of {@link RedisWorker}, whose calls these are. */
    private static final Logger LOG = LoggerFactory.getLogger(RedisWorker.class);

    private final RedisWorker<T> worker;
    private final RedisJobQueue<T> queue;

    WorkerCalls(RedisWorker<T> worker, RedisJobQueue<T> queue, int concurrency) {
        this.worker = worker;
        this.queue = queue;
        this.lanes = concurrency > ONE_LANE_UP_TO ? List.of(new Lane(), new Lane()) : List.of(new Lane());
    }

    /** The lane of slot {@code index}: all of a slot's calls go through one lane, in order. */
    Lane lane(int index) {
        return lanes.get(index % lanes.size());
    }

    static final class Ended<T> {
        private final boolean owned;
        private final ClaimedJob<T> next;

        Ended(boolean owned, ClaimedJob<T> next) {
            this.owned = owned;
            this.next = next;
        }

        boolean owned() {
            return owned;
        }

        ClaimedJob<T> next() {
            return next;
        }
    }

    /**
     * A slot's call to the script: an ending to record (or none) and whether to claim a job; {@code bySlot} as in
     * {@code Slot.end}. Its answer, or the failure of the call that carried it, is set before {@code done}.
     */
    static final class Request<T> extends CallCombiner.Queued {
        final RedisWorker<T>.Slot slot;
        final ClaimedJob<T> job;
        final Ending ending;
        final boolean claimNext;
        final boolean bySlot;
        Ended<T> answer;
        RuntimeException failure;
        /** The telling of the call's events, for the slot's thread once the combiner let it go. */
        List<QueueCalls.Delivery> deliveries = List.of();
        /** The telling of the call's metrics, for this request's thread once the combiner let it go (one per call). */
        List<Runnable> measures = List.of();

        Request(RedisWorker<T>.Slot slot, ClaimedJob<T> job, Ending ending, boolean claimNext, boolean bySlot) {
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
    private final List<Lane> lanes;

    static final int ONE_LANE_UP_TO = 16;

    /**
     * This worker's name in claim references: a call that claims names its claims {@code <claimer>.<number>}, and
     * the jobs it claimed carry that while active, so that the worker can give back those of a call whose reply it
     * never got (they would otherwise wait for their lease to run out, and count a stall).
     */
    private final String claimer = Long.toHexString(ThreadLocalRandom.current().nextLong());

    private final AtomicLong claimCalls = new AtomicLong();
    /** The claim references of calls that failed, to release with the next calls. */
    final ConcurrentLinkedQueue<String> lostClaims = new ConcurrentLinkedQueue<>();

    private static final int MOST_RELEASED_PER_CALL = 10;

    /**
     * A lane of the worker's calls to the script, one at a time: while one is in flight, the slots' requests wait,
     * and the next call carries all of them (up to {@link #MOST_PER_CALL}), endings in the order they came and one claim
     * per request that wants one. One slot alone makes one call per job, as it would without this.
     */
    final class Lane extends CallCombiner<Request<T>> {
        private static final int MOST_PER_CALL = 100;

        Lane() {
            super(MOST_PER_CALL);
        }

        /** Sends {@code request} (alone or with others) and returns its answer, or throws its call's failure. */
        Ended<T> submit(Request<T> request) {
            combine(request);
            request.deliveries.forEach(queue.calls::tell);
            request.measures.forEach(Runnable::run);
            if (request.failure != null) {
                throw request.failure;
            }
            return request.answer;
        }

        @Override
        void send(List<Request<T>> batch) {
            QueueCalls.Held held = queue.calls.holding(() -> sendHeld(batch));
            for (Request<T> r : batch) {
                r.deliveries = held.deliveries();
            }
            batch.get(0).measures = held.measures();
        }

        private void sendHeld(List<Request<T>> batch) {
            List<Request<T>> endings = new ArrayList<>(batch.size());
            int claims = 0;
            int size = 8;
            for (Request<T> r : batch) {
                if (r.ending != null) {
                    endings.add(r);
                    size += 4
                            + (r.ending.how().equals("c") ? 1 : r.ending.args().size());
                }
                if (r.claimNext) {
                    claims++;
                }
            }
            if (!worker.claiming()) {
                claims = 0;
            }
            List<String> releasing = new ArrayList<>();
            for (String lost; releasing.size() < MOST_RELEASED_PER_CALL && (lost = lostClaims.poll()) != null; ) {
                releasing.add(lost);
            }
            size += releasing.size();
            String claimRef = claims == 0 ? "" : newClaimRef();
            byte[][] argv = new byte[size][];
            byte[] wanted = RedisJobQueue.bytes(queue.hearsEndings() ? "1" : "0");
            int at = 0;
            argv[at++] = RedisJobQueue.bytes("finish");
            argv[at++] = RedisJobQueue.bytes(queue.calls.now());
            argv[at++] = RedisJobQueue.bytes(Integer.toString(endings.size()));
            for (Request<T> r : endings) {
                argv[at++] = RedisJobQueue.bytes(r.job.id);
                argv[at++] = RedisJobQueue.bytes(Long.toString(r.job.token));
                argv[at++] = RedisJobQueue.bytes(r.ending.how());
                argv[at++] = wanted;
                if (r.ending.how().equals("c")) {
                    byte[] value = r.ending.value();
                    byte[] marked = new byte[value == null ? 0 : value.length + 1];
                    if (value != null) {
                        marked[0] = '=';
                        System.arraycopy(value, 0, marked, 1, value.length);
                    }
                    argv[at++] = marked;
                } else {
                    for (String a : r.ending.args()) {
                        argv[at++] = RedisJobQueue.bytes(a);
                    }
                }
            }
            argv[at++] = RedisJobQueue.bytes(Integer.toString(claims));
            argv[at++] = RedisJobQueue.bytes(worker.leaseMicros);
            argv[at++] = RedisJobQueue.bytes(worker.maxStalls);
            argv[at++] = RedisJobQueue.bytes(claimRef);
            argv[at++] = RedisJobQueue.bytes(Integer.toString(releasing.size()));
            for (String ref : releasing) {
                argv[at++] = RedisJobQueue.bytes(ref);
            }
            QueueCalls.Sequenced sequenced;
            try {
                sequenced = endings.isEmpty() ? queue.calls.callInOrder(true, argv) : queue.calls.callConfirmed(argv);
            } catch (RuntimeException e) {
                // the call may have run: the jobs it claimed go back with the next call, which may release them
                lostClaims.addAll(releasing);
                if (!claimRef.isEmpty()) {
                    lostClaims.add(claimRef);
                }
                for (Request<T> r : batch) {
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
                for (Request<T> r : batch) {
                    if (r.answer == null) {
                        r.failure = e;
                    }
                }
            } finally {
                queue.calls.deliver(sequenced.ticket(), events);
                if (!events.isEmpty()) {
                    queue.stateChanged();
                }
            }
        }

        private void answer(List<Request<T>> batch, List<Object> reply, List<Consumer<QueueListener<T>>> events) {
            long nextDue = Replies.number(reply.get(0));
            long now = Replies.number(reply.get(2));
            int at = 3;
            boolean measured = false;
            boolean[] owned = new boolean[batch.size()];
            for (int i = 0; i < batch.size(); i++) {
                Request<T> r = batch.get(i);
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
            int asked = 0;
            int started = 0;
            for (int i = 0; i < batch.size(); i++) {
                Request<T> r = batch.get(i);
                ClaimedJob<T> next = null;
                if (r.claimNext) {
                    asked++;
                }
                if (r.claimNext && at < reply.size()) {
                    next = r.slot.took(reply.get(at++), events);
                    if (next != null) {
                        measureStart(next);
                        started++;
                    }
                }
                measured |= next != null;
                r.slot.nextDue = nextDue;
                r.answer = new Ended<>(owned[i], next);
            }
            if (started > 0 && started == asked) {
                // every claim started a job: more may wait, for as many idle slots again
                queue.idleSlots.announce(started);
            }
            if (measured) {
                queue.stats.statsRecorded();
            }
        }
    }

    /**
     * Renews the leases of {@code running}, this worker's running jobs; marks those whose lease no longer held as
     * lost.
     *
     * @throws SluiceException if Redis cannot be reached
     */
    void renew(List<ClaimedJob<T>> running) {
        String[] args = new String[1 + 2 * running.size()];
        args[0] = worker.leaseMicros;
        for (int i = 0; i < running.size(); i++) {
            args[1 + 2 * i] = running.get(i).id;
            args[2 + 2 * i] = Long.toString(running.get(i).token);
        }
        List<Object> held = Replies.list(queue.calls.call(true, "renew", args));
        for (int i = 0; i < running.size(); i++) {
            if (Replies.number(held.get(i)) == 0) {
                running.get(i).lost = true;
            }
        }
    }

    /** Tells the queue that this worker is alive, and beats again within {@code heartbeatMicros}. */
    void hello(long heartbeatMicros) {
        queue.calls.call(
                false,
                "hello",
                claimer,
                ThisProcess.HOST,
                Long.toString(ThisProcess.PID),
                Integer.toString(worker.concurrency()),
                Long.toString(heartbeatMicros));
    }

    /** Tells the queue that this worker closed. */
    void bye() {
        queue.calls.call(false, "bye", claimer);
    }

    /** A fresh claim reference of this worker (see {@link #claimer}). */
    String newClaimRef() {
        return claimer + "." + claimCalls.incrementAndGet();
    }

    /** Tells the queue's metrics that {@code job} started (once the combiner let go: see {@link QueueCalls#holding}). */
    void measureStart(ClaimedJob<T> job) {
        if (job.waitedNanos >= 0 && !queue.metrics.isEmpty()) {
            String group = job.job.group();
            Duration waited = Duration.ofNanos(job.waitedNanos);
            queue.calls.measure(() -> queue.metrics.tell(m -> m.started(group, waited)));
        }
    }

    /** Tells the queue's metrics of an ending the script recorded as {@code happened} (as {@link #measureStart}). */
    private void measure(Request<T> r, String happened, Duration processing) {
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
        Result.Scope scope = r.ending.scope();
        String group = r.job.job.group();
        queue.calls.measure(() -> queue.metrics.ended(group, ending, outcome, scope, processing));
    }
}
