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
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A redis-sentinel:// URL reaches the master the Sentinel names, and follows it through a failover. */
@Tag("slow")
class RedisSentinelTest {

    @Test
    void limitsLiveOnTheMasterTheSentinelNames(@TempDir Path dir) throws Exception {
        try (RedisServer master = RedisServer.start();
                Sentinel sentinel = Sentinel.start(dir, master, "")) {
            try (Sluice sluice = connectOnceReady(sentinel.url(), builder -> builder.keyPrefix("sentinel"))) {
                RateLimiter limiter = sluice.limiter("s", TokenBucket.of(2, Duration.ofMinutes(1)));
                assertThat(limiter.tryAcquire("k", 2).allowed()).isTrue();
                assertThat(limiter.tryAcquire("k").allowed()).isFalse();
            }
            assertThat(keys(master, "sentinel:*")).as("written on the master").hasSize(1);
        }
    }

    @Test
    void afterAFailoverLimitsGoOnOnThePromotedReplicaWithoutARestart(@TempDir Path dir) throws Exception {
        try (RedisServer master = RedisServer.start();
                RedisServer replica = RedisServer.start("--replicaof", "127.0.0.1", Integer.toString(master.port()));
                Sentinel sentinel = Sentinel.start(
                        dir,
                        master,
                        "sentinel down-after-milliseconds limits 500\nsentinel failover-timeout limits 5000\n")) {
            try (Sluice sluice = connectOnceReady(
                    sentinel.url(),
                    builder -> builder.keyPrefix("failover")
                            .commandTimeout(Duration.ofMillis(300))
                            .retryInterval(Duration.ofMillis(200)))) {
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
            } finally {
                promoted.shutdown();
            }
            assertThat(keys(replica, "failover:*:{after}"))
                    .as("the grant after the failover was written on the promoted replica")
                    .hasSize(1);
        }
    }

    /** An engine on {@code url}, built as {@code settings} say, once the Sentinel answers. */
    static Sluice connectOnceReady(String url, UnaryOperator<RedisSluice.Builder> settings) {
        Sluice[] connected = new Sluice[1];
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            try {
                connected[0] = settings.apply(RedisSluice.builder().url(url)).build();
                return true;
            } catch (RuntimeException notReadyYet) {
                return false;
            }
        });
        return connected[0];
    }

    static List<String> keys(RedisServer server, String pattern) {
        RedisClient client = RedisClient.create(server.uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().keys(pattern);
        } finally {
            client.shutdown();
        }
    }
}
