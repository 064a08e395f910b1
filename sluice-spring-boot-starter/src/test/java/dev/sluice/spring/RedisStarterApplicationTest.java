package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.redis.RedisServer;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The same application on the Redis engine, through {@code sluice.redis.url}, on the test kit's server. */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class RedisStarterApplicationTest extends StarterApplicationContract {
    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry properties) {
        properties.add("sluice.redis.url", () -> RedisServer.shared().uri());
        properties.add("sluice.redis.key-prefix", () -> "starter-" + UUID.randomUUID());
        properties.add("sluice.redis.command-timeout", () -> "10s");
    }

    @Test
    void runsOnRedisWhenTheUrlIsSet() {
        assertThat(sluice.toString()).startsWith("RedisSluice[");
    }
}
