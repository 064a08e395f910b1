package dev.sluice.redis.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Requests of many threads sent to Redis one call at a time: while a call is on its way, the requests that come
 * wait, and the next call carries all of them (up to a most per call). The thread whose request is first sends;
 * once its own is answered it hands the sending on to the thread of the oldest waiting request. One thread alone
 * makes one call per request, as it would without this.
 *
 * @param <R> the requests
 */
abstract class CallCombiner<R extends CallCombiner.Queued> {
    /** A request: {@link #send} answers it (in fields of the subclass) before it is done. */
    static class Queued {
        final CompletableFuture<Boolean> wake = new CompletableFuture<>();
        boolean done;
    }

    private final int mostPerCall;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<R> pending = new ArrayDeque<>();
    private boolean sending;

    CallCombiner(int mostPerCall) {
        this.mostPerCall = mostPerCall;
    }

    /** Sends {@code batch} in one call and answers every request of it, whether the call succeeds or fails. */
    abstract void send(List<R> batch);

    /** Sends {@code request}, alone or with others, and returns once it is answered. */
    final void combine(R request) {
        boolean lead;
        lock.lock();
        try {
            pending.add(request);
            lead = !sending;
            sending = true;
        } finally {
            lock.unlock();
        }
        if (lead || request.wake.join() == Boolean.TRUE && !request.done) {
            lead(request);
        }
    }

    /** Sends the waiting requests until {@code own} is answered, then hands the sending on to a waiting one. */
    private void lead(R own) {
        while (!own.done) {
            List<R> batch = new ArrayList<>();
            lock.lock();
            try {
                while (!pending.isEmpty() && batch.size() < mostPerCall) {
                    batch.add(pending.poll());
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
