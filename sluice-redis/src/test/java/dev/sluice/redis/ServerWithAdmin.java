package dev.sluice.redis;

import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A test's own Redis server and a plain client connection to it, for what a test does to the server itself (pause
 * it, read its command counts).
 */
public final class ServerWithAdmin implements AutoCloseable {
    private static final Pattern CALLS = Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+)");

    private final RedisServer redis;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> admin;

    private ServerWithAdmin(RedisServer redis) {
        this.redis = redis;
        this.client = RedisClient.create(redis.uri());
        this.admin = client.connect();
    }

    /** Starts a server on a free port. */
    public static ServerWithAdmin start() {
        return new ServerWithAdmin(RedisServer.start());
    }

    /** The server's URI. */
    public String uri() {
        return redis.uri();
    }

    /** The admin connection. */
    public StatefulRedisConnection<String, String> admin() {
        return admin;
    }

    /** How many times the server ran {@code command} ({@code INFO commandstats}). */
    public long calls(String command) {
        Matcher matcher = CALLS.matcher(admin.sync().info("commandstats"));
        while (matcher.find()) {
            if (matcher.group(1).equals(command)) {
                return Long.parseLong(matcher.group(2));
            }
        }
        return 0;
    }

    /** How many calls of the queue library the server ran, as functions or as scripts. */
    public long scriptCalls() {
        return calls("fcall") + calls("evalsha");
    }

    @Override
    public void close() {
        try {
            admin.close();
            client.shutdown();
        } finally {
            redis.close();
        }
    }
}
