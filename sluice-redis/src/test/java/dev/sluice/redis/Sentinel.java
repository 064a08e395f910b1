package dev.sluice.redis;

import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A Redis Sentinel process watching {@code master} as "limits", with a quorum of 1, for tests. */
record Sentinel(Process process, int port) implements AutoCloseable {
    /** Starts a Sentinel in {@code dir}; {@code moreConfig} is added to its configuration file. */
    static Sentinel start(Path dir, RedisServer master, String moreConfig) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path config = dir.resolve("sentinel.conf");
        Files.writeString(
                config,
                "port " + port + "\nbind 127.0.0.1\nsentinel monitor limits 127.0.0.1 " + master.port() + " 1\n"
                        + moreConfig);
        Process process = new ProcessBuilder(List.of(master.binary().toString(), config.toString(), "--sentinel"))
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("sentinel.log").toFile())
                .start();
        return new Sentinel(process, port);
    }

    /** The URL of the master this Sentinel names. */
    String url() {
        return "redis-sentinel://127.0.0.1:" + port + "#limits";
    }

    /** The port of the master this Sentinel names now, or -1 if it does not answer. */
    int masterPort() {
        RedisClient client = RedisClient.create(Replication.RESOURCES, RedisURI.create("redis://127.0.0.1:" + port));
        try (StatefulRedisSentinelConnection<String, String> connection = client.connectSentinel()) {
            SocketAddress master = connection.sync().getMasterAddrByName("limits");
            return master instanceof InetSocketAddress address ? address.getPort() : -1;
        } catch (RuntimeException notReady) {
            return -1;
        } finally {
            client.shutdown();
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
}
