package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.limit.Decision;
import dev.sluice.limit.RateLimiter;
import dev.sluice.queue.Processor;
import dev.sluice.queue.Result;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Health;
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

    private static final String[] STRICT = {
        "sluice.limiters.strict.policy=fixed-window",
        "sluice.limiters.strict.limit=5",
        "sluice.limiters.strict.window=1s"
    };

    @Test
    void refusesToStartWhileRedisIsDownWithAFailClosedLimiterNamingTheUrlWithoutItsPasswordAndThatLimiter() {
        redis.kill();
        String shown = "redis://******@127.0.0.1:" + redis.port();

        FailureAnalysis analysis = analysisOf(
                "sluice.redis.url=" + urlWithPassword(),
                "sluice.queues.mail.concurrency=1",
                STRICT[0],
                STRICT[1],
                STRICT[2],
                "sluice.limiters.lenient.policy=fixed-window",
                "sluice.limiters.lenient.limit=5",
                "sluice.limiters.lenient.window=1s",
                "sluice.limiters.lenient.when-unavailable=fail-open");

        assertThat(analysis.getDescription())
                .startsWith("Sluice cannot use Redis at " + shown + ": cannot connect to Redis")
                .contains("Connection refused")
                .endsWith(". These declarations cannot work without Redis: sluice.limiters.strict (fail-closed).")
                .doesNotContain("s3cret");
        assertThat(analysis.getAction())
                .isEqualTo("Start Redis at " + shown + ", or correct sluice.redis.url. To start while Redis is down,"
                        + " give each limiter 'when-unavailable: fail-open' or 'when-unavailable: fall-back:SHARE'.");
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
                                "--" + STRICT[0],
                                "--" + STRICT[1],
                                "--" + STRICT[2])
                        .close())
                .hasStackTraceContaining(RedisUnreachableException.class.getName());
        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("Sluice cannot use Redis at redis://******@127.0.0.1:" + redis.port())
                .contains("These declarations cannot work without Redis: sluice.limiters.strict (fail-closed).")
                .doesNotContain("s3cret")
                .doesNotContain("Caused by:");
    }

    /**
     * Issue 22: with every limiter able to answer without Redis, the application starts while Redis is down, its
     * limiters answer by their policy and health is DOWN naming the Redis and the cause; once Redis is up on the
     * same port, health is UP, the declared queue opens and its worker runs its jobs.
     */
    @Test
    void startsWhileRedisIsDownWhenEveryLimiterCanAnswerWithoutItAndRecoversOnceRedisIsUp(CapturedOutput output) {
        redis.kill();
        List<String> mailed = new CopyOnWriteArrayList<>();
        Processor<String> mail = job -> {
            mailed.add(job.payload());
            return Result.done();
        };
        runner.withBean("mailProcessor", Processor.class, () -> mail)
                .withPropertyValues(
                        "sluice.redis.url=" + redis.uri(),
                        "sluice.limiters.lenient.policy=fixed-window",
                        "sluice.limiters.lenient.limit=5",
                        "sluice.limiters.lenient.window=1h",
                        "sluice.limiters.lenient.when-unavailable=fail-open",
                        "sluice.limiters.share.policy=fixed-window",
                        "sluice.limiters.share.limit=4",
                        "sluice.limiters.share.window=1h",
                        "sluice.limiters.share.when-unavailable=fall-back:0.5",
                        "sluice.queues.mail.worker.processor=mailProcessor")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    SluiceRegistry registry = context.getBean(SluiceRegistry.class);
                    HealthIndicator health = context.getBean("sluiceHealthIndicator", HealthIndicator.class);

                    assertThat(registry.limiter("lenient").tryAcquire("k").basis())
                            .isEqualTo(Decision.Basis.UNAVAILABLE_ALLOWED);
                    RateLimiter share = registry.limiter("share", RateLimiter.class);
                    assertThat(share.tryAcquire("k").basis()).isEqualTo(Decision.Basis.FALLBACK);
                    assertThat(share.tryAcquire("k").allowed()).isTrue();
                    assertThat(share.tryAcquire("k").allowed())
                            .as("half of 4 in this process")
                            .isFalse();
                    assertThatThrownBy(() -> registry.queue("mail"))
                            .isInstanceOf(SluiceException.class)
                            .hasMessage("queue 'mail' is not open yet: the engine has not reached Redis since the"
                                    + " application started, and opens it once Redis answers");
                    SluiceEndpoint endpoint = new SluiceEndpoint(context.getBean(Sluice.class), registry);
                    assertThat(endpoint.state().get("queues"))
                            .asInstanceOf(InstanceOfAssertFactories.MAP)
                            .extractingByKey("mail")
                            .isEqualTo(Map.of(
                                    "open",
                                    false,
                                    "reason",
                                    "the engine has not reached Redis since the application started"));
                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> health.health().getDetails().containsKey("error"));
                    Health down = health.health();
                    assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(down.getDetails().get("engine").toString()).contains(redis.uri());
                    assertThat(down.getDetails().get("error").toString())
                            .startsWith("cannot connect to Redis (" + redis.uri() + ")");
                    assertThat(output.getOut().lines().filter(line -> line.contains("cannot connect to Redis")))
                            .as("the cause is logged once, as a warning")
                            .singleElement()
                            .asString()
                            .contains("WARN")
                            .contains("cannot connect to Redis (" + redis.uri() + ")");
                    assertThat(output.getOut().lines().filter(line -> line.contains("Sluice started without Redis")))
                            .singleElement()
                            .asString()
                            .contains("Sluice started without Redis at " + redis.uri() + " (the engine's warning")
                            .contains("the declared limiters answer by their when-unavailable policy, declared"
                                    + " queues stay closed and their workers wait, and health is DOWN");

                    redis.restart();

                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> health.health().getStatus(), Status.UP::equals);
                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> registry.queues().containsKey("mail"));
                    assertThat(endpoint.state().get("queues"))
                            .asInstanceOf(InstanceOfAssertFactories.MAP)
                            .extractingByKey("mail")
                            .asInstanceOf(InstanceOfAssertFactories.MAP)
                            .containsEntry("open", true)
                            .containsKey("jobs");
                    registry.queue("mail").add("welcome", "ada");
                    await().atMost(Duration.ofSeconds(20)).until(() -> mailed.contains("ada"));
                    assertThat(registry.limiter("lenient").tryAcquire("k").basis())
                            .isEqualTo(Decision.Basis.LIMIT);
                    assertThat(output).contains("Sluice reached Redis: queues mail are open, and their workers start");
                });
        assertThat(output).doesNotContain("Caused by:").doesNotContain("\tat ");
    }

    @Test
    void startsWhileRedisIsDownOnTheApplicationsLettuceClientAndIsUpOnceRedisIs() {
        redis.kill();
        RedisClient client = RedisClient.create(redis.uri());
        try {
            runner.withBean(RedisClient.class, () -> client)
                    .withPropertyValues(
                            "sluice.limiters.lenient.policy=fixed-window",
                            "sluice.limiters.lenient.limit=5",
                            "sluice.limiters.lenient.window=1h",
                            "sluice.limiters.lenient.when-unavailable=fail-open")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        HealthIndicator health = context.getBean("sluiceHealthIndicator", HealthIndicator.class);
                        assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);

                        redis.restart();

                        await().atMost(Duration.ofSeconds(20))
                                .until(() -> health.health().getStatus(), Status.UP::equals);
                    });
        } finally {
            client.shutdown();
        }
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
