/**
 * Real Redis servers for tests, on free ports of 127.0.0.1, that a test can kill and restart.
 *
 * <p>{@link dev.sluice.testkit.redis.RedisServer#start()} starts a server of the test's own ({@link
 * dev.sluice.testkit.redis.RedisServer#shared()}: one per JVM); {@link
 * dev.sluice.testkit.redis.RedisCluster#start(int)} a cluster of that many masters with every slot assigned.
 * The binary is {@code redis-server} from the {@code PATH}, or one bundled in a Maven artifact where none is
 * installed, so tests need nothing installed or running. Processes still running at JVM exit are killed.
 *
 * <p>Thread-safety: servers and clusters are safe for use by any number of threads.
 */
package dev.sluice.testkit.redis;
