/**
 * The Redis engine: the limiters of {@code dev.sluice.limit} and the job queues of {@code dev.sluice.queue}, with
 * their state in Redis (6.2 or newer, or Valkey; standalone, Sentinel or Cluster), shared by every process that
 * uses the same Redis.
 *
 * <p>{@link dev.sluice.redis.RedisSluice#connect(String)} takes a {@code redis://}, {@code rediss://} or
 * {@code redis-sentinel://} URL; {@link dev.sluice.redis.RedisSluice#builder()} sets a cluster, an existing
 * Lettuce client, the key prefix and the timeouts. Both return a {@link dev.sluice.Sluice}: the same API and the
 * same decisions as the in-memory engine, each one Lua script and one round trip, on the Redis server's
 * clock. A queue's jobs, limits and statistics live in Redis: workers in any process take its jobs under
 * leases, and each change of a queue is one atomic call of its Lua library.
 *
 * <p>Thread-safety: the engine and its limiters are safe for use by any number of threads; they share one
 * connection.
 */
package dev.sluice.redis;
