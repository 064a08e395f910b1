package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.limit.Decision;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A redis-sentinel:// URL reaches the master the Sentinel names. */
class RedisSentinelTest {

    @Test
    void limitsLiveOnTheMasterTheSentinelNames(@TempDir Path dir) throws Exception {
        try (RedisServer master = RedisServer.start()) {
            int port = freePort();
            Files.writeString(
                    dir.resolve("sentinel.conf"),
                    "port " + port + "\nbind 127.0.0.1\nsentinel monitor limits 127.0.0.1 " + master.port() + " 1\n");
            Process sentinel = new ProcessBuilder(List.of(
                            master.binary().toString(),
                            dir.resolve("sentinel.conf").toString(),
                            "--sentinel"))
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("sentinel.log").toFile())
                    .start();
            try {
                String url = "redis-sentinel://127.0.0.1:" + port + "#limits";
                Sluice[] connected = new Sluice[1];
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    try {
                        connected[0] = RedisSluice.builder()
                                .url(url)
                                .keyPrefix("sentinel")
                                .build();
                        return true;
                    } catch (RuntimeException notReadyYet) {
                        return false;
                    }
                });
                try (Sluice sluice = connected[0]) {
                    RateLimiter limiter = sluice.limiter("s", TokenBucket.of(2, Duration.ofMinutes(1)));
                    assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue();
                    assertThat(limiter.tryAcquire("k").allowed()).isFalse();
                }
                RedisClient direct = RedisClient.create(master.uri());
                try (StatefulRedisConnection<String, String> connection = direct.connect()) {
                    assertThat(connection.sync().keys("sentinel:*"))
                            .as("written on the master")
                            .hasSize(1);
                } finally {
                    direct.shutdown();
                }
            } finally {
                sentinel.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void afterAFailoverLimitsGoOnOnThePromotedReplicaWithoutARestart(@TempDir Path dir) throws Exception {
        try (RedisServer master = RedisServer.start();
                RedisServer replica = RedisServer.start("--replicaof", "127.0.0.1", Integer.toString(master.port()))) {
            int port = freePort();
            Files.writeString(
                    dir.resolve("sentinel.conf"),
                    "port " + port + "\nbind 127.0.0.1\n"
                            + "sentinel monitor limits 127.0.0.1 " + master.port() + " 1\n"
                            + "sentinel down-after-milliseconds limits 500\n"
                            + "sentinel failover-timeout limits 5000\n");
            Process sentinel = new ProcessBuilder(List.of(
                            master.binary().toString(),
                            dir.resolve("sentinel.conf").toString(),
                            "--sentinel"))
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("sentinel.log").toFile())
                    .start();
            try {
                String url = "redis-sentinel://127.0.0.1:" + port + "#limits";
                Sluice[] connected = new Sluice[1];
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    try {
                        connected[0] = RedisSluice.builder()
                                .url(url)
                                .keyPrefix("failover")
                                .commandTimeout(Duration.ofMillis(300))
                                .retryInterval(Duration.ofMillis(200))
                                .build();
                        return true;
                    } catch (RuntimeException notReadyYet) {
                        return false;
                    }
                });
                try (Sluice sluice = connected[0]) {
                    RateLimiter limiter = sluice.limiter("f", TokenBucket.of(100, Duration.ofMinutes(1)));
                    assertThat(limiter.tryAcquire("k").basis()).isEqualTo(Decision.Basis.LIMIT);

                    master.kill();
                    await().atMost(Duration.ofSeconds(30))
                            .pollInterval(Duration.ofMillis(100))
                            .until(() -> limiter.tryAcquire("after").basis() == Decision.Basis.LIMIT);
                }
                RedisClient promoted = RedisClient.create(replica.uri());
                try (StatefulRedisConnection<String, String> connection = promoted.connect()) {
                    assertThat(connection.sync().info("replication")).contains("role:master");
                    assertThat(connection.sync().keys("failover:*:{after}"))
                            .as("the grant after the failover was written on the promoted replica")
                            .hasSize(1);
                } finally {
                    promoted.shutdown();
                }
            } finally {
                sentinel.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
