package dev.sluice.spring;

import dev.sluice.Sluice;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The engine ({@link Sluice}), the {@link SluiceRegistry} of the limiters and queues declared in properties and by
 * {@link SluiceWorker} processors, and the workers of declared queues and of {@code SluiceWorker} processors,
 * which start with the context and close with the deadline {@code sluice.shutdown.deadline} when it stops.
 *
 * <p>The engine is the first of these whose conditions hold: Redis when {@code sluice-redis} is on the classpath
 * and {@code sluice.redis.url} is set, or the application has a single Lettuce {@code RedisClient} bean and {@code
 * sluice.redis.enabled} is not false ({@link RedisEngineConfiguration}, which also says how the application starts
 * while Redis is down); in memory otherwise ({@link EngineConfigurations}), on the application's {@link dev.sluice.time.SluiceClock} bean if it has one, such as a
 * {@code ManualClock} in tests. With {@code sluice.redis.url} set and {@code sluice-redis} absent, the application
 * does not start, and the message says to add it. Each bean backs off when the application defines its own: a
 * {@code Sluice} or {@code SluiceRegistry} bean, or a bean named {@code sluiceWorkers}.
 */
@AutoConfiguration
@EnableConfigurationProperties(SluiceProperties.class)
@Import({
    EngineConfigurations.RedisEngineMissing.class,
    RedisEngineConfiguration.OnUrl.class,
    RedisEngineConfiguration.OnClient.class,
    EngineConfigurations.InMemoryEngine.class
})
public final class SluiceAutoConfiguration {
    SluiceAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    SluiceRegistry sluiceRegistry(Sluice sluice, SluiceProperties properties, ConfigurableListableBeanFactory beans) {
        return SluiceRegistry.open(
                sluice, properties, AnnotatedWorkers.payloads(beans, properties), EngineReach.of(sluice));
    }

    @Bean
    @ConditionalOnMissingBean(name = "sluiceWorkers")
    SluiceWorkers sluiceWorkers(
            SluiceProperties properties, SluiceRegistry registry, ConfigurableListableBeanFactory beans) {
        return SluiceWorkers.plan(registry, properties, beans);
    }
}
