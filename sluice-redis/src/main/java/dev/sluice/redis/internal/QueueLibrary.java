package dev.sluice.redis.internal;

import dev.sluice.SluiceException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisFunctionAsyncCommands;
import java.util.List;
import java.util.function.Supplier;

/**
 * The calls of the queue library on an engine's connection for queues: its Redis functions on Redis 7+, else its
 * script, loaded again (or sent whole) when Redis lost it, and numbered for the replicas to confirm when the engine
 * waits for them.
 */
final class QueueLibrary {
    private final RedisEngine engine;

    QueueLibrary(RedisEngine engine) {
        this.engine = engine;
    }

    /**
     * Runs the queue script on the queue whose base key is {@code key}, waiting for the reply within the command
     * timeout: the command's reply, then how many repeatable-job events wait for the engine to plan from.
     *
     * @param changes whether the call may change the queue: its failure then says the outcome is unknown
     * @throws SluiceException if Redis is unavailable, too slow, or refuses the call
     */
    List<Object> call(byte[] key, byte[][] args, boolean changes) {
        return reply(send(key, args), key, args, changes);
    }

    /**
     * Sends a call of the queue library without waiting for its reply (Redis runs such calls in the order sent):
     * its Redis function on Redis 7+ ({@code FCALL_RO} for a read-only command), else its script.
     */
    RedisFuture<List<Object>> send(byte[] key, byte[][] args) {
        RedisFunctionAsyncCommands<byte[], byte[]> functions = engine.queueConnection().functions;
        if (functions != null) {
            String function = QueueScript.function(args[0]);
            return QueueScript.readOnly(args[0])
                    ? functions.fcallReadOnly(function, ScriptOutputType.MULTI, new byte[][] {key}, args)
                    : functions.fcall(function, ScriptOutputType.MULTI, new byte[][] {key}, args);
        }
        return engine.queueConnection()
                .scripting
                .evalsha(QueueScript.SHA, ScriptOutputType.MULTI, new byte[][] {key}, args);
    }

    /**
     * As {@link #send}, for an add or a job's ending: when the engine waits for replicas, the write is numbered
     * for {@link #replyConfirmed} to confirm; otherwise it has no write.
     */
    ReplicaWait.Sent<RedisFuture<List<Object>>> sendConfirmed(byte[] key, byte[][] args) {
        if (engine.replicaWait() == null) {
            return new ReplicaWait.Sent<>(send(key, args), null);
        }
        return engine.replicaWait().send(() -> send(key, args));
    }

    /** The reply of a call, and, if it waited for replicas and fewer acknowledged it, by how many they fell short. */
    record ConfirmedReply(List<Object> reply, ReplicaWait.Shortfall shortfall) {}

    /**
     * The reply of a call {@link #sendConfirmed sent}, as {@link #reply}; then, if the call has a write,
     * once the replicas acknowledged it or the wait's timeout passed.
     *
     * @throws SluiceException as {@link #call}
     */
    ConfirmedReply replyConfirmed(
            ReplicaWait.Sent<RedisFuture<List<Object>>> sent, byte[] key, byte[][] args, boolean changes) {
        if (sent.write() == null) {
            return new ConfirmedReply(reply(sent.reply(), key, args, changes), null);
        }
        ReplicaWait.Write[] last = {sent.write()};
        List<Object> reply = reply(sent.reply(), key, args, changes, again -> {
            ReplicaWait.Sent<RedisFuture<List<Object>>> resent =
                    engine.replicaWait().send(again);
            last[0] = resent.write();
            return resent.reply();
        });
        return new ConfirmedReply(reply, engine.replicaWait().confirm(last[0]));
    }

    /**
     * The reply of a call {@link #send sent}, within the command timeout. If Redis does not have the library
     * (the first call, a restart without persistence, a flush), it is loaded, or the script sent whole, and the
     * call made again.
     *
     * @throws SluiceException as {@link #call}
     */
    List<Object> reply(RedisFuture<List<Object>> sent, byte[] key, byte[][] args, boolean changes) {
        return reply(sent, key, args, changes, Supplier::get);
    }

    /** How a call is sent again: {@code Supplier::get}, or numbered as a write to confirm. */
    private interface Resend {
        RedisFuture<List<Object>> send(Supplier<RedisFuture<List<Object>>> call);
    }

    private List<Object> reply(
            RedisFuture<List<Object>> sent, byte[] key, byte[][] args, boolean changes, Resend resend) {
        byte[][] keys = {key};
        try {
            try {
                return engine.await(sent);
            } catch (RedisNoScriptException lost) {
                return engine.await(resend.send(() -> engine.queueConnection()
                        .scripting
                        .<List<Object>>eval(QueueScript.SOURCE, ScriptOutputType.MULTI, keys, args)));
            } catch (SluiceException refused) {
                RedisFunctionAsyncCommands<byte[], byte[]> functions = engine.queueConnection().functions;
                if (functions == null || !String.valueOf(refused.getMessage()).contains("Function not found")) {
                    throw refused;
                }
                engine.await(functions.functionLoad(QueueScript.FUNCTION_LIBRARY, true));
                return engine.await(resend.send(() -> functions.<List<Object>>fcall(
                        QueueScript.function(args[0]), ScriptOutputType.MULTI, keys, args)));
            }
        } catch (RedisEngine.Unavailable e) {
            throw unavailable(e, changes);
        }
    }

    private SluiceException unavailable(RedisEngine.Unavailable e, boolean changes) {
        return new SluiceException(
                "Redis (" + engine.description() + ") is unavailable: "
                        + e.getCause().getMessage()
                        + (changes ? "; the outcome is unknown (a retry with the same job id is safe)" : ""),
                e.getCause());
    }
}
