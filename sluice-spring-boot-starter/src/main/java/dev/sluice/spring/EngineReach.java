package dev.sluice.spring;

import dev.sluice.Sluice;
import dev.sluice.redis.RedisSluice;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.springframework.util.ClassUtils;

/**
 * Whether an engine has reached its Redis since it was made: a Redis engine made while Redis was down has not,
 * until its first connection in the background succeeds. An engine that is not on Redis, or that connected when
 * it was made, has. Reads {@code sluice-redis} only where it is on the classpath.
 */
final class EngineReach {
    private static final String REDIS_ENGINE = "dev.sluice.redis.RedisSluice";

    private final Sluice sluice;
    private final CompletableFuture<Void> reached;
    private final boolean onRedis;

    private EngineReach(Sluice sluice, CompletableFuture<Void> reached, boolean onRedis) {
        this.sluice = sluice;
        this.reached = reached;
        this.onRedis = onRedis;
    }

    /** The reach of {@code sluice}, a Redis engine or not. */
    static EngineReach of(Sluice sluice) {
        if (!ClassUtils.isPresent(REDIS_ENGINE, EngineReach.class.getClassLoader())) {
            return new EngineReach(sluice, CompletableFuture.completedFuture(null), false);
        }
        CompletableFuture<Void> reached = Redis.whenConnected(sluice);
        return reached == null
                ? new EngineReach(sluice, CompletableFuture.completedFuture(null), false)
                : new EngineReach(sluice, reached, true);
    }

    /** Whether the engine has reached Redis (always, for an engine not on Redis). */
    boolean reached() {
        return reached.isDone() && !reached.isCompletedExceptionally();
    }

    /**
     * Completes once the engine has reached Redis, on the thread that connected it; never if the engine closes
     * first. A copy.
     */
    CompletableFuture<Void> whenReached() {
        return reached.copy();
    }

    /** Why the engine's latest attempt to reach Redis failed, while it has not reached it. */
    Optional<Throwable> failure() {
        return onRedis && !reached() ? Redis.connectFailure(sluice) : Optional.empty();
    }

    /** The calls into {@code sluice-redis}: this class is loaded only when it is on the classpath. */
    private static final class Redis {
        /** When {@code sluice} connected, or null if it is not a Redis engine. */
        static CompletableFuture<Void> whenConnected(Sluice sluice) {
            try {
                return RedisSluice.whenConnected(sluice);
            } catch (IllegalArgumentException notRedis) {
                return null;
            }
        }

        static Optional<Throwable> connectFailure(Sluice sluice) {
            return RedisSluice.connectFailure(sluice);
        }
    }
}
