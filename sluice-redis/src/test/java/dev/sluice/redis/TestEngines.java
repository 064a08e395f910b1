package dev.sluice.redis;

import dev.sluice.Sluice;
import dev.sluice.testkit.redis.RedisServer;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Redis engines for tests: one client to the test kit's shared server, and a fresh key prefix per engine, so
 * engines never see each other's keys.
 */
final class TestEngines {
    private static final AtomicLong PREFIXES = new AtomicLong();
    private static RedisClient client;

    private static RedisCommands<String, String> commands;

    private TestEngines() {}

    /** A client to the shared test server, made once per JVM. */
    static synchronized RedisClient client() {
        if (client == null) {
            client = RedisClient.create(RedisServer.shared().uri());
            Runtime.getRuntime().addShutdownHook(new Thread(client::shutdown));
        }
        return client;
    }

    /** Commands on one connection to the shared test server, for tests that look at or write keys themselves. */
    static synchronized RedisCommands<String, String> commands() {
        if (commands == null) {
            commands = client().connect().sync();
        }
        return commands;
    }

    /**
     * Whether job {@code id} of the queue whose keys begin with {@code queueBase} has its running attempt in a field
     * of its own of the queue's records ({@code "\255<id>"}: a claim of a plain queue, see queue-held.lua).
     */
    static boolean hasAttempt(String queueBase, String id) {
        String found = commands()
                .eval(
                        "return tostring(redis.call('HEXISTS', KEYS[1], '\\255' .. ARGV[1]))",
                        ScriptOutputType.VALUE,
                        new String[] {queueBase + ":j"},
                        id);
        return found.equals("1");
    }

    /**
     * An empty engine on {@code clock}: scripts take their time from it when it is a {@link ManualClock} (virtual
     * time), and from the Redis server otherwise. Its command timeout is 30 s, not 500 ms: on a loaded machine a
     * call can take longer than 500 ms, and a contract test must not see the answer for an unavailable Redis
     * (tests of that make their own engines).
     */
    static Sluice on(SluiceClock clock) {
        return on(clock, newPrefix());
    }

    /** A key prefix no other engine of this JVM has: engines made with it share their keys. */
    static String newPrefix() {
        return "t" + PREFIXES.incrementAndGet();
    }

    /** As {@link #on(SluiceClock)}, on the keys of {@code prefix}: engines standing for several processes. */
    static Sluice on(SluiceClock clock, String prefix) {
        return on(clock, prefix, true);
    }

    /** As {@link #on(SluiceClock, String)}; with {@code functions} false, queues run as scripts on any Redis. */
    static Sluice on(SluiceClock clock, String prefix, boolean functions) {
        RedisSluice.Builder builder = RedisSluice.builder()
                .client(client())
                .keyPrefix(prefix)
                .commandTimeout(Duration.ofSeconds(30))
                .redisFunctions(functions);
        return (clock instanceof ManualClock ? builder.scriptClock(clock) : builder.clock(clock)).build();
    }
}
