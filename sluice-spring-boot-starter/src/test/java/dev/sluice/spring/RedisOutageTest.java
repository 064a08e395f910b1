package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.limit.Decision;
import dev.sluice.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** Redis down when the application starts, and down for a while after: a server of its own, killed and restarted. */
@ExtendWith(OutputCaptureExtension.class)
class RedisOutageTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(SluiceAutoConfiguration.class, SluiceHealthAutoConfiguration.class));

    private RedisServer redis;

    @BeforeEach
    void startRedis() {
        redis = RedisServer.start();
    }

    @AfterEach
    void closeRedis() {
        redis.close();
    }

    private String urlWithPassword() {
        return "redis://:s3cret@" + redis.host() + ":" + redis.port();
    }

    private FailureAnalysis analysisOf(String... properties) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        runner.withPropertyValues(properties).run(context -> failure.set(context.getStartupFailure()));
        assertThat(failure.get()).as("startup failure").isNotNull();
        FailureAnalysis analysis = new SluiceFailureAnalyzer().analyze(failure.get());
        assertThat(analysis).as("analysis of %s", failure.get()).isNotNull();
        return analysis;
    }

    @Test
    void refusesToStartWhileRedisIsDownNamingTheUrlWithoutItsPasswordAndWhatNeedsRedis() {
        redis.kill();
        String shown = "redis://:****@127.0.0.1:" + redis.port();

        FailureAnalysis analysis = analysisOf(
                "sluice.redis.url=" + urlWithPassword(),
                "sluice.queues.mail.concurrency=1",
                "sluice.limiters.strict.policy=fixed-window",
                "sluice.limiters.strict.limit=5",
                "sluice.limiters.strict.window=1s",
                "sluice.limiters.lenient.policy=fixed-window",
                "sluice.limiters.lenient.limit=5",
                "sluice.limiters.lenient.window=1s",
                "sluice.limiters.lenient.when-unavailable=fail-open");

        assertThat(analysis.getDescription())
                .startsWith("Sluice cannot use Redis at " + shown + ": cannot connect to Redis")
                .contains("Connection refused")
                .endsWith(". These declarations cannot work without Redis: sluice.queues.mail,"
                        + " sluice.limiters.strict (fail-closed).")
                .doesNotContain("s3cret");
        assertThat(analysis.getAction())
                .isEqualTo("Start Redis at " + shown + ", or correct sluice.redis.url. To start while Redis is down,"
                        + " declare no queues and give each limiter 'when-unavailable: fail-open' or"
                        + " 'when-unavailable: fall-back:SHARE'.");
    }

    @Test
    void stopsSpringApplicationWithTheAnalysisInsteadOfAStackTrace(CapturedOutput output) {
        redis.kill();
        SpringApplication application = new SpringApplication(SluiceFailureAnalyzerTest.Empty.class);
        application.setWebApplicationType(WebApplicationType.NONE);

        assertThatThrownBy(() -> application
                        .run(
                                "--spring.config.name=none",
                                "--sluice.redis.url=" + urlWithPassword(),
                                "--sluice.queues.mail.concurrency=1")
                        .close())
                .hasStackTraceContaining(RedisUnreachableException.class.getName());
        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("Sluice cannot use Redis at redis://:****@127.0.0.1:" + redis.port())
                .contains("These declarations cannot work without Redis: sluice.queues.mail.")
                .doesNotContain("s3cret")
                .doesNotContain("Caused by:");
    }

    /**
     * Pins what is missing until the Redis engine can be made while Redis is down: with every limiter able to
     * answer without Redis, the application still cannot start, and the message says why.
     */
    @Test
    void saysEveryLimitCouldAnswerWithoutRedisButTheEngineConnectsWhenMade() {
        redis.kill();

        FailureAnalysis analysis = analysisOf(
                "sluice.redis.url=" + redis.uri(),
                "sluice.limiters.lenient.policy=fixed-window",
                "sluice.limiters.lenient.limit=5",
                "sluice.limiters.lenient.window=1s",
                "sluice.limiters.lenient.when-unavailable=fall-back:0.5");

        assertThat(analysis.getDescription())
                .startsWith("Sluice cannot use Redis at " + redis.uri() + ": ")
                .endsWith(". Every declared limiter has an answer for an unavailable Redis, but the Redis engine"
                        + " connects when it is made, so the application cannot start without Redis.");
        assertThat(analysis.getAction()).isEqualTo("Start Redis at " + redis.uri() + ", or correct sluice.redis.url.");
    }

    @Test
    void healthIsDownWhileRedisIsDownAndUpAgainOnceItIsBackWhileFailOpenLimitersLetRequestsThrough() {
        runner.withPropertyValues(
                        "sluice.redis.url=" + redis.uri(),
                        "sluice.limiters.lenient.policy=fixed-window",
                        "sluice.limiters.lenient.limit=5",
                        "sluice.limiters.lenient.window=1h",
                        "sluice.limiters.lenient.when-unavailable=fail-open")
                .run(context -> {
                    HealthIndicator health = context.getBean("sluiceHealthIndicator", HealthIndicator.class);
                    SluiceRegistry registry = context.getBean(SluiceRegistry.class);
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);

                    redis.kill();

                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> health.health().getStatus(), Status.DOWN::equals);
                    assertThat(registry.limiter("lenient").tryAcquire("k").basis())
                            .isEqualTo(Decision.Basis.UNAVAILABLE_ALLOWED);

                    redis.restart();

                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> health.health().getStatus(), Status.UP::equals);
                    await().atMost(Duration.ofSeconds(20))
                            .until(
                                    () -> registry.limiter("lenient")
                                            .tryAcquire("k")
                                            .basis(),
                                    Decision.Basis.LIMIT::equals);
                });
    }
}
