package dev.sluice.bench;

/**
 * One library under test in {@link RedisLimiterBench}: it turns a set of keys into a {@link Decider} that makes
 * one rate-limit decision per call, over the Lettuce connection the contender holds.
 */
interface RedisBenchContender extends AutoCloseable {
    /** Makes decisions on a fixed set of keys; safe to call from many threads at once. */
    @FunctionalInterface
    interface Decider {
        /**
         * Decides one request for the key at {@code keyIndex} of the set the decider was made for.
         *
         * @return whether the request was granted
         */
        boolean decide(int keyIndex) throws Exception;
    }

    /** Short name in case ids and tables: {@code sluice}, {@code bucket4j}, {@code raw-evalsha}, {@code floor}. */
    String id();

    /** What exactly is called, for the results. */
    String description();

    /**
     * A decider over {@code keys}. {@code set} names the key set ({@code hot}, {@code keys10k}); contenders keep
     * each set apart in Redis. Anything per key that a user would build once (a proxy, a key array) is built here,
     * untimed.
     */
    Decider decider(String set, String[] keys);

    @Override
    void close();
}
