package dev.sluice.bench;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The floor of a queue at concurrency 1: a loop of calls of a Redis function that does nothing ({@value #LIBRARY}),
 * one call in flight, sent as Sluice's Redis engine sends its queue calls: a Lettuce {@link RedisClient} with the
 * engine's client options (reconnect, commands refused while disconnected, every command timed out), a {@code
 * byte[]} connection, {@code async().fcall(...)} with one key, awaited with a timeout. A worker at concurrency 1 makes
 * one such round trip per job and does work besides, so its jobs/s cannot pass this loop's calls/s. On a Redis
 * without functions (before 7) the call is an {@code EVALSHA} of {@code return 1}, the engine's fallback.
 *
 * <p>Loads its library when opened and deletes it when closed; writes no key.
 */
final class NoopFloor implements AutoCloseable {
    /** The library's name, and its one function's. */
    static final String NAME = "sluicenoop";

    /** The function library: one function that returns 1. */
    static final String LIBRARY =
            "#!lua name=" + NAME + "\nredis.register_function('" + NAME + "', function() return 1 end)";

    private static final byte[][] KEYS = {"bench:noop".getBytes(StandardCharsets.UTF_8)};

    private final RedisClient client;
    private final StatefulRedisConnection<byte[], byte[]> connection;
    private final Duration timeout;
    private final boolean functions;
    private final Supplier<RedisFuture<Long>> call;

    private NoopFloor(RedisClient client, Duration timeout) {
        this.client = client;
        this.timeout = timeout;
        connection = client.connect(ByteArrayCodec.INSTANCE);
        RedisAsyncCommands<byte[], byte[]> commands = connection.async();
        boolean loaded;
        try {
            connection.sync().functionLoad(LIBRARY, true);
            loaded = true;
        } catch (RedisCommandExecutionException e) {
            loaded = false; // no FUNCTION command: Redis 6.2
        }
        functions = loaded;
        if (functions) {
            call = () -> commands.fcall(NAME, ScriptOutputType.INTEGER, KEYS);
        } else {
            String sha = connection.sync().scriptLoad("return 1");
            call = () -> commands.evalsha(sha, ScriptOutputType.INTEGER, KEYS);
        }
    }

    /**
     * Connects to {@code uri} as the engine does with the command timeout {@code timeout}, and loads the library.
     */
    static NoopFloor open(String uri, Duration timeout) {
        RedisClient client = RedisClient.create(uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .build());
        try {
            return new NoopFloor(client, timeout);
        } catch (RuntimeException e) {
            client.shutdown();
            throw e;
        }
    }

    /** Whether the calls are {@code FCALL}s (else {@code EVALSHA}s: a Redis without functions). */
    boolean functions() {
        return functions;
    }

    /**
     * Makes {@code calls} calls one after another (after {@code calls / 10} untimed ones to warm the JIT), and
     * returns {@code noop_calls_per_s}, {@code noop_us_per_call} (wall time), {@code noop_redis_cpu_us_per_call}
     * and {@code noop_client_cpu_us_per_call} (this JVM's).
     *
     * @throws IllegalArgumentException if {@code calls} is below 1
     */
    Map<String, Double> measure(int calls, RedisBenchAdmin admin) throws Exception {
        if (calls < 1) {
            throw new IllegalArgumentException("calls must be 1 or more, was " + calls);
        }
        loop(calls / 10);
        PhaseCpu cpu = PhaseCpu.start(admin);
        long t0 = System.nanoTime();
        loop(calls);
        double micros = (System.nanoTime() - t0) / 1e3;
        PhaseCpu.Use used = cpu.stop();
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("noop_calls_per_s", calls / (micros / 1e6));
        figures.put("noop_us_per_call", micros / calls);
        figures.put("noop_redis_cpu_us_per_call", used.redisMicros() / calls);
        figures.put("noop_client_cpu_us_per_call", used.clientMicros() / calls);
        return figures;
    }

    private void loop(int calls) throws Exception {
        long nanos = timeout.toNanos();
        for (int i = 0; i < calls; i++) {
            Long reply = call.get().get(nanos, TimeUnit.NANOSECONDS);
            if (reply == null || reply != 1L) {
                throw new IllegalStateException("the no-op call answered " + reply + ", not 1");
            }
        }
    }

    @Override
    public void close() {
        try {
            if (functions) {
                // Lettuce has no FUNCTION DELETE of its own
                connection
                        .sync()
                        .dispatch(
                                CommandType.FUNCTION,
                                new StatusOutput<>(ByteArrayCodec.INSTANCE),
                                new CommandArgs<>(ByteArrayCodec.INSTANCE)
                                        .add("DELETE")
                                        .add(NAME));
            }
        } finally {
            connection.close();
            client.shutdown();
        }
    }
}
