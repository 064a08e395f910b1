package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.time.SluiceClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

/**
 * The engine ({@link Sluice}: Redis when {@code sluice.redis.url} is set or the application has a Lettuce {@code
 * RedisClient} bean, in memory otherwise, on the application's {@link SluiceClock} bean if it has one, such as a
 * {@code ManualClock} in tests), the {@link SluiceRegistry} of the limiters and queues declared in
 * properties and by {@link SluiceWorker} processors, and the workers of declared queues and of {@code SluiceWorker}
 * processors, which start with the context and close with the deadline {@code sluice.shutdown.deadline} when it
 * stops. Each bean backs off when the application defines its own: a
 * {@code Sluice} or {@code SluiceRegistry} bean, or a bean named {@code sluiceWorkers}.
 */
@AutoConfiguration
@EnableConfigurationProperties(SluiceProperties.class)
public final class SluiceAutoConfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(SluiceAutoConfiguration.class);

    SluiceAutoConfiguration() {}

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    Sluice sluice(
            SluiceProperties properties, ConfigurableListableBeanFactory beans, ObjectProvider<SluiceClock> clock) {
        SluiceProperties.Redis redis = properties.redis();
        boolean redisPresent = ClassUtils.isPresent("dev.sluice.redis.RedisSluice", beans.getBeanClassLoader());
        if (redis.url() != null && !redisPresent) {
            throw SluicePropertyException.withAction(
                    "sluice.redis.url",
                    redis.url(),
                    "the Redis engine is not on the classpath",
                    "Add dev.sluice:sluice-redis to the application's dependencies, or remove 'sluice.redis.url' to"
                            + " run on the in-memory engine.");
        }
        boolean onRedis =
                redisPresent && (redis.url() != null || (redis.enabled() && RedisEngineConfiguration.hasClient(beans)));
        Sluice sluice = onRedis
                ? RedisEngineConfiguration.create(properties, beans)
                : Sluice.inMemory(clock.getIfUnique(SluiceClock::system));
        LOG.info("Sluice engine: {}", sluice);
        return sluice;
    }

    @Bean
    @ConditionalOnMissingBean
    SluiceRegistry sluiceRegistry(Sluice sluice, SluiceProperties properties, ConfigurableListableBeanFactory beans) {
        return SluiceRegistry.open(sluice, properties, AnnotatedWorkers.payloads(beans, properties));
    }

    @Bean
    @ConditionalOnMissingBean(name = "sluiceWorkers")
    SluiceWorkers sluiceWorkers(
            SluiceRegistry registry, SluiceProperties properties, ConfigurableListableBeanFactory beans) {
        return SluiceWorkers.plan(registry, properties, beans);
    }
}
