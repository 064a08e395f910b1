package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.limit.WhenUnavailable;
import dev.sluice.redis.RedisSluice;
import io.lettuce.core.RedisClient;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
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
 * <p>The engine connects when it is made. If Redis cannot be reached then, and every declared limiter has an
 * answer for an unavailable Redis ({@code when-unavailable: fail-open} or {@code fall-back:SHARE}), the engine is
 * made anyway and connects in the background: the application starts, its limiters answer by their policy, its
 * queues open (and their workers start) once Redis answers, and the health indicator is DOWN until then. The log
 * says so in one line. If a declared limiter is fail-closed, the default, the application does not start: {@link
 * RedisUnreachableException} names the Redis, the cause and those limiters.
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
     * The engine, connected; or, while Redis cannot be reached and every declared limiter can answer without it,
     * connecting in the background.
     *
     * @param url {@code sluice.redis.url}, or null for the application's client
     * @throws RedisUnreachableException if Redis cannot be reached and a declared limiter is fail-closed
     * @throws SluicePropertyException if {@code url} is malformed
     */
    private static Sluice create(RedisSluice.Builder builder, String url, SluiceProperties properties) {
        Sluice sluice;
        try {
            sluice = Declarations.core("sluice.redis.url", url, builder::build);
        } catch (SluiceException e) {
            RedisUnreachableException unreachable = RedisUnreachableException.of(url, e, failClosed(properties));
            if (!unreachable.needingRedis().isEmpty()) {
                throw unreachable;
            }
            sluice = builder.connectInBackground(true).build();
            LOG.info(
                    "Sluice started without Redis at {} (the engine's warning names the cause). Until it answers,"
                            + " {}, declared queues stay closed and their workers wait, and health is DOWN",
                    unreachable.redis(),
                    properties.limiters().isEmpty()
                            ? "no limiter is declared"
                            : "the declared limiters answer by their when-unavailable policy");
        }
        LOG.info("Sluice engine: {}", sluice);
        return sluice;
    }

    /**
     * The declared limiters that deny while Redis is unavailable (fail-closed, the default), by their property
     * paths: with one of them, the application does not start while Redis is down.
     */
    static List<String> failClosed(SluiceProperties properties) {
        List<String> failClosed = new ArrayList<>();
        new TreeMap<>(properties.limiters()).forEach((name, limiter) -> {
            String property = "sluice.limiters." + name + ".when-unavailable";
            WhenUnavailable when = limiter.whenUnavailable() == null
                    ? WhenUnavailable.failClosed()
                    : Declarations.whenUnavailable(property, limiter.whenUnavailable());
            if (when.action() == WhenUnavailable.Action.DENY) {
                failClosed.add("sluice.limiters." + name + " (fail-closed)");
            }
        });
        return failClosed;
    }
}
