package dev.sluice.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import java.util.concurrent.TimeUnit;

/**
 * A raw {@code EVALSHA} of a fixed script with one key, on a {@code String} connection like the one Sluice's
 * engine opens, awaited the way the engine awaits its own script. Two of them, sent exactly alike:
 *
 * <ul>
 *   <li>the ceiling ({@link #RedisBenchRaw(RedisClient)}, id {@code raw-evalsha}): a script that only returns 1,
 *       one round trip with nothing to compute;
 *   <li>the floor ({@link #floor(RedisClient)}, id {@code floor}): raw read-modify-write, a script that does what
 *       any rate limiter keeping its state in Redis and taking its time from Redis must do at least ({@code
 *       TIME}, {@code GET} of the key, {@code SET} of the key with an expiry) and computes nothing.
 * </ul>
 */
final class RedisBenchRaw implements RedisBenchContender {
    /** The ceiling's script. */
    static final String SCRIPT = "return 1";

    /** The TTL the floor's script gives the key it writes. */
    static final long FLOOR_TTL_MILLIS = 60_000;

    /** The floor's script: read the server's clock, read the key, write the key with a TTL, nothing computed. */
    static final String FLOOR_SCRIPT = "local t = redis.call('TIME')\n"
            + "local v = redis.call('GET', KEYS[1])\n"
            + "redis.call('SET', KEYS[1], t[1] .. t[2], 'PX', " + FLOOR_TTL_MILLIS + ")\n"
            + "return 1\n";

    private final String id;
    private final String keyPrefix;
    private final String script;
    private final String what;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisScriptingAsyncCommands<String, String> scripting;
    private final String sha;

    /** The ceiling: {@code EVALSHA} of {@value #SCRIPT}, keys {@code raw:<set>:<key>}. */
    RedisBenchRaw(RedisClient client) {
        this(
                client,
                RedisLimiterBench.RAW,
                "raw",
                SCRIPT,
                "raw EVALSHA, the ceiling: one round trip, nothing to compute");
    }

    /** The floor: {@code EVALSHA} of {@link #FLOOR_SCRIPT}, keys {@code floor:<set>:<key>}. */
    static RedisBenchRaw floor(RedisClient client) {
        return new RedisBenchRaw(
                client,
                RedisLimiterBench.FLOOR,
                "floor",
                FLOOR_SCRIPT,
                "raw read-modify-write, the floor: TIME + GET + SET PX, nothing computed");
    }

    private RedisBenchRaw(RedisClient client, String id, String keyPrefix, String script, String what) {
        this.id = id;
        this.keyPrefix = keyPrefix;
        this.script = script;
        this.what = what;
        connection = client.connect(StringCodec.UTF8);
        scripting = connection.async();
        sha = connection.sync().scriptLoad(script);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String description() {
        return what + ". EVALSHA of '" + script.strip().replace("\n", "; ") + "' with one key ("
                + keyPrefix + ":<set>:<key>), async().evalsha(...).get(timeout) on one"
                + " StatefulRedisConnection<String, String>";
    }

    @Override
    public Decider decider(String set, String[] keys) {
        String[][] keyArguments = new String[keys.length][];
        for (int i = 0; i < keys.length; i++) {
            keyArguments[i] = new String[] {keyPrefix + ":" + set + ":" + keys[i]};
        }
        return keyIndex -> {
            Long reply = scripting
                    .<Long>evalsha(sha, ScriptOutputType.INTEGER, keyArguments[keyIndex])
                    .get(RedisLimiterBench.CALL_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
            return reply == 1L;
        };
    }

    @Override
    public void close() {
        connection.close();
    }
}
