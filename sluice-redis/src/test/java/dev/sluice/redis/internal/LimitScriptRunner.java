package dev.sluice.redis.internal;

import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/** Runs {@link LimitScript} on the shared test Redis, under key names no other test uses. */
final class LimitScriptRunner implements AutoCloseable {
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    final RedisCommands<String, String> redis;
    private final String prefix = "ls-" + UUID.randomUUID() + ":";

    LimitScriptRunner() {
        client = RedisClient.create(RedisServer.shared().uri());
        connection = client.connect();
        redis = connection.sync();
        redis.scriptLoad(LimitScript.SOURCE);
    }

    /** A layer whose keys, in one hash slot, are named after {@code limiter} and {@code key}. */
    LimitScript.Layer layer(String limiter, String key, dev.sluice.limit.LimitPolicy policy, String leaseId) {
        String tag = "{" + prefix + limiter + ":" + key + "}";
        return new LimitScript.Layer(tag + ":s", tag + ":a", policy, leaseId);
    }

    LimitScript.Reply acquire(List<LimitScript.Layer> layers, long permits, long now) {
        List<Object> reply = redis.evalsha(
                LimitScript.SHA,
                ScriptOutputType.MULTI,
                LimitScript.keys(layers),
                LimitScript.acquireArgs(layers, permits, now));
        return LimitScript.parse(reply, layers.size());
    }

    LimitScript.Reply peek(LimitScript.Layer layer, long permits, long now) {
        List<Object> reply = redis.evalsha(
                LimitScript.SHA,
                ScriptOutputType.MULTI,
                LimitScript.keys(layer),
                LimitScript.layerArgs(LimitScript.PEEK, List.of(layer), permits, now));
        return LimitScript.parse(reply, 1);
    }

    void refund(LimitScript.Layer layer, long permits, long now) {
        redis.evalsha(
                LimitScript.SHA,
                ScriptOutputType.INTEGER,
                LimitScript.keys(layer),
                LimitScript.layerArgs(LimitScript.REFUND, List.of(layer), permits, now));
    }

    void reset(LimitScript.Layer layer, long now) {
        redis.evalsha(LimitScript.SHA, ScriptOutputType.INTEGER, LimitScript.keys(layer), LimitScript.resetArgs(now));
    }

    boolean release(LimitScript.Layer layer, String member, long now) {
        Object reply = redis.evalsha(
                LimitScript.SHA,
                ScriptOutputType.INTEGER,
                LimitScript.keys(layer),
                LimitScript.releaseArgs(member, now));
        return LimitScript.parseRelease(reply);
    }

    /** What the layers' keys hold and how long they live, to check that a call changed nothing. */
    List<String> snapshot(List<LimitScript.Layer> layers) {
        List<String> snapshot = new ArrayList<>();
        for (String key : LimitScript.keys(layers)) {
            byte[] dump = redis.dump(key);
            snapshot.add(key + "=" + (dump == null ? "none" : Arrays.toString(dump)));
        }
        return snapshot;
    }

    /** The remaining time to live of each key, in ms (-2 if missing, -1 if without expiry). */
    long[] pttls(List<LimitScript.Layer> layers) {
        String[] keys = LimitScript.keys(layers);
        long[] ttls = new long[keys.length];
        for (int i = 0; i < keys.length; i++) {
            ttls[i] = redis.pttl(keys[i]);
        }
        return ttls;
    }

    /** Deletes every key this runner made, then disconnects. */
    @Override
    public void close() {
        ScanArgs match = ScanArgs.Builder.matches("{" + prefix + "*").limit(1_000);
        KeyScanCursor<String> cursor = redis.scan(match);
        while (true) {
            if (!cursor.getKeys().isEmpty()) {
                redis.del(cursor.getKeys().toArray(String[]::new));
            }
            if (cursor.isFinished()) {
                break;
            }
            cursor = redis.scan(cursor, match);
        }
        connection.close();
        client.shutdown();
    }
}
