package dev.sluice.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import java.util.concurrent.TimeUnit;

/**
 * The ceiling: {@code EVALSHA} of a script that only returns 1, with one key, on a {@code String} connection
 * like the one Sluice's engine opens, awaited the way the engine awaits its own script. One round trip with
 * nothing to compute.
 */
final class RedisBenchRaw implements RedisBenchContender {
    static final String SCRIPT = "return 1";

    private final StatefulRedisConnection<String, String> connection;
    private final RedisScriptingAsyncCommands<String, String> scripting;
    private final String sha;

    RedisBenchRaw(RedisClient client) {
        connection = client.connect(StringCodec.UTF8);
        scripting = connection.async();
        sha = connection.sync().scriptLoad(SCRIPT);
    }

    @Override
    public String id() {
        return "raw-evalsha";
    }

    @Override
    public String description() {
        return "EVALSHA of '" + SCRIPT + "' with one key, async().evalsha(...).get(timeout) on one"
                + " StatefulRedisConnection<String, String>";
    }

    @Override
    public Decider decider(String set, String[] keys) {
        String[][] keyArguments = new String[keys.length][];
        for (int i = 0; i < keys.length; i++) {
            keyArguments[i] = new String[] {"raw:" + set + ":" + keys[i]};
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
