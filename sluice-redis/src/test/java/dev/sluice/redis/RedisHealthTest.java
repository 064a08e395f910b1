package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.testkit.redis.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The health reading a dashboard shows: INFO's figures, the keys, a round trip, and the warnings they call for. */
class RedisHealthTest {
    @Test
    void readsTheServersFiguresAndWarnsOfAnEvictingPolicy() {
        try (RedisServer redis = RedisServer.start("--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru");
                Sluice sluice = RedisSluice.builder().url(redis.uri()).build()) {
            sluice.queue("mail", Codec.utf8()).add("welcome", "ada");

            RedisHealth health = RedisSluice.health(sluice);

            assertThat(health.version()).isEqualTo(redis.version());
            assertThat(health.role()).isEqualTo("master");
            assertThat(health.maxMemoryBytes()).isEqualTo(100L * 1024 * 1024);
            assertThat(health.usedMemoryBytes()).isPositive().isLessThan(health.maxMemoryBytes());
            assertThat(health.maxMemoryPolicy()).isEqualTo("allkeys-lru");
            assertThat(health.connectedClients()).isPositive();
            assertThat(health.keys()).isPositive();
            assertThat(health.roundTrip()).isPositive().isLessThan(Duration.ofSeconds(10));
            assertThat(health.warnings()).singleElement().asString().contains("allkeys-lru", "noeviction");
        }
    }

    @Test
    void warnsOfMemoryNearItsBoundAndOfEvictions() {
        RedisHealth calm = new RedisHealth("7.0.15", "master", 10, 100, "noeviction", 1, 0, 5, Duration.ofMillis(1));
        RedisHealth strained =
                new RedisHealth("7.0.15", "master", 91, 100, "noeviction", 1, 3, 5, Duration.ofMillis(1));
        RedisHealth unbounded = new RedisHealth("7.0.15", "master", 91, 0, "noeviction", 1, 0, 5, Duration.ZERO);

        assertThat(calm.warnings()).isEmpty();
        assertThat(unbounded.warnings()).isEmpty();
        assertThat(strained.warnings()).hasSize(2);
        assertThat(strained.warnings().get(0)).contains("91 of its 100 bytes");
        assertThat(strained.warnings().get(1)).contains("evicted 3 keys");
    }

    @Test
    void onlyAnEngineOnRedisHasOne() {
        try (Sluice memory = Sluice.inMemory()) {
            assertThat(RedisSluice.isRedis(memory)).isFalse();
            assertThatThrownBy(() -> RedisSluice.health(memory))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("not an engine built by RedisSluice");
        }
    }
}
