package dev.sluice.redis.internal;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The engine's list of its queues in Redis ({@code <prefix>:queues}, see docs/redis-keys.md), and the removal of a
 * queue's keys when it is obliterated.
 */
final class QueueRegistry {
    /** How many keys one step of an obliteration looks at and removes. */
    private static final int OBLITERATE_STEP = 500;

    private final RedisEngine engine;
    private final String prefix;
    private final byte[] key;

    QueueRegistry(RedisEngine engine, String prefix) {
        this.engine = engine;
        this.prefix = prefix;
        this.key = RedisJobQueue.bytes(RedisKeys.queueRegistry(prefix));
    }

    /** Notes queue {@code name}, opened or restored, among the engine's queues. */
    void add(String name) {
        engine.await(engine.connection.keys.sadd(key, RedisJobQueue.bytes(name)));
    }

    /** The names of the engine's queues, in ascending order. */
    List<String> names() {
        List<String> names = new ArrayList<>();
        for (byte[] name : engine.await(engine.connection.keys.smembers(key))) {
            names.add(new String(name, StandardCharsets.UTF_8));
        }
        names.sort(null);
        return names;
    }

    /** Takes queue {@code name} off the list and removes every key of it, {@value #OBLITERATE_STEP} at a time. */
    void remove(String name) {
        engine.await(engine.connection.keys.srem(key, RedisJobQueue.bytes(name)));
        ScanArgs matching =
                ScanArgs.Builder.matches(RedisKeys.queueKeys(prefix, name)).limit(OBLITERATE_STEP);
        KeyScanCursor<byte[]> cursor = engine.await(engine.connection.keys.scan(matching));
        while (true) {
            List<byte[]> found = cursor.getKeys();
            if (!found.isEmpty()) {
                engine.await(engine.connection.keys.unlink(found.toArray(byte[][]::new)));
            }
            if (cursor.isFinished()) {
                return;
            }
            cursor = engine.await(engine.connection.keys.scan(cursor, matching));
        }
    }
}
