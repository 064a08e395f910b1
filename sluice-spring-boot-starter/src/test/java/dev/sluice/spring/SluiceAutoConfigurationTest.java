package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.http.IngressLimiter;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.micrometer.SluiceMetrics;
import dev.sluice.queue.Processor;
import dev.sluice.queue.Result;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Each bean appears under its condition and backs off when the application defines its own. */
class SluiceAutoConfigurationTest {
    private static final AutoConfigurations ALL = AutoConfigurations.of(
            SluiceAutoConfiguration.class,
            SluiceHttpAutoConfiguration.class,
            SluiceMetricsAutoConfiguration.class,
            SluiceHealthAutoConfiguration.class,
            SluiceAnnotationsAutoConfiguration.class,
            SluiceEndpointAutoConfiguration.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(ALL);
    private final WebApplicationContextRunner web = new WebApplicationContextRunner().withConfiguration(ALL);

    @Test
    void makesAnInMemoryEngineAndAnEmptyRegistryWithNoProperties() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(Sluice.class).hasSingleBean(SluiceRegistry.class);
            assertThat(context.getBean(Sluice.class).toString()).startsWith("Sluice.inMemory");
            assertThat(context.getBean(SluiceRegistry.class).limiters()).isEmpty();
            assertThat(context).doesNotHaveBean(IngressLimiter.class).doesNotHaveBean(SluiceMetrics.class);
            assertThat(context).hasBean("sluiceHealthIndicator");
        });
    }

    @Test
    void declaresAConcurrencyLimiterForAConcurrencyPolicyAndARateLimiterForTheOthers() {
        runner.withPropertyValues(
                        "sluice.limiters.api.policy=fixed-window",
                        "sluice.limiters.api.limit=2",
                        "sluice.limiters.api.window=1h",
                        "sluice.limiters.pool.policy=concurrency",
                        "sluice.limiters.pool.limit=2",
                        "sluice.limiters.pool.lease-timeout=30s")
                .run(context -> {
                    SluiceRegistry registry = context.getBean(SluiceRegistry.class);
                    assertThat(registry.limiter("api")).isInstanceOf(RateLimiter.class);
                    ConcurrencyLimiter pool = registry.limiter("pool", ConcurrencyLimiter.class);
                    assertThat(pool.policy()).isEqualTo(ConcurrencyLimit.of(2, Duration.ofSeconds(30)));
                    assertThat(registry.limiter("api", RateLimiter.class).tryConsume("k"))
                            .isTrue();
                    assertThat(pool.tryAcquire("k").lease().release()).isTrue();
                    assertThatThrownBy(() -> registry.limiter("pool", RateLimiter.class))
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("'pool'")
                            .hasMessageContaining("is a ConcurrencyLimiter")
                            .hasMessageContaining("ConcurrencyLimiter.class");
                });
    }

    @Test
    void usesTheApplicationsEngine() {
        Sluice own = Sluice.inMemory();
        runner.withBean(Sluice.class, () -> own)
                .run(context -> assertThat(context.getBean(Sluice.class)).isSameAs(own));
        own.close();
    }

    @Test
    void usesTheApplicationsRegistry() {
        SluiceRegistry own = new SluiceRegistry(Map.of(), Map.of());
        runner.withBean(SluiceRegistry.class, () -> own)
                .withPropertyValues("sluice.limiters.api.policy=leaky") // not read: the registry is the application's
                .run(context ->
                        assertThat(context.getBean(SluiceRegistry.class)).isSameAs(own));
    }

    @Test
    void runsOnTheApplicationsLettuceClientAndLeavesItOpen() {
        RedisClient client = RedisClient.create(RedisServer.shared().uri());
        try {
            runner.withBean(RedisClient.class, () -> client)
                    .withPropertyValues("sluice.redis.key-prefix=client-test")
                    .run(context -> {
                        Sluice sluice = context.getBean(Sluice.class);
                        assertThat(sluice.toString()).startsWith("RedisSluice[").contains("client-test");
                        sluice.close();
                        try (var connection = client.connect()) {
                            assertThat(connection.sync().ping()).isEqualTo("PONG");
                        }
                    });
        } finally {
            client.shutdown();
        }
    }

    @Test
    void staysInMemoryBesideALettuceClientWhenRedisIsOff() {
        RedisClient client = RedisClient.create(RedisServer.shared().uri());
        try {
            runner.withBean(RedisClient.class, () -> client)
                    .withPropertyValues("sluice.redis.enabled=false")
                    .run(context ->
                            assertThat(context.getBean(Sluice.class).toString()).startsWith("Sluice.inMemory"));
        } finally {
            client.shutdown();
        }
    }

    @Test
    void prefersTheUrlToTheApplicationsLettuceClient() {
        RedisClient elsewhere = RedisClient.create("redis://127.0.0.1:1");
        try {
            runner.withBean(RedisClient.class, () -> elsewhere)
                    .withPropertyValues(
                            "sluice.redis.url=" + RedisServer.shared().uri())
                    .run(context -> assertThat(context.getBean(Sluice.class).toString())
                            .startsWith("RedisSluice[" + RedisServer.shared().uri()));
        } finally {
            elsewhere.shutdown();
        }
    }

    @Test
    void staysInMemoryBesideTwoLettuceClientsNeitherOfThemPrimary() {
        RedisClient one = RedisClient.create(RedisServer.shared().uri());
        RedisClient two = RedisClient.create(RedisServer.shared().uri());
        try {
            runner.withBean("one", RedisClient.class, () -> one)
                    .withBean("two", RedisClient.class, () -> two)
                    .run(context ->
                            assertThat(context.getBean(Sluice.class).toString()).startsWith("Sluice.inMemory"));
        } finally {
            one.shutdown();
            two.shutdown();
        }
    }

    @Test
    void registersTheFilterInAServletApplicationOnly() {
        web.run(context ->
                assertThat(context).hasSingleBean(IngressLimiter.class).hasBean("sluiceRateLimitFilter"));
        web.withPropertyValues("sluice.http.enabled=false")
                .run(context -> assertThat(context)
                        .doesNotHaveBean(IngressLimiter.class)
                        .doesNotHaveBean("sluiceRateLimitFilter"));
    }

    @Test
    void answersRateLimitedExceptionsInAServletApplicationOnly() {
        web.run(context -> assertThat(context).hasSingleBean(RateLimitedExceptionResolver.class));
        runner.run(context -> assertThat(context)
                .hasSingleBean(RateLimitedPostProcessor.class)
                .doesNotHaveBean(RateLimitedExceptionResolver.class));
        web.withPropertyValues("sluice.annotations.enabled=false")
                .run(context -> assertThat(context)
                        .doesNotHaveBean(RateLimitedPostProcessor.class)
                        .doesNotHaveBean(RateLimitedExceptionResolver.class));
    }

    @Test
    void makesTheSluiceEndpointOnlyWhenItIsExposed() {
        web.run(context -> assertThat(context).doesNotHaveBean(SluiceEndpoint.class));
        web.withPropertyValues("management.endpoints.web.exposure.include=sluice")
                .run(context -> assertThat(context).hasSingleBean(SluiceEndpoint.class));
    }

    @Test
    void usesTheApplicationsIngressLimiterAndFilterRegistration() {
        web.withUserConfiguration(OwnIngress.class).run(context -> {
            assertThat(context.getBean(IngressLimiter.class)).isSameAs(context.getBean("ownIngress"));
            assertThat(context.getBean("sluiceRateLimitFilter", FilterRegistrationBean.class)
                            .getOrder())
                    .isEqualTo(42);
        });
    }

    @Test
    void bindsMetricsOnlyWhenAMeterRegistryExists() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> assertThat(context).hasSingleBean(SluiceMetrics.class));
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("sluice.metrics.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(SluiceMetrics.class));
    }

    @Test
    void usesTheApplicationsMetricsBinding() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean("ownMetrics", SluiceMetrics.class, () -> SluiceMetrics.of(Sluice.inMemory()))
                .run(context ->
                        assertThat(context.getBean(SluiceMetrics.class)).isSameAs(context.getBean("ownMetrics")));
    }

    @Test
    void usesTheApplicationsHealthIndicatorOrNoneWhenTurnedOff() {
        runner.withBean(
                        "sluiceHealthIndicator",
                        HealthIndicator.class,
                        () -> () -> Health.unknown().build())
                .run(context -> assertThat(context.getBean("sluiceHealthIndicator", HealthIndicator.class)
                                .health()
                                .getStatus())
                        .isEqualTo(Status.UNKNOWN));
        runner.withPropertyValues("management.health.sluice.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("sluiceHealthIndicator"));
    }

    @Test
    void healthIsDownWithTheCauseOnceTheEngineIsClosed() {
        runner.withPropertyValues("sluice.queues.mail.concurrency=1").run(context -> {
            HealthIndicator health = context.getBean("sluiceHealthIndicator", HealthIndicator.class);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            context.getBean(Sluice.class).close();
            Health down = health.health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails().get("error").toString()).contains("IllegalStateException");
        });
    }

    @Test
    void closesWorkersWithTheDeadlineWhenTheContextCloses() {
        runner.withUserConfiguration(BlockingProcessor.class)
                .withPropertyValues("sluice.queues.slow.worker.processor=blocking", "sluice.shutdown.deadline=100ms")
                .run(context -> {
                    context.getBean(SluiceRegistry.class).queue("slow").add("wait", "x");
                    assertThat(BlockingProcessor.STARTED.await(10, TimeUnit.SECONDS))
                            .isTrue();
                    SluiceWorkers workers = context.getBean(SluiceWorkers.class);
                    assertThat(workers.running()).hasSize(1);
                    long start = System.nanoTime();
                    context.close();
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
                    assertThat(BlockingProcessor.INTERRUPTED.await(10, TimeUnit.SECONDS))
                            .isTrue();
                    assertThat(workers.isRunning()).isFalse();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnIngress {
        @Bean
        IngressLimiter ownIngress(Sluice sluice) {
            return IngressLimiter.builder(sluice).build();
        }

        @Bean
        FilterRegistrationBean<?> sluiceRateLimitFilter() {
            FilterRegistrationBean<?> registration = new FilterRegistrationBean<>();
            registration.setOrder(42);
            return registration;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BlockingProcessor {
        static final CountDownLatch STARTED = new CountDownLatch(1);
        static final CountDownLatch INTERRUPTED = new CountDownLatch(1);

        @Bean
        Processor<String> blocking() {
            return job -> {
                STARTED.countDown();
                try {
                    Thread.sleep(Duration.ofMinutes(5));
                } catch (InterruptedException e) {
                    INTERRUPTED.countDown();
                    throw e;
                }
                return Result.done();
            };
        }
    }
}
