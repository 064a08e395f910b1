package dev.sluice.redis.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Requests of many threads sent to Redis one call at a time: while a call is on its way, the requests that come
 * wait, and the next call carries all of them (up to a most per call). The thread whose request is first sends;
 * once its own is answered it hands the sending on to the thread of the oldest waiting request. One thread alone
 * makes one call per request, as it would without this. Before a call, a sender that has fewer requests than the
 * last call carried lets other threads run a few times, while that brings more (see {@link #awaitLatecomers}).
 *
 * <p>A combiner may keep more than one call on its way ({@code callsInFlight}): the sender writes the next call
 * before it reads the reply of the one before ({@link #dispatch}, then {@link #complete}), and replies are read in
 * the order the calls were written. The thread that takes the sending on then finds calls already on their way,
 * and reads their replies first.
 *
 * <p>Requests are sent in the order they were queued: a request is queued before {@link #combine} or {@link
 * #combineAsync} returns, calls are taken from the front of the queue and written in that order, and their replies
 * are read in that order. So the requests of one thread are sent in the order of its calls.
 *
 * @param <R> the requests
 */
abstract class CallCombiner<R extends CallCombiner.Queued> {
    /** A request: {@link #send} answers it (in fields of the subclass) before it is done. */
    static class Queued {
        /** FALSE once answered by another thread's call; TRUE to hand this request's thread the sending. */
        final CompletableFuture<Boolean> wake = new CompletableFuture<>();

        /** How much of a call's most it takes (a request of more than the most goes in a call of its own). */
        final int size;

        boolean done;

        Queued() {
            this(1);
        }

        Queued(int size) {
            this.size = size;
        }
    }

    /** The most a sender yields before one call, waiting for requests on their way (see {@link #awaitLatecomers}). */
    static final int MOST_YIELDS = 16;

    /** Yields in a row that bring no request, after which a sender waits no longer. */
    static final int FRUITLESS_YIELDS = 4;

    private final int mostPerCall;
    private final int callsInFlight;
    private final ThreadFactory asyncThreads;
    private final Runnable pause;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<R> pending = new ArrayDeque<>();
    private boolean sending;
    /**
     * How many requests the last call carried: written and read by the sending thread only, one at a time (the
     * sending passes from thread to thread under {@link #lock}).
     */
    private int lastCall;

    /**
     * The calls written and not yet answered, oldest first, with what {@link #dispatch} returned for each: the
     * sending thread's only, as {@link #lastCall}.
     */
    private final ArrayDeque<InFlight<R>> inFlight = new ArrayDeque<>();

    private record InFlight<R>(List<R> batch, Object sent) {}

    CallCombiner(int mostPerCall) {
        this(mostPerCall, Thread.ofVirtual().factory());
    }

    /**
     * @param mostPerCall the most a call carries, in {@link Queued#size}
     * @param asyncThreads makes the threads of {@link #combineAsync}
     */
    CallCombiner(int mostPerCall, ThreadFactory asyncThreads) {
        this(mostPerCall, asyncThreads, Thread::yield);
    }

    /**
     * @param mostPerCall the most a call carries, in {@link Queued#size}
     * @param asyncThreads makes the threads of {@link #combineAsync}
     * @param pause lets other threads run, while a sender waits for requests on their way
     */
    CallCombiner(int mostPerCall, ThreadFactory asyncThreads, Runnable pause) {
        this(mostPerCall, asyncThreads, pause, 1);
    }

    /**
     * @param mostPerCall the most a call carries, in {@link Queued#size}
     * @param asyncThreads makes the threads of {@link #combineAsync}
     * @param pause lets other threads run, while a sender waits for requests on their way
     * @param callsInFlight the most calls written whose replies are not read yet (1: one call at a time)
     */
    CallCombiner(int mostPerCall, ThreadFactory asyncThreads, Runnable pause, int callsInFlight) {
        this.mostPerCall = mostPerCall;
        this.asyncThreads = asyncThreads;
        this.pause = pause;
        this.callsInFlight = callsInFlight;
    }

    /** Sends {@code batch} in one call and answers every request of it, whether the call succeeds or fails. */
    abstract void send(List<R> batch);

    /**
     * Writes the call of {@code batch} without reading its reply, and returns what {@link #complete} needs to read
     * it. Without an override, the call is sent and answered here ({@link #send}), and returns null.
     */
    Object dispatch(List<R> batch) {
        send(batch);
        return null;
    }

    /**
     * Reads the reply of the call {@link #dispatch} wrote for {@code batch} (what it returned: {@code sent}) and
     * answers every request of it, whether the call succeeded or failed. Without an override, nothing is left to do.
     */
    void complete(List<R> batch, Object sent) {}

    /** Sends {@code request}, alone or with others, and returns once it is answered. */
    final void combine(R request) {
        if (enqueue(request) || request.wake.join() == Boolean.TRUE && !request.done) {
            lead(request);
        }
    }

    /**
     * Queues {@code request} in its place and returns at once; once it is answered, {@code answered} runs on a
     * thread of {@code asyncThreads}, never on the thread of another request.
     */
    final void combineAsync(R request, Runnable answered) {
        boolean lead = enqueue(request);
        request.wake.thenAccept(leads -> asyncThreads
                .newThread(() -> {
                    if (leads && !request.done) {
                        lead(request);
                    }
                    answered.run();
                })
                .start());
        if (lead) {
            request.wake.complete(Boolean.TRUE);
        }
    }

    /** Queues {@code request}; true if its thread is to send, as no call is on its way. */
    private boolean enqueue(R request) {
        lock.lock();
        try {
            pending.add(request);
            boolean lead = !sending;
            sending = true;
            return lead;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Before a call: while fewer requests wait than the last call carried, and letting other threads run keeps
     * bringing more, the sender lets them run, a few times at most. The threads the last call answered (a worker's
     * slots back from short jobs) then join this call instead of the next: a worker of 10 slots makes a quarter
     * fewer calls, one of 100 two fifths fewer. A lone thread never waits; threads busy for longer cost at most
     * {@link #FRUITLESS_YIELDS} yields.
     */
    private void awaitLatecomers() {
        int waiting = waiting();
        int fruitless = 0;
        for (int yields = 0; waiting < lastCall && yields < MOST_YIELDS && fruitless < FRUITLESS_YIELDS; yields++) {
            pause.run();
            int now = waiting();
            fruitless = now > waiting ? 0 : fruitless + 1;
            waiting = now;
        }
    }

    private int waiting() {
        lock.lock();
        try {
            return pending.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sends the waiting requests until {@code own} is answered, keeping up to {@link #callsInFlight} calls on their
     * way, then hands the sending on: to the oldest request of a call still on its way, else to the oldest waiting.
     */
    private void lead(R own) {
        while (!own.done) {
            while (inFlight.size() < callsInFlight) {
                if (inFlight.isEmpty()) {
                    awaitLatecomers();
                }
                List<R> batch = nextBatch();
                if (batch.isEmpty()) {
                    break;
                }
                inFlight.add(new InFlight<>(batch, dispatch(batch)));
            }
            InFlight<R> oldest = inFlight.poll();
            complete(oldest.batch(), oldest.sent());
            for (R r : oldest.batch()) {
                r.done = true;
                if (r != own) {
                    r.wake.complete(Boolean.FALSE);
                }
            }
        }
        R next;
        lock.lock();
        try {
            next = inFlight.isEmpty() ? pending.peek() : inFlight.peek().batch().get(0);
            sending = next != null;
        } finally {
            lock.unlock();
        }
        if (next != null) {
            next.wake.complete(Boolean.TRUE);
        }
    }

    /** The waiting requests the next call carries, oldest first (none if none wait). */
    private List<R> nextBatch() {
        List<R> batch = new ArrayList<>();
        lock.lock();
        try {
            int size = 0;
            while (!pending.isEmpty() && (batch.isEmpty() || size + pending.peek().size <= mostPerCall)) {
                R next = pending.poll();
                size += next.size;
                batch.add(next);
            }
            if (!batch.isEmpty()) {
                lastCall = batch.size();
            }
        } finally {
            lock.unlock();
        }
        return batch;
    }
}
