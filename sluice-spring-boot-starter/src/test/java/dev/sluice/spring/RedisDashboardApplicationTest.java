package dev.sluice.spring;

import dev.sluice.testkit.redis.RedisServer;
import java.util.UUID;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The API and dashboard in the test application on the Redis engine, on the test kit's server. */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("dashboard")
@DirtiesContext
class RedisDashboardApplicationTest extends DashboardApplicationContract {
    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry properties) {
        properties.add("sluice.redis.url", () -> RedisServer.shared().uri());
        properties.add("sluice.redis.key-prefix", () -> "dashboard-" + UUID.randomUUID());
        properties.add("sluice.redis.command-timeout", () -> "10s");
    }
}
