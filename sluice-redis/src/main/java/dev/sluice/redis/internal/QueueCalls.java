package dev.sluice.redis.internal;

import dev.sluice.SluiceException;
import dev.sluice.internal.limit.Limits;
import dev.sluice.queue.QueueListener;
import io.lettuce.core.RedisFuture;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The calls of one Redis queue's script: each sent with the epoch of the queue's settings (restored should Redis
 * lose them), in the order of the calls whose events this process's listeners hear, confirmed on replicas where the
 * engine waits for them; and what a combined call holds back (the placing of its events, the telling of this
 * process's metrics) until the combiner let go.
 */
final class QueueCalls<T> {
    private final RedisJobQueue<T> queue;

    QueueCalls(RedisJobQueue<T> queue) {
        this.queue = queue;
    }

    /** The script's time argument: empty for Redis's own clock, else the test clock in epoch microseconds. */
    String now() {
        long nanos = queue.engine.scriptNow();
        return nanos == LimitScript.REDIS_TIME ? "" : Long.toString(Math.floorDiv(nanos, 1000));
    }

    Object call(boolean changes, String command, String... args) {
        return call(changes, arguments(command, args));
    }

    /**
     * One call of the queue script.
     *
     * @throws IllegalStateException if the engine closed meanwhile (the call may have failed for that reason)
     * @throws SluiceException if Redis is unavailable or refuses
     */
    Object call(boolean changes, byte[][] arguments) {
        List<Object> reply;
        try {
            reply = settled(arguments, sent -> queue.engine.queueLibrary().call(queue.key, sent, changes), r -> r);
        } catch (SluiceException e) {
            throw closedOr(e);
        }
        return repeatsAfter(reply);
    }

    /**
     * What {@code send} answers for {@code arguments}, sent with the epoch of the queue's settings if their command
     * relies on them; should the script refuse them because Redis lost the settings, this process restores those it
     * knows and sends them again ({@link QueueSettings}).
     */
    private <R> R settled(byte[][] arguments, Function<byte[][], R> send, Function<R, List<Object>> replyOf) {
        byte[][] sent = queue.settings.withEpoch(arguments);
        return settled(arguments, sent, send.apply(sent), send, replyOf);
    }

    /** As {@link #settled(byte[][], Function, Function)}, from {@code answer}, the answer to {@code sent}. */
    private <R> R settled(
            byte[][] arguments,
            byte[][] sent,
            R answer,
            Function<byte[][], R> send,
            Function<R, List<Object>> replyOf) {
        for (int attempt = 1; QueueSettings.asksRestore(replyOf.apply(answer).get(0)); attempt++) {
            queue.settings.restore(QueueSettings.epochOf(sent), attempt, args -> {
                Object restored = queue.engine
                        .queueLibrary()
                        .call(queue.key, arguments("restore", args), true)
                        .get(0);
                queue.engine.register(queue.name); // a queue Redis lost, or one obliterated, is listed again
                return restored;
            });
            queue.signal();
            sent = queue.settings.withEpoch(arguments);
            answer = send.apply(sent);
        }
        return answer;
    }

    /** The command's reply; first, if the call left events of repeatable jobs, plans their next runs. */
    private Object repeatsAfter(List<Object> reply) {
        if (Replies.number(reply.get(1)) > 0) {
            queue.repeats.planPending();
        }
        return reply.get(0);
    }

    /** {@code failure}, or the closed engine's exception if the engine closed meanwhile. */
    private RuntimeException closedOr(SluiceException failure) {
        if (queue.closed || queue.engine.isClosed()) {
            IllegalStateException closedEngine = Limits.closed(queue);
            closedEngine.addSuppressed(failure);
            return closedEngine;
        }
        return failure;
    }

    /**
     * A reply, the place of its call among the calls whose events listeners hear, and, for a call {@link
     * #callConfirmed confirmed} on replicas, null if they acknowledged it, else by how many they fell short.
     */
    record Sequenced(Object reply, long ticket, ReplicaWait.Shortfall shortfall) {}

    /**
     * A call that may make events this process's listeners hear: the caller hands the events it builds from the
     * reply to {@link #deliver} with the ticket, whatever happens (an empty list if none).
     */
    Sequenced callInOrder(boolean changes, byte[][] arguments) {
        return callInOrder(changes, arguments, false);
    }

    /**
     * As {@link #callInOrder}, for an add or a job's ending: when the engine waits for replicas
     * ({@code waitForReplicas}), it returns once they acknowledged the call, or the wait's timeout passed.
     */
    Sequenced callConfirmed(byte[][] arguments) {
        return callInOrder(true, arguments, true);
    }

    private Sequenced callInOrder(boolean changes, byte[][] arguments, boolean confirmed) {
        return complete(dispatch(changes, arguments, confirmed));
    }

    /**
     * A call written and its reply not read yet ({@link #dispatchConfirmed}): its place among the calls whose events
     * listeners hear, its arguments as given and as sent, and the reply on its way.
     */
    record Dispatched(
            long ticket,
            boolean changes,
            boolean confirmed,
            byte[][] arguments,
            byte[][] sent,
            ReplicaWait.Sent<RedisFuture<List<Object>>> call) {}

    /**
     * Writes a call as {@link #callConfirmed} does, without reading its reply: Redis runs calls in the order they
     * were written, and {@link #complete} reads their replies in that order.
     */
    Dispatched dispatchConfirmed(byte[][] arguments) {
        return dispatch(true, arguments, true);
    }

    private Dispatched dispatch(boolean changes, byte[][] arguments, boolean confirmed) {
        long ticket = queue.events.ticket();
        try {
            byte[][] sent = queue.settings.withEpoch(arguments);
            return new Dispatched(ticket, changes, confirmed, arguments, sent, write(confirmed, sent));
        } catch (SluiceException e) {
            deliver(ticket, List.of());
            throw closedOr(e);
        } catch (RuntimeException e) {
            deliver(ticket, List.of());
            throw e;
        }
    }

    /** Writes {@code sent}, numbered as a write whose replicas the engine waits for if {@code confirmed}. */
    private ReplicaWait.Sent<RedisFuture<List<Object>>> write(boolean confirmed, byte[][] sent) {
        return confirmed
                ? queue.engine.queueLibrary().sendConfirmed(queue.key, sent)
                : new ReplicaWait.Sent<>(queue.engine.queueLibrary().send(queue.key, sent), null);
    }

    /**
     * Reads the reply of a call {@link #dispatchConfirmed written} (sent again, should Redis have lost the queue's
     * settings), as {@link #callInOrder} answers it.
     */
    Sequenced complete(Dispatched call) {
        try {
            QueueLibrary.ConfirmedReply answer = settled(
                    call.arguments(),
                    call.sent(),
                    queue.engine.queueLibrary().replyConfirmed(call.call(), queue.key, call.sent(), call.changes()),
                    sent -> queue.engine
                            .queueLibrary()
                            .replyConfirmed(write(call.confirmed(), sent), queue.key, sent, call.changes()),
                    QueueLibrary.ConfirmedReply::reply);
            List<Object> reply = answer.reply();
            if (Replies.number(reply.get(1)) > 0) {
                // planned once this call's events are told: planning calls come after it in the order of events
                PLAN_AFTER_DELIVERY.set(true);
            }
            queue.events.replied(call.ticket(), reply);
            return new Sequenced(reply.get(0), call.ticket(), answer.shortfall());
        } catch (SluiceException e) {
            deliver(call.ticket(), List.of());
            throw closedOr(e);
        } catch (RuntimeException e) {
            deliver(call.ticket(), List.of());
            throw e;
        }
    }

    /**
     * Places the events of call {@code ticket} among the queue's events (of every process), for the listeners to be
     * told in their order on the queue's own thread. Inside {@link #holding} the placing is held back until the
     * combiner let go, with the planning of repeatable jobs' runs the call listed.
     */
    void deliver(long ticket, List<Consumer<QueueListener<T>>> built) {
        boolean plan = PLAN_AFTER_DELIVERY.get();
        PLAN_AFTER_DELIVERY.set(false);
        Delivery delivery = new Delivery(queue.events.settle(ticket, built), plan);
        Held held = HELD.get();
        if (held != null) {
            held.deliveries().add(delivery);
        } else {
            tell(delivery);
        }
    }

    /** Tells this process's metrics of a change: now, or, inside {@link #holding}, once the combiner let go. */
    void measure(Runnable telling) {
        Held held = HELD.get();
        if (held != null) {
            held.measures().add(telling);
        } else {
            telling.run();
        }
    }

    private static final ThreadLocal<Boolean> PLAN_AFTER_DELIVERY = ThreadLocal.withInitial(() -> false);

    /**
     * What telling a call's events takes, once they are placed in order: the listeners' thread told of those through
     * {@code target} (see {@link QueueEvents#tellThrough}), then the pending runs of repeatable jobs planned if the
     * call listed some.
     */
    record Delivery(long target, boolean plan) {}

    /**
     * What a combined call held back for after the combiner let it go: the deliveries of its events, which every
     * thread whose request it carried tells, and the telling of this process's metrics, which one of them runs.
     */
    record Held(List<Delivery> deliveries, List<Runnable> measures) {}

    /** What this thread holds back while it sends a combined call for other threads too. */
    private static final ThreadLocal<Held> HELD = new ThreadLocal<>();

    /** Tells the events of a call whose delivery was held, and plans what it listed; see {@link #holding}. */
    void tell(Delivery delivery) {
        queue.events.tellThrough(delivery.target());
        if (delivery.plan()) {
            queue.repeats.planPending();
        }
    }

    /**
     * Runs {@code send}, a combined call that other threads wait for, holding back the telling of its events and
     * metrics: listeners and metrics are user code, which may itself add jobs (through the combiner this thread
     * leads) and so could wait for this thread while this thread waited for them. Returns what was held: each
     * thread whose request the call carried {@link #tell}s the deliveries once the combiner has let it go, and one
     * of them runs the measures.
     */
    Held holding(Runnable send) {
        Held outer = HELD.get();
        Held held = new Held(new ArrayList<>(1), new ArrayList<>());
        HELD.set(held);
        try {
            send.run();
        } finally {
            HELD.set(outer);
        }
        return held;
    }

    byte[][] arguments(String command, String... args) {
        byte[][] out = new byte[args.length + 2][];
        out[0] = RedisJobQueue.bytes(command);
        out[1] = RedisJobQueue.bytes(now());
        for (int i = 0; i < args.length; i++) {
            out[i + 2] = RedisJobQueue.bytes(args[i]);
        }
        return out;
    }
}
