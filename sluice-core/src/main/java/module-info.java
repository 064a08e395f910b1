/**
 * Sluice core: the rate-limiting and job-queue API and its in-memory engine.
 *
 * <p>Users import {@code dev.sluice}, {@code dev.sluice.limit}, {@code dev.sluice.queue} and {@code dev.sluice.time}. The engine
 * lives in {@code dev.sluice.internal.*}, which this module does not export.
 */
module dev.sluice.core {
    requires com.cronutils;
    requires org.slf4j;

    exports dev.sluice;
    exports dev.sluice.limit;
    exports dev.sluice.queue;
    exports dev.sluice.time;
    // the Redis engine reuses the in-memory limiters (its fallback), the checks and waiting; users never see them
    exports dev.sluice.internal.limit to
            dev.sluice.redis;
    // ... and the queue's rules and checks, so that both engines apply the same ones
    exports dev.sluice.internal.queue to
            dev.sluice.redis;
    // ... and the rule of adaptive rates, which the Redis engine's scripts copy and its tests compare
    exports dev.sluice.internal.adaptive to
            dev.sluice.redis;
}
