package dev.sluice.redis;

import dev.sluice.Sluice;
import dev.sluice.redis.internal.RedisEngine;
import dev.sluice.redis.internal.RedisSettings;
import dev.sluice.time.DurationText;
import dev.sluice.time.SluiceClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The Redis engine: limits kept in Redis (6.2 or newer, or Valkey), standalone or Redis Cluster, so that every
 * process using the same Redis shares them. A tenant's 10 per second is 10 per second across all processes.
 *
 * <pre>{@code
 * Sluice sluice = RedisSluice.connect("redis://localhost:6379");
 * RateLimiter stripe = sluice.limiter("stripe", TokenBucket.perSecond(25));
 * }</pre>
 *
 * <p>Every decision is one round trip: one Lua script that reads the time from the Redis server, never from
 * the caller, so hosts whose clocks disagree still hold the limit together. State expires by itself once a
 * key is back at its full limit. What a limiter does while Redis cannot be reached is its {@link
 * dev.sluice.limit.WhenUnavailable} option. {@code tryAcquireAsync} and {@code acquireAsync} never block the
 * caller, even while Redis stalls: their futures complete when Redis answers, or with the {@code
 * WhenUnavailable} answer once the command timeout has passed. A refund or reset made while Redis cannot be
 * reached does not reach it: it applies to the limiter's fallback share only (when it falls back), and is
 * otherwise lost.
 *
 * <p>Keys are {@code <prefix>:<limiter>:<kind>:{<key>}}: each limiter key lives in one cluster slot, and a key
 * that names its own hash tag ({@code "{acme}:search"}) keeps it, so that the layers of a chain can share a
 * slot; in Redis Cluster a chain whose keys fall in different slots is refused with an {@link
 * IllegalArgumentException} that says how to name them. A policy's spans (its window, the time its capacity
 * takes to refill, its lease timeout) must be at most 2^52 ns, about 52 days. The engine shares limiters only:
 * {@link Sluice#queue} throws {@link UnsupportedOperationException}.
 */
public final class RedisSluice {
    private RedisSluice() {}

    /**
     * An engine on the standalone Redis at {@code url}, with default settings.
     *
     * @param url {@code redis://[[user]:password@]host[:port][/database]}, {@code rediss://} for TLS, or
     *     {@code redis-sentinel://[password@]host[:port][,host2[:port2]][/database]#masterName} for the master
     *     that Redis Sentinel names (followed through failovers)
     * @return the engine, connected
     * @throws IllegalArgumentException if the URL is malformed
     * @throws dev.sluice.SluiceException if Redis cannot be reached, or is older than 6.2
     */
    public static Sluice connect(String url) {
        return builder().url(url).build();
    }

    /**
     * Starts describing an engine: where Redis is, how keys are named, how long a call may take.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** The largest encoded payload a queue accepts unless the builder says otherwise: 512 KiB. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 512 * 1024;

    /** How many of a queue's latest events Redis keeps for listeners unless the builder says otherwise. */
    public static final int DEFAULT_EVENT_LOG_SIZE = 10_000;

    /** Describes a Redis engine. Not thread-safe. */
    public static final class Builder {
        private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

        private String url;
        private List<String> clusterUrls;
        private RedisClient client;
        private RedisClusterClient clusterClient;
        private String keyPrefix = "sluice";
        private Duration commandTimeout = Duration.ofMillis(500);
        private Duration retryInterval = Duration.ofSeconds(1);
        private SluiceClock clock = SluiceClock.system();
        private SluiceClock scriptClock;
        private boolean functions = true;
        private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
        private int eventLogSize = DEFAULT_EVENT_LOG_SIZE;

        private Builder() {}

        /**
         * How many of a queue's latest events Redis keeps while some process listens to the queue, 10,000 by
         * default (about: Redis trims whole blocks of entries, so it keeps a few dozen more). Listeners of every
         * process read them; one that falls further behind hears {@link
         * dev.sluice.queue.QueueListener#onEventsMissed} with how many it missed, then goes on from the oldest
         * kept. An event costs Redis the job's snapshot without its payload, about 175 bytes for a job without a
         * long result or stack trace (1.75 MB for 10,000). The process that renewed the queue's listening mark
         * last sets the size for all.
         *
         * @param eventLogSize 1 to 100,000,000
         * @return this builder
         * @throws IllegalArgumentException if it is out of range
         */
        public Builder eventLogSize(int eventLogSize) {
            if (eventLogSize < 1 || eventLogSize > 100_000_000) {
                throw new IllegalArgumentException("eventLogSize must be 1 to 100000000, was " + eventLogSize);
            }
            this.eventLogSize = eventLogSize;
            return this;
        }

        /**
         * The largest encoded payload a queue accepts, 512 KiB by default (1 byte to 512 MiB, Redis's own limit): a
         * bigger one is refused at the add, which then adds nothing. Large payloads slow every call that moves
         * their job; store big documents elsewhere and put their key in the payload.
         *
         * @param maxPayloadBytes 1 to 536,870,912
         * @return this builder
         * @throws IllegalArgumentException if it is out of range
         */
        public Builder maxPayloadBytes(int maxPayloadBytes) {
            if (maxPayloadBytes < 1 || maxPayloadBytes > 512 * 1024 * 1024) {
                throw new IllegalArgumentException(
                        "maxPayloadBytes must be 1 to 536870912 (512 MiB), was " + maxPayloadBytes);
            }
            this.maxPayloadBytes = maxPayloadBytes;
            return this;
        }

        /**
         * Whether queues run as a library of Redis functions on Redis 7 and newer ({@code FUNCTION LOAD} once, then
         * {@code FCALL}: cheaper for Redis than a script, which defines everything at every call), or as a script
         * ({@code EVALSHA}), as on Redis 6.2. Turn it off where the server refuses {@code FUNCTION LOAD}.
         *
         * @param functions true (the default) to use Redis functions where the server has them
         * @return this builder
         */
        public Builder redisFunctions(boolean functions) {
            this.functions = functions;
            return this;
        }

        /**
         * Connects to the standalone Redis at {@code url}: {@code redis://} or {@code rediss://} (TLS), with an
         * optional password (and user) and database; or, with {@code redis-sentinel://...#masterName}, to the
         * master that Redis Sentinel names, followed through failovers.
         *
         * @param url the URL; checked by {@link #build()}
         * @return this builder
         * @throws IllegalArgumentException if the URL is null
         */
        public Builder url(String url) {
            this.url = present("url", url, "a redis://, rediss:// or redis-sentinel:// URL");
            return this;
        }

        /**
         * Connects to the Redis Cluster that any of {@code urls} belongs to.
         *
         * @param urls {@code redis://} or {@code rediss://} URLs of one or more nodes
         * @return this builder
         * @throws IllegalArgumentException if no URL is given, or one is null
         */
        public Builder cluster(String... urls) {
            if (urls == null || urls.length == 0) {
                throw new IllegalArgumentException("a cluster needs at least 1 node URL, had none");
            }
            for (String node : urls) {
                present("cluster node URL", node, "a redis:// or rediss:// URL");
            }
            this.clusterUrls = List.of(urls);
            return this;
        }

        /**
         * Uses a standalone client the application already has. The engine opens its own connection from it and
         * closes only that connection; the client stays the application's to shut down.
         *
         * @param client the application's client
         * @return this builder
         * @throws IllegalArgumentException if the client is null
         */
        public Builder client(RedisClient client) {
            this.client = present("client", client, "a RedisClient");
            return this;
        }

        /**
         * Uses a cluster client the application already has, as {@link #client(RedisClient)}.
         *
         * @param client the application's cluster client
         * @return this builder
         * @throws IllegalArgumentException if the client is null
         */
        public Builder client(RedisClusterClient client) {
            this.clusterClient = present("client", client, "a RedisClusterClient");
            return this;
        }

        /**
         * The start of every key this engine writes, {@code "sluice"} by default: engines with different prefixes
         * share nothing. 1 to 64 letters, digits or {@code . _ - :}.
         *
         * @param keyPrefix the prefix
         * @return this builder
         * @throws IllegalArgumentException if the prefix is null or malformed
         */
        public Builder keyPrefix(String keyPrefix) {
            if (keyPrefix == null || !PREFIX.matcher(keyPrefix).matches()) {
                throw new IllegalArgumentException("keyPrefix must be 1 to 64 letters, digits or . _ - :, was "
                        + (keyPrefix == null ? "null" : "'" + keyPrefix + "'"));
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * The longest a decision waits for Redis, 500 ms by default (1 ms to 1 minute). When it passes, the
         * limiter answers by its {@link dev.sluice.limit.WhenUnavailable} option: no caller waits longer.
         *
         * @param commandTimeout 1 ms to 1 minute
         * @return this builder
         * @throws IllegalArgumentException if the timeout is null or out of range
         */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = checkDuration("commandTimeout", commandTimeout);
            return this;
        }

        /**
         * After Redis failed to answer, how long limiters answer without asking it before they try again, 1 second
         * by default (1 ms to 1 minute). The first call after that asks Redis; if it answers, every limiter is
         * back on Redis.
         *
         * @param retryInterval 1 ms to 1 minute
         * @return this builder
         * @throws IllegalArgumentException if the interval is null or out of range
         */
        public Builder retryInterval(Duration retryInterval) {
            this.retryInterval = checkDuration("retryInterval", retryInterval);
            return this;
        }

        /** The clock waits ({@code acquire}) sleep on; decisions take their time from Redis regardless. */
        Builder clock(SluiceClock clock) {
            this.clock = present("clock", clock, "a SluiceClock");
            return this;
        }

        /** For tests only: scripts take their time from {@code clock} instead of from the Redis server. */
        Builder scriptClock(SluiceClock clock) {
            this.scriptClock = present("clock", clock, "a SluiceClock");
            this.clock = clock;
            return this;
        }

        /**
         * Connects and checks the server (Redis 6.2 or newer).
         *
         * @return the engine, connected
         * @throws IllegalArgumentException if no Redis, or more than one, was given
         * @throws dev.sluice.SluiceException if Redis cannot be reached or is too old
         */
        public Sluice build() {
            int given = (url != null ? 1 : 0)
                    + (clusterUrls != null ? 1 : 0)
                    + (client != null ? 1 : 0)
                    + (clusterClient != null ? 1 : 0);
            if (given != 1) {
                throw new IllegalArgumentException("give exactly one of url, cluster, client(RedisClient) or"
                        + " client(RedisClusterClient); had " + given);
            }
            return RedisEngine.connect(new RedisSettings(
                    url,
                    clusterUrls,
                    client,
                    clusterClient,
                    keyPrefix,
                    commandTimeout,
                    retryInterval,
                    clock,
                    scriptClock,
                    functions,
                    maxPayloadBytes,
                    eventLogSize));
        }

        private static <T> T present(String what, T value, String allowed) {
            if (value == null) {
                throw new IllegalArgumentException(what + " must be " + allowed + ", was null");
            }
            return value;
        }

        private static Duration checkDuration(String what, Duration value) {
            if (value == null
                    || value.compareTo(Duration.ofMillis(1)) < 0
                    || value.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException(
                        what + " must be between 1 ms and 1 minute, was " + DurationText.format(value));
            }
            return value;
        }
    }
}
