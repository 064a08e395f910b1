package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.time.SluiceClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The engines other than Redis's, each imported by {@link SluiceAutoConfiguration} in its place: the refusal of a
 * {@code sluice.redis.url} without {@code sluice-redis} first, the in-memory engine last, when no other engine was
 * made.
 */
abstract class EngineConfigurations {
    private static final Logger LOG = LoggerFactory.getLogger(SluiceAutoConfiguration.class);

    private EngineConfigurations() {}

    /** {@code sluice.redis.url} is set, but the Redis engine is not on the classpath: the engine cannot be made. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("dev.sluice.redis.RedisSluice")
    @ConditionalOnProperty("sluice.redis.url")
    static class RedisEngineMissing {
        RedisEngineMissing() {}

        @Bean
        @ConditionalOnMissingBean
        Sluice sluice(SluiceProperties properties) {
            throw SluicePropertyException.withAction(
                    "sluice.redis.url",
                    properties.redis().url(),
                    "the Redis engine is not on the classpath",
                    "Add dev.sluice:sluice-redis to the application's dependencies, or remove 'sluice.redis.url' to"
                            + " run on the in-memory engine.");
        }
    }

    /** The in-memory engine, when no other one is defined. */
    @Configuration(proxyBeanMethods = false)
    static class InMemoryEngine {
        InMemoryEngine() {}

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        Sluice sluice(ObjectProvider<SluiceClock> clock) {
            Sluice sluice = Sluice.inMemory(clock.getIfUnique(SluiceClock::system));
            LOG.info("Sluice engine: {}", sluice);
            return sluice;
        }
    }
}
