package dev.sluice.bench;

import com.google.common.util.concurrent.RateLimiter;
import dev.sluice.Sluice;
import dev.sluice.limit.KeyLimiter;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.TokenBucket;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * One library under test, configured to one {@link Regime}, answering "may one permit for {@code key} go now?".
 *
 * <p>Only one implementation is loaded per JMH fork (each trial runs in its own JVM), so the call site in the
 * benchmark method stays monomorphic and inlines.
 *
 * <p>For the one-key scenarios Sluice holds the key with {@code forKey} (and {@code sluice-lookup} looks it up in
 * the limiter's table on every call); for the many-key scenarios it looks each key up. The peers have no keys of
 * their own: for the one-key scenarios they are used bare (one global limiter, as a user with a single limit would write it); for the
 * many-key scenarios each keeps one limiter per key in a {@code ConcurrentHashMap}, read with {@code get} and
 * filled with {@code computeIfAbsent} on a miss (every key is pre-populated, so the benchmark only reads). What
 * can be shared between keys is shared (Bucket4j's Bandwidth, Resilience4j's RateLimiterConfig), as a careful
 * user would do; Guava's RateLimiter has nothing to share.
 */
abstract class Contender {
    static final String SLUICE = "sluice";
    /** Sluice on one key, looking the key up on every call instead of holding a {@code KeyLimiter}. */
    static final String SLUICE_LOOKUP = "sluice-lookup";

    static final String BUCKET4J = "bucket4j";
    static final String RESILIENCE4J = "resilience4j";
    static final String GUAVA = "guava";

    /** Whether one permit for {@code key} is granted now. */
    abstract boolean tryAcquire(String key);

    /** Holds the state of every key in {@code keys}, each used once. */
    void populate(String[] keys) {
        for (String key : keys) {
            tryAcquire(key);
        }
    }

    /** What {@code library} looks like when callers use one key only. */
    static Contender oneKey(String library, Regime regime) {
        return switch (library) {
            case SLUICE -> new SluiceOne(regime);
            case SLUICE_LOOKUP -> new SluiceContender(regime);
            case BUCKET4J -> new Bucket4jOne(bucket4j(bandwidth(regime)));
            case RESILIENCE4J -> new Resilience4jOne(resilience4j("bench", resilience4jConfig(regime)));
            case GUAVA -> new GuavaOne(guava(regime));
            default -> throw new IllegalArgumentException("unknown library " + library);
        };
    }

    /** What {@code library} looks like with one limiter per key. */
    static Contender keyed(String library, Regime regime) {
        return switch (library) {
            case SLUICE -> new SluiceContender(regime);
            case BUCKET4J -> new Bucket4jKeyed(regime);
            case RESILIENCE4J -> new Resilience4jKeyed(regime);
            case GUAVA -> new GuavaKeyed(regime);
            default -> throw new IllegalArgumentException("unknown library " + library);
        };
    }

    // ---- configurations: the same capacity and rate for everyone ----

    static dev.sluice.limit.RateLimiter sluice(Sluice engine, Regime regime) {
        return engine.limiter(
                "bench",
                TokenBucket.of(regime.capacity, regime.permitsPerSecond, Duration.ofSeconds(1)),
                LimiterOptions.builder().maxKeys(200_000).build());
    }

    /** Bucket4j's limit: {@code capacity}, refilled greedily (continuously) at the regime's rate. */
    static Bandwidth bandwidth(Regime regime) {
        return Bandwidth.builder()
                .capacity(regime.capacity)
                .refillGreedy(regime.permitsPerSecond, Duration.ofSeconds(1))
                .build();
    }

    /**
     * Bucket4j's local bucket with its defaults: {@code SynchronizationStrategy.LOCK_FREE} and {@code
     * TimeMeter.SYSTEM_MILLISECONDS} (System.currentTimeMillis() scaled to nanos).
     */
    static Bucket bucket4j(Bandwidth bandwidth) {
        return Bucket.builder().addLimit(bandwidth).build();
    }

    /** Resilience4j's limit: {@code limitForPeriod} permits per 1 s cycle, never waits. */
    static RateLimiterConfig resilience4jConfig(Regime regime) {
        return RateLimiterConfig.custom()
                .limitForPeriod(Math.toIntExact(regime.permitsPerSecond))
                .limitRefreshPeriod(Duration.ofSeconds(1))
                .timeoutDuration(Duration.ZERO)
                .build();
    }

    /** Resilience4j's AtomicRateLimiter (what {@code RateLimiter.of} creates). */
    static io.github.resilience4j.ratelimiter.RateLimiter resilience4j(String name, RateLimiterConfig config) {
        return io.github.resilience4j.ratelimiter.RateLimiter.of(name, config);
    }

    /** Guava's SmoothBursty limiter: stores at most 1 s worth of permits, starts with none stored. */
    static RateLimiter guava(Regime regime) {
        return RateLimiter.create(regime.permitsPerSecond);
    }

    // ---- Sluice ----

    static final class SluiceContender extends Contender {
        final Sluice engine = Sluice.inMemory();
        final dev.sluice.limit.RateLimiter limiter;

        SluiceContender(Regime regime) {
            limiter = sluice(engine, regime);
        }

        @Override
        boolean tryAcquire(String key) {
            return limiter.tryConsume(key, 1);
        }
    }

    // ---- one bare limiter: the key is ignored ----

    /** Sluice's form of a single limit: one key of a limiter, bound with {@code forKey}. */
    static final class SluiceOne extends Contender {
        final KeyLimiter limiter;

        SluiceOne(Regime regime) {
            limiter = sluice(Sluice.inMemory(), regime).forKey(Keys.ONE_KEY);
        }

        @Override
        boolean tryAcquire(String key) {
            return limiter.tryConsume();
        }
    }

    static final class Bucket4jOne extends Contender {
        final Bucket bucket;

        Bucket4jOne(Bucket bucket) {
            this.bucket = bucket;
        }

        @Override
        boolean tryAcquire(String key) {
            return bucket.tryConsume(1);
        }
    }

    static final class Resilience4jOne extends Contender {
        final io.github.resilience4j.ratelimiter.RateLimiter limiter;

        Resilience4jOne(io.github.resilience4j.ratelimiter.RateLimiter limiter) {
            this.limiter = limiter;
        }

        @Override
        boolean tryAcquire(String key) {
            return limiter.acquirePermission();
        }
    }

    static final class GuavaOne extends Contender {
        final RateLimiter limiter;

        GuavaOne(RateLimiter limiter) {
            this.limiter = limiter;
        }

        @Override
        boolean tryAcquire(String key) {
            return limiter.tryAcquire();
        }
    }

    // ---- one limiter per key in a ConcurrentHashMap ----

    static final class Bucket4jKeyed extends Contender {
        final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
        final Function<String, Bucket> factory;

        Bucket4jKeyed(Regime regime) {
            Bandwidth shared = bandwidth(regime);
            factory = key -> bucket4j(shared);
        }

        @Override
        boolean tryAcquire(String key) {
            Bucket bucket = buckets.get(key);
            if (bucket == null) {
                bucket = buckets.computeIfAbsent(key, factory);
            }
            return bucket.tryConsume(1);
        }
    }

    static final class Resilience4jKeyed extends Contender {
        final ConcurrentHashMap<String, io.github.resilience4j.ratelimiter.RateLimiter> limiters =
                new ConcurrentHashMap<>();
        final Function<String, io.github.resilience4j.ratelimiter.RateLimiter> factory;

        Resilience4jKeyed(Regime regime) {
            RateLimiterConfig shared = resilience4jConfig(regime);
            factory = key -> resilience4j(key, shared);
        }

        @Override
        boolean tryAcquire(String key) {
            io.github.resilience4j.ratelimiter.RateLimiter limiter = limiters.get(key);
            if (limiter == null) {
                limiter = limiters.computeIfAbsent(key, factory);
            }
            return limiter.acquirePermission();
        }
    }

    static final class GuavaKeyed extends Contender {
        final ConcurrentHashMap<String, RateLimiter> limiters = new ConcurrentHashMap<>();
        final Function<String, RateLimiter> factory;

        GuavaKeyed(Regime regime) {
            factory = key -> guava(regime);
        }

        @Override
        boolean tryAcquire(String key) {
            RateLimiter limiter = limiters.get(key);
            if (limiter == null) {
                limiter = limiters.computeIfAbsent(key, factory);
            }
            return limiter.tryAcquire();
        }
    }
}
