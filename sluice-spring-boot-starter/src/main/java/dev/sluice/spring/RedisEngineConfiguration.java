package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.redis.RedisSluice;
import io.lettuce.core.RedisClient;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * The Redis engine, loaded only when {@code sluice-redis} is on the classpath: on its own connection when {@code
 * sluice.redis.url} is set, otherwise on the application's Lettuce {@code RedisClient} bean. The engine closes
 * only the connection it opened; the application's client stays the application's. The engine connects when it
 * is made: while Redis cannot be reached, the application does not start.
 */
final class RedisEngineConfiguration {
    private RedisEngineConfiguration() {}

    /** Whether the application has exactly one Lettuce {@code RedisClient} bean. */
    static boolean hasClient(ListableBeanFactory beans) {
        return beans.getBeanNamesForType(RedisClient.class, false, false).length == 1;
    }

    /**
     * The engine, connected.
     *
     * @throws RedisUnreachableException if Redis cannot be reached, naming what needs it
     */
    static Sluice create(SluiceProperties properties, ListableBeanFactory beans) {
        SluiceProperties.Redis redis = properties.redis();
        try {
            return build(redis, beans);
        } catch (SluiceException e) {
            throw RedisUnreachableException.of(redis.url(), e, properties);
        }
    }

    private static Sluice build(SluiceProperties.Redis redis, ListableBeanFactory beans) {
        RedisSluice.Builder builder = RedisSluice.builder();
        Declarations.core("sluice.redis.key-prefix", redis.keyPrefix(), () -> builder.keyPrefix(redis.keyPrefix()));
        Declarations.core(
                "sluice.redis.command-timeout",
                redis.commandTimeout(),
                () -> builder.commandTimeout(redis.commandTimeout()));
        if (redis.url() != null) {
            return Declarations.core(
                    "sluice.redis.url",
                    redis.url(),
                    () -> builder.url(redis.url()).build());
        }
        return builder.client(beans.getBean(RedisClient.class)).build();
    }
}
