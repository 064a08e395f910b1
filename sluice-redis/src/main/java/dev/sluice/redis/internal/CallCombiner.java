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
 * makes one call per request, as it would without this.
 *
 * <p>Requests are sent in the order they were queued: a request is queued before {@link #combine} or {@link
 * #combineAsync} returns, calls are taken from the front of the queue, and the next call is sent only once the
 * one before it is answered. So the requests of one thread are sent in the order of its calls.
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

    private final int mostPerCall;
    private final ThreadFactory asyncThreads;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<R> pending = new ArrayDeque<>();
    private boolean sending;

    CallCombiner(int mostPerCall) {
        this(mostPerCall, Thread.ofVirtual().factory());
    }

    /**
     * @param mostPerCall the most a call carries, in {@link Queued#size}
     * @param asyncThreads makes the threads of {@link #combineAsync}
     */
    CallCombiner(int mostPerCall, ThreadFactory asyncThreads) {
        this.mostPerCall = mostPerCall;
        this.asyncThreads = asyncThreads;
    }

    /** Sends {@code batch} in one call and answers every request of it, whether the call succeeds or fails. */
    abstract void send(List<R> batch);

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

    /** Sends the waiting requests until {@code own} is answered, then hands the sending on to a waiting one. */
    private void lead(R own) {
        while (!own.done) {
            List<R> batch = new ArrayList<>();
            lock.lock();
            try {
                int size = 0;
                while (!pending.isEmpty() && (batch.isEmpty() || size + pending.peek().size <= mostPerCall)) {
                    R next = pending.poll();
                    size += next.size;
                    batch.add(next);
                }
            } finally {
                lock.unlock();
            }
            send(batch);
            for (R r : batch) {
                r.done = true;
                if (r != own) {
                    r.wake.complete(Boolean.FALSE);
                }
            }
        }
        R next;
        lock.lock();
        try {
            next = pending.peek();
            sending = next != null;
        } finally {
            lock.unlock();
        }
        if (next != null) {
            next.wake.complete(Boolean.TRUE);
        }
    }
}
