package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.queue.JobOptions;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The health indicator asks the engine without writing, and shows the queues' counts as they are. */
class SluiceHealthIndicatorTest {
    private static final Pattern CHANGES = Pattern.compile("rdb_changes_since_last_save:(\\d+)");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(SluiceAutoConfiguration.class, SluiceHealthAutoConfiguration.class));

    @SuppressWarnings("unchecked")
    private static long waiting(Health health, String queue) {
        Map<String, Map<String, Long>> queues =
                (Map<String, Map<String, Long>>) health.getDetails().get("queues");
        return queues.get(queue).get("waiting");
    }

    @Test
    void showsEachQueuesCountsAsTheyAreAtEachCheck() {
        runner.withPropertyValues("sluice.queues.mail.concurrency=1").run(context -> {
            HealthIndicator health = context.getBean("sluiceHealthIndicator", HealthIndicator.class);
            assertThat(waiting(health.health(), "mail")).isZero();

            context.getBean(SluiceRegistry.class).queue("mail").add("welcome", "ada");

            assertThat(waiting(health.health(), "mail")).isEqualTo(1);
        });
    }

    /**
     * Regression: each probe read every queue's counts, and with them ran its housekeeping, which wrote when
     * something came due, such as a delayed job. The counts are now read at each probe, and write nothing.
     */
    @Test
    void probesRedisWithoutWritingWhileTheCountsAreShown() {
        try (RedisServer redis = RedisServer.start()) {
            RedisClient client = RedisClient.create(redis.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                runner.withPropertyValues("sluice.redis.url=" + redis.uri(), "sluice.queues.mail.concurrency=1")
                        .run(context -> {
                            HealthIndicator health = context.getBean("sluiceHealthIndicator", HealthIndicator.class);
                            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                            context.getBean(SluiceRegistry.class)
                                    .queue("mail")
                                    .add(
                                            "later",
                                            "ada",
                                            JobOptions.builder()
                                                    .delay(Duration.ofMillis(50))
                                                    .build());
                            long due = serverMillis(connection) + 50;
                            await().atMost(Duration.ofSeconds(5)).until(() -> serverMillis(connection) > due);
                            long before = changes(connection);

                            for (int i = 0; i < 5; i++) {
                                assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                            }

                            assertThat(changes(connection)).isEqualTo(before);
                        });
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void isDownWhileRedisIsDownWithQueuesDeclaredOnlyAndUpOnceItIsBack() {
        try (RedisServer redis = RedisServer.start()) {
            runner.withPropertyValues("sluice.redis.url=" + redis.uri(), "sluice.queues.mail.concurrency=1")
                    .run(context -> {
                        HealthIndicator health = context.getBean("sluiceHealthIndicator", HealthIndicator.class);
                        assertThat(health.health().getStatus()).isEqualTo(Status.UP);

                        redis.kill();
                        await().atMost(Duration.ofSeconds(5))
                                .until(() -> health.health().getStatus(), Status.DOWN::equals);

                        redis.restart();
                        await().atMost(Duration.ofSeconds(20))
                                .until(() -> health.health().getStatus(), Status.UP::equals);
                    });
        }
    }

    /** The Redis server's time, by which the engine's delays come due. */
    private static long serverMillis(StatefulRedisConnection<String, String> connection) {
        List<String> time = connection.sync().time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    /** Redis's count of writes since the last save: every command that changed the data set. */
    private static long changes(StatefulRedisConnection<String, String> connection) {
        Matcher matcher = CHANGES.matcher(connection.sync().info("persistence"));
        assertThat(matcher.find()).isTrue();
        return Long.parseLong(matcher.group(1));
    }
}
