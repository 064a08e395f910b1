package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.redis.RedisSluice;
import io.lettuce.core.RedisClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The configurations of the Redis engine, each on {@code sluice-redis} being on the classpath, imported by {@link
 * SluiceAutoConfiguration} in this order: on its own connection when {@code sluice.redis.url} is set ({@link
 * OnUrl}), otherwise on the application's one Lettuce {@code RedisClient} bean (the single candidate: the only one,
 * or the primary one), unless {@code sluice.redis.enabled} is false ({@link OnClient}). The engine closes only the connection it opened; the application's client stays the application's.
 *
 * <p>The engine connects when it is made: while Redis cannot be reached, the application does not start.
 */
abstract class RedisEngineConfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(SluiceAutoConfiguration.class);
    private static final String REDIS_ENGINE = "dev.sluice.redis.RedisSluice";

    private RedisEngineConfiguration() {}

    /** The engine on its own connection to {@code sluice.redis.url}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = REDIS_ENGINE)
    @ConditionalOnProperty("sluice.redis.url")
    static class OnUrl {
        OnUrl() {}

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        Sluice sluice(SluiceProperties properties) {
            String url = properties.redis().url();
            RedisSluice.Builder builder = builder(properties);
            Declarations.core("sluice.redis.url", url, () -> builder.url(url));
            return create(builder, url, properties);
        }
    }

    /** The engine on the application's Lettuce client. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = REDIS_ENGINE)
    @ConditionalOnBooleanProperty(name = "sluice.redis.enabled", matchIfMissing = true)
    @ConditionalOnSingleCandidate(type = "io.lettuce.core.RedisClient")
    static class OnClient {
        OnClient() {}

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        Sluice sluice(SluiceProperties properties, RedisClient client) {
            return create(builder(properties).client(client), null, properties);
        }
    }

    private static RedisSluice.Builder builder(SluiceProperties properties) {
        SluiceProperties.Redis redis = properties.redis();
        RedisSluice.Builder builder = RedisSluice.builder();
        Declarations.core("sluice.redis.key-prefix", redis.keyPrefix(), () -> builder.keyPrefix(redis.keyPrefix()));
        Declarations.core(
                "sluice.redis.command-timeout",
                redis.commandTimeout(),
                () -> builder.commandTimeout(redis.commandTimeout()));
        return builder;
    }

    /**
     * The engine, connected.
     *
     * @param url {@code sluice.redis.url}, or null for the application's client
     * @throws RedisUnreachableException if Redis cannot be reached, naming what needs it
     * @throws SluicePropertyException if {@code url} is malformed
     */
    private static Sluice create(RedisSluice.Builder builder, String url, SluiceProperties properties) {
        Sluice sluice;
        try {
            sluice = Declarations.core("sluice.redis.url", url, builder::build);
        } catch (SluiceException e) {
            throw RedisUnreachableException.of(url, e, properties);
        }
        LOG.info("Sluice engine: {}", sluice);
        return sluice;
    }
}
