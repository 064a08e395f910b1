package dev.sluice.redis;

import dev.sluice.Sluice;
import dev.sluice.queue.JobQueue;
import dev.sluice.redis.internal.CpuUtilisation;
import dev.sluice.redis.internal.HealthReading;
import dev.sluice.redis.internal.RedisEngine;
import dev.sluice.redis.internal.RedisSettings;
import dev.sluice.time.DurationText;
import dev.sluice.time.SluiceClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.DoubleSupplier;
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
 * <p>Keys are {@code <prefix>:<limiter>:<kind>:{<key>}}, a colon in the name and braces or {@code %} in the key
 * escaped, so that no two limiter keys, queues or engines share a Redis key whatever their names and keys hold
 * (docs/redis-keys.md has the layout). Each limiter key lives in one cluster slot, and a key that names its own
 * hash tag ({@code "{acme}:search"}) lives in that tag's slot, so that the layers of a chain can share a slot; in
 * Redis Cluster a chain whose keys fall in different slots is refused with an {@link
 * IllegalArgumentException} that says how to name them.
 *
 * <p>{@link Sluice#queue} returns a queue kept in Redis, shared by every process that opens it: the same API as
 * in memory, with workers that take jobs under renewed leases, so that a job whose worker died runs again
 * elsewhere, and an ending whose lease was lost is refused.
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
     * When {@code sluice} has connected to Redis: for an engine built with {@link Builder#connectInBackground},
     * once its first successful attempt made it ready (limiters decide on Redis, queues can be opened); for one that
     * connected when built, at once. It says nothing of later outages. Actions chained on it without an executor
     * run on the engine's connecting thread: keep them short, or give them an executor.
     *
     * @param sluice an engine built by this class
     * @return a future that completes once the engine is connected, or fails with an {@link IllegalStateException}
     *     if the engine is closed first; a new one at each call, whose completion by the caller changes nothing
     * @throws IllegalArgumentException if {@code sluice} was not built by this class
     */
    public static CompletableFuture<Void> whenConnected(Sluice sluice) {
        return engine(sluice).whenConnected();
    }

    /**
     * Why {@code sluice}, built with {@link Builder#connectInBackground}, could not connect at its latest attempt.
     *
     * @param sluice an engine built by this class
     * @return the failure of the latest attempt while the engine is not connected; empty once it is, and before
     *     an attempt failed
     * @throws IllegalArgumentException if {@code sluice} was not built by this class
     */
    public static Optional<Throwable> connectFailure(Sluice sluice) {
        return engine(sluice).connectFailure();
    }

    /**
     * Redis's CPU utilisation, for a queue to follow as a gauge of its {@link dev.sluice.limit.AdaptiveRate}: the
     * change of {@code used_cpu_sys + used_cpu_user} over the wall time between readings (0.8: 80% of one core; Redis
     * runs its commands on one), read by one process at a time, the others reading what it published. A process that
     * finds nobody reading takes over within three seconds; until a figure is published the reading is NaN and the
     * rate holds.
     *
     * <pre>{@code
     * queue.followGauge("redis-cpu", 0.8, RedisSluice.cpuUtilisation(queue));
     * }</pre>
     *
     * @param queue a queue of an engine built by this class
     * @return the reading, for {@link dev.sluice.queue.JobQueue#followGauge}
     * @throws IllegalArgumentException if {@code queue} is not a queue of an engine built by this class
     */
    public static DoubleSupplier cpuUtilisation(JobQueue<?> queue) {
        return CpuUtilisation.of(queue);
    }

    /**
     * Reads the health of the Redis {@code sluice} uses: version, role, memory and its bound, eviction policy,
     * clients, evictions, keys and one round trip. Three calls of Redis; meant for a dashboard's once-a-second
     * reading, not for every job.
     *
     * @param sluice an engine built by this class
     * @return the reading
     * @throws IllegalArgumentException if {@code sluice} was not built by this class
     * @throws dev.sluice.SluiceException if Redis cannot be reached
     */
    public static RedisHealth health(Sluice sluice) {
        return HealthReading.of(engine(sluice));
    }

    /**
     * Whether {@code sluice} was built by this class, so that {@link #health} and the other readings apply to it.
     *
     * @param sluice any engine
     * @return true for an engine on Redis built here
     */
    public static boolean isRedis(Sluice sluice) {
        return sluice instanceof RedisEngine;
    }

    private static RedisEngine engine(Sluice sluice) {
        if (sluice instanceof RedisEngine engine) {
            return engine;
        }
        throw new IllegalArgumentException("not an engine built by RedisSluice: " + sluice);
    }

    /**
     * Starts describing an engine: where Redis is, how keys are named, how long a call may take.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

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
        private int waitReplicas;
        private Duration waitTimeout;
        private int eventLogSize = DEFAULT_EVENT_LOG_SIZE;
        private boolean connectInBackground;

        private Builder() {}

        /**
         * Makes adds and job endings wait until {@code replicas} replicas have them ({@code WAIT}), so that an
         * acknowledged job survives a failover to one of those replicas, as Redis Sentinel makes. Off by default.
         *
         * <p>An add (single, bulk or async) returns once that many replicas acknowledged it. If fewer do within
         * {@code timeout}, it throws {@link ReplicaWaitException}: the job is written on the master, but whether it
         * survives a failover is unknown, and adding it again with the same job id is safe. A worker records a job's
         * ending (completed, failed, retry planned) the same way; if fewer replicas acknowledge the ending, the worker
         * logs a warning and goes on: the ending is recorded on the master, and should a failover lose it, the job
         * goes back to waiting once its lease runs out and runs again, as after a stall. Other changes (pause,
         * limits, removals, repeatable schedules) do not wait.
         *
         * <p>A {@code WAIT} holds up the connection it is sent on until it answers. Queue calls therefore go over a
         * connection of their own, where one {@code WAIT} answers for every write sent before it, and limiters never
         * wait behind one; a queue call may wait up to {@code timeout} behind one, so {@code timeout} must be at most
         * half the {@link #commandTimeout}. Not on Redis Cluster: {@link #build()} refuses the combination.
         *
         * @param replicas how many replicas must acknowledge a write, at least 1
         * @param timeout the longest an add or ending waits for them: at least 1 ms, and at most half the command
         *     timeout (checked by {@link #build()}); Redis counts it in whole milliseconds
         * @return this builder
         * @throws IllegalArgumentException if {@code replicas} is below 1, or {@code timeout} is null or shorter than
         *     1 ms
         */
        public Builder waitForReplicas(int replicas, Duration timeout) {
            if (replicas < 1) {
                throw new IllegalArgumentException("waitForReplicas needs at least 1 replica, was " + replicas);
            }
            if (timeout == null || timeout.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException(
                        "waitForReplicas timeout must be at least 1 ms, was " + DurationText.format(timeout));
            }
            this.waitReplicas = replicas;
            this.waitTimeout = timeout;
            return this;
        }

        /**
         * How many of a queue's latest events Redis keeps while some process listens to the queue, 10,000 by
         * default (about: Redis trims whole blocks of entries, and an entry holds all the events of one call, so it
         * keeps some more). Listeners of every
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
         * <p>The client's options apply. With Lettuce's defaults, a command in flight when the connection drops is
         * sent again once it is back, so a queue call whose first sending Redis ran (its reply lost) runs twice: an
         * add without a job id adds a second job, a claim takes a second job, and the first waits for its lease to
         * run out. The engine's own clients fail such a call instead, and it reports that its outcome is unknown:
         * give the client {@code ClientOptions.DisconnectedBehavior.REJECT_COMMANDS} for the same.
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
         * share nothing, also where one prefix begins with another ({@code "app"} and {@code "app:eu"}). 1 to 64
         * letters, digits or {@code . _ - :}.
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
         * limiter answers by its {@link dev.sluice.limit.WhenUnavailable} option: no caller waits longer. A client
         * the engine made ({@link #url}, {@link #cluster}) fails a command that passed it on a timer of 10 ms
         * ticks, so up to 10 ms late; with the application's own client the engine keeps the time itself.
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

        /**
         * Whether {@link #build()} returns at once, without waiting for Redis, and the engine connects in the
         * background: for an application that must start while Redis is down. Off by default: {@code build()}
         * connects, and throws if Redis cannot be reached.
         *
         * <p>Until it is connected, the engine is as in an outage that began when it was built: every limiter and
         * chain answers by its {@link dev.sluice.limit.WhenUnavailable} option (allows, decides on its share in this
         * process, or denies with {@link dev.sluice.limit.Decision.Basis#UNAVAILABLE_DENIED}), and its listeners hear
         * {@code onUnavailable} with the latest connect failure; {@link Sluice#queue} throws a {@link
         * dev.sluice.SluiceException} saying that Redis is not reachable yet. The engine tries to connect at once and
         * then every {@link #retryInterval}, on a thread of its own, never a caller's; each attempt takes up to
         * Lettuce's connect timeout (10 s by default) where Redis does not answer. Once an attempt succeeds, the
         * engine is as one built while Redis was up. The log has one warning when the first attempt fails, naming
         * the cause, and one line when the engine connects. {@link RedisSluice#whenConnected} tells when it has,
         * and {@link RedisSluice#connectFailure} why it has not yet. {@link Sluice#close()} stops the attempts; one
         * under way closes what it opened when it ends.
         *
         * <p>A Redis that refuses the engine (a wrong password, a server older than 6.2) is tried again like an
         * unreachable one; only a malformed URL, or a bad combination of options, still fails {@code build()}.
         *
         * @param connectInBackground true to build without waiting for Redis
         * @return this builder
         */
        public Builder connectInBackground(boolean connectInBackground) {
            this.connectInBackground = connectInBackground;
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
         * Connects and checks the server (Redis 6.2 or newer); with {@link #connectInBackground}, returns at once
         * and connects in the background.
         *
         * @return the engine, connected unless it connects in the background
         * @throws IllegalArgumentException if no Redis, or more than one, was given; if a URL is malformed; or if
         *     {@link #waitForReplicas} was given with a cluster, or with a timeout over half the command timeout
         * @throws dev.sluice.SluiceException if Redis cannot be reached or is too old, unless the engine connects in
         *     the background
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
            if (waitTimeout != null) {
                checkReplicaWait();
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
                    waitReplicas,
                    waitTimeout,
                    eventLogSize,
                    connectInBackground));
        }

        private void checkReplicaWait() {
            if (clusterUrls != null || clusterClient != null) {
                throw new IllegalArgumentException("waitForReplicas is for a standalone or Sentinel Redis, not Redis"
                        + " Cluster: the cluster client picks the connection of each command itself, so a WAIT could"
                        + " go over another connection than the queue's write and count nothing; on a cluster, bound"
                        + " the loss with Redis's min-replicas-to-write instead");
            }
            if (waitTimeout.compareTo(commandTimeout.dividedBy(2)) > 0) {
                throw new IllegalArgumentException("waitForReplicas timeout must be at most half the commandTimeout ("
                        + DurationText.format(commandTimeout) + "), was " + DurationText.format(waitTimeout)
                        + ": queue calls sent after a WAIT wait for it, and must still be answered within the"
                        + " command timeout");
            }
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
