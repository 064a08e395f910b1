package dev.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.Sluice;
import dev.sluice.redis.RedisSluice;
import dev.sluice.testkit.redis.RedisServer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** On the Redis engine the dashboard's snapshot carries the Redis's health beside the JVM's; in memory only the JVM's. */
class RedisDashboardHealthTest {
    private final HttpClient http = HttpClient.newHttpClient();

    private JsonNode engineSection(Sluice sluice) throws Exception {
        try (SluiceServer server = SluiceServer.builder(sluice).port(0).start()) {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(server.uri().resolve("/api/v1/dashboard/snapshot"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return new ObjectMapper().readTree(response.body()).get("engine");
        }
    }

    @Test
    void theSnapshotShowsRedissHealthAndWarnsOfAnEvictingPolicy() throws Exception {
        try (RedisServer redis = RedisServer.start("--maxmemory-policy", "allkeys-lru");
                Sluice sluice = RedisSluice.builder().url(redis.uri()).build()) {
            JsonNode engine = engineSection(sluice);

            assertThat(engine.has("jvm")).isTrue();
            JsonNode health = engine.get("redis");
            assertThat(health.get("version").asText()).isEqualTo(redis.version());
            assertThat(health.get("role").asText()).isEqualTo("master");
            assertThat(health.get("maxMemoryPolicy").asText()).isEqualTo("allkeys-lru");
            assertThat(health.get("roundTripP99Ms").asDouble()).isPositive();
            assertThat(health.get("warning").asText()).contains("noeviction");
        }
    }

    @Test
    void inMemoryTheSnapshotShowsTheJvmOnly() throws Exception {
        try (Sluice sluice = Sluice.inMemory()) {
            JsonNode engine = engineSection(sluice);

            assertThat(engine.has("jvm")).isTrue();
            assertThat(engine.has("redis")).isFalse();
        }
    }
}
