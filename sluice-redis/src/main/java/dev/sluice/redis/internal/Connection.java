package dev.sluice.redis.internal;

import dev.sluice.SluiceException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisFunctionAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.api.async.RedisServerAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One connection to Redis, standalone or cluster, and the client it came from when the engine made it. Keys and
 * arguments go as bytes the engine encodes itself: Lettuce encodes a string argument through a temporary direct
 * buffer, which cost more than the rest of a decision's client work.
 */
final class Connection implements AutoCloseable {
    private static final Pattern VERSION = Pattern.compile("(?m)^redis_version:(\\d+)\\.(\\d+)");

    final RedisScriptingAsyncCommands<byte[], byte[]> scripting;
    /** Redis functions, on a standalone Redis 7 or newer; null elsewhere (scripts instead). */
    volatile RedisFunctionAsyncCommands<byte[], byte[]> functions;

    private final RedisFunctionAsyncCommands<byte[], byte[]> functionCommands;
    final RedisServerAsyncCommands<byte[], byte[]> server;
    /** Commands on keys (strings, hashes, streams), routed to the key's node in a cluster. */
    final RedisClusterAsyncCommands<byte[], byte[]> keys;

    final boolean cluster;
    final String description;
    private final StatefulConnection<byte[], byte[]> connection;
    /** The standalone connection and the client it came from; null on a cluster. */
    private final StatefulRedisConnection<byte[], byte[]> standalone;

    private final RedisClient standaloneClient;
    private final AutoCloseable ownedClient;
    /** The client the connection came from, which opens the event readers' own connections. */
    private final AbstractRedisClient client;
    /**
     * How long an event reader's {@code XREAD} blocks: a client the engine made lets it wait that long beyond
     * the command timeout; the application's client is asked for at most half the command timeout.
     */
    final long eventBlockMillis;

    /** The engine's command timeout. */
    private final Duration timeout;

    /**
     * Whether the client fails every command that has no reply after the command timeout (a client the engine made
     * does, see {@link #timeouts}), so that a caller may wait for a reply without a deadline of its own: a virtual
     * thread's timed wait costs a hand-off to the scheduler's timer thread and back, about a fifth of a job's time
     * at concurrency 1.
     */
    boolean timesOutCommands;

    /**
     * The reply of {@code future}, a command of this connection's client: waited for without a deadline when the
     * client fails late commands itself ({@link #timesOutCommands}), else for {@code timeoutNanos} at most.
     */
    <V> V reply(Future<V> future, long timeoutNanos) throws InterruptedException, ExecutionException, TimeoutException {
        if (timesOutCommands) {
            return future.get();
        }
        return future.get(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
    }

    private Connection(
            StatefulRedisConnection<byte[], byte[]> standalone,
            RedisClient standaloneClient,
            StatefulRedisClusterConnection<byte[], byte[]> clustered,
            AbstractRedisClient client,
            AutoCloseable ownedClient,
            String description,
            Duration timeout) {
        this.cluster = clustered != null;
        this.connection = cluster ? clustered : standalone;
        this.standalone = standalone;
        this.standaloneClient = standaloneClient;
        this.scripting = cluster ? clustered.async() : standalone.async();
        this.functionCommands = cluster ? null : standalone.async();
        this.server = cluster ? clustered.async() : standalone.async();
        this.keys = cluster ? clustered.async() : standalone.async();
        this.client = client;
        this.ownedClient = ownedClient;
        this.description = description;
        this.timeout = timeout;
        this.timesOutCommands = ownedClient != null;
        this.eventBlockMillis = ownedClient != null
                ? EVENT_BLOCK.toMillis()
                : Math.max(1, Math.min(EVENT_BLOCK.toMillis(), timeout.toMillis() / 2));
    }

    /** The longest an event reader's {@code XREAD} blocks. */
    static final Duration EVENT_BLOCK = Duration.ofSeconds(5);

    /** A connection of this engine's own for one blocking reader, whose blocking reads hold up nothing else. */
    Dedicated openDedicated() {
        if (client instanceof RedisClusterClient clusterClient) {
            StatefulRedisClusterConnection<byte[], byte[]> c = clusterClient.connect(ByteArrayCodec.INSTANCE);
            return new Dedicated(c, c.async());
        }
        StatefulRedisConnection<byte[], byte[]> c = ((RedisClient) client).connect(ByteArrayCodec.INSTANCE);
        return new Dedicated(c, c.async());
    }

    /** A blocking reader's connection and its commands. */
    static final class Dedicated implements AutoCloseable {
        private final StatefulConnection<byte[], byte[]> connection;
        private final RedisClusterAsyncCommands<byte[], byte[]> commands;
        private final AtomicBoolean closed = new AtomicBoolean();
        private volatile CompletableFuture<Void> closing = CompletableFuture.completedFuture(null);

        Dedicated(StatefulConnection<byte[], byte[]> connection, RedisClusterAsyncCommands<byte[], byte[]> commands) {
            this.connection = connection;
            this.commands = commands;
        }

        RedisClusterAsyncCommands<byte[], byte[]> commands() {
            return commands;
        }

        /** Starts closing the connection, which cuts a blocking read short; a second call does nothing. */
        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                closing = connection.closeAsync();
            }
        }

        /** Closes the connection and waits up to {@code timeout} until it is closed, even if interrupted. */
        void closeAndWait(Duration timeout) {
            close();
            boolean interrupted = Thread.interrupted();
            try {
                closing.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | TimeoutException e) {
                // a connection that does not close in time is closed with its client
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    static Connection open(RedisSettings settings) {
        Duration timeout = settings.commandTimeout();
        String description = describe(settings);
        try {
            if (settings.url() != null) {
                RedisURI uri = parse(settings.url());
                ClientResources resources = resources(settings);
                RedisClient client = RedisClient.create(resources, uri);
                client.setOptions(clientOptions(timeout));
                return checked(openStandalone(client, owned(client, resources), description, timeout), settings);
            }
            if (settings.clusterUrls() != null) {
                List<RedisURI> uris = new ArrayList<>();
                for (String url : settings.clusterUrls()) {
                    uris.add(parse(url));
                }
                ClientResources resources = resources(settings);
                RedisClusterClient client = RedisClusterClient.create(resources, uris);
                // A cluster client opens its connection to each node on that node's first command and
                // rejects the command while connecting if told to reject when disconnected: keep the default
                // (queue it); the command timeout still bounds the wait.
                client.setOptions(ClusterClientOptions.builder()
                        .autoReconnect(true)
                        .timeoutOptions(timeouts(timeout))
                        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                                // redirections are followed anyway; the refresh finds moved masters early
                                .enablePeriodicRefresh(Duration.ofSeconds(10))
                                .build())
                        .build());
                return checked(openCluster(client, owned(client, resources), description, timeout), settings);
            }
            if (settings.client() != null) {
                return checked(openStandalone(settings.client(), null, description, timeout), settings);
            }
            return checked(openCluster(settings.clusterClient(), null, description, timeout), settings);
        } catch (IllegalArgumentException | SluiceException e) {
            throw e;
        } catch (RuntimeException e) {
            throw ConnectFailure.of(null, e);
        }
    }

    /**
     * How the engine names the Redis of {@code settings} in messages, never with a password.
     *
     * @throws IllegalArgumentException if a URL is malformed
     */
    static String describe(RedisSettings settings) {
        if (settings.url() != null) {
            return parse(settings.url()).toString();
        }
        if (settings.clusterUrls() != null) {
            List<String> nodes = new ArrayList<>();
            for (String url : settings.clusterUrls()) {
                nodes.add(parse(url).toString());
            }
            return "cluster " + nodes;
        }
        return settings.client() != null ? "the application's RedisClient" : "the application's RedisClusterClient";
    }

    private static RedisURI parse(String url) {
        if (url == null
                || !(url.startsWith("redis://")
                        || url.startsWith("rediss://")
                        || url.startsWith("redis-sentinel://"))) {
            throw new IllegalArgumentException("Redis URL must start with redis://, rediss:// (TLS) or"
                    + " redis-sentinel:// (the master a Sentinel names), was "
                    + (url == null ? "null" : "'" + url + "'"));
        }
        try {
            if (!url.startsWith("redis-sentinel://") && URI.create(url).getHost() == null) {
                // Lettuce would take "host:port" whole as the host name, and fail to resolve it when connecting
                throw new IllegalArgumentException("no host name (letters, digits, '-' and '.', or an IPv6 address in"
                        + " brackets), or a port that is not a number");
            }
            return RedisURI.create(url);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "Redis URL '" + url + "' is malformed: " + e.getMessage()
                            + "; expected redis[s]://[[user]:password@]host[:port][/database]",
                    e);
        }
    }

    /**
     * Client threads whose reconnection attempts back off to at most the retry interval, so that a Redis that is
     * back is found about as soon as the limiters try it again.
     */
    private static ClientResources resources(RedisSettings settings) {
        Duration most = settings.retryInterval();
        return DefaultClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(1), most, 2, TimeUnit.MILLISECONDS))
                // commands time out on this timer (see timesOutCommands): Lettuce's own ticks every 100 ms
                .timer(new HashedWheelTimer(
                        new DefaultThreadFactory("sluice-redis-timeouts", true),
                        TIMEOUT_TICK_MILLIS,
                        TimeUnit.MILLISECONDS))
                .build();
    }

    /** The client's timer wheel (its command timeouts run on it): entries set and cancelled wake no thread. */
    io.netty.util.Timer timer() {
        return client.getResources().timer();
    }

    /** How late past the command timeout a command of the engine's own client may be failed, at most. */
    static final long TIMEOUT_TICK_MILLIS = 10;

    private static AutoCloseable owned(AbstractRedisClient client, ClientResources resources) {
        return () -> {
            try {
                client.shutdown();
            } finally {
                try {
                    resources.shutdown();
                } finally {
                    resources.timer().stop();
                }
            }
        };
    }

    private static ClientOptions clientOptions(Duration timeout) {
        return ClientOptions.builder()
                .autoReconnect(true)
                // while disconnected, fail at once rather than queue: the limiter then answers by its policy
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(timeouts(timeout))
                .build();
    }

    /**
     * Every command times out after {@code timeout}, but an {@code XREAD} or a {@code BZPOPMIN} (only event
     * readers and work watchers send them, blocking for up to {@link #EVENT_BLOCK}) after that much more.
     */
    private static TimeoutOptions timeouts(Duration timeout) {
        long nanos = timeout.toNanos();
        long readNanos = nanos + EVENT_BLOCK.toNanos();
        return TimeoutOptions.builder()
                .timeoutCommands()
                .timeoutSource(new TimeoutOptions.TimeoutSource() {
                    @Override
                    public long getTimeout(RedisCommand<?, ?, ?> command) {
                        return command.getType() == CommandType.XREAD || command.getType() == CommandType.BZPOPMIN
                                ? readNanos
                                : nanos;
                    }

                    @Override
                    public TimeUnit getTimeUnit() {
                        return TimeUnit.NANOSECONDS;
                    }
                })
                .build();
    }

    private static Connection openStandalone(
            RedisClient client, AutoCloseable owned, String description, Duration timeout) {
        try {
            return new Connection(
                    client.connect(ByteArrayCodec.INSTANCE), client, null, client, owned, description, timeout);
        } catch (RuntimeException e) {
            closeQuietly(owned);
            throw ConnectFailure.of(description, e);
        }
    }

    private static Connection openCluster(
            RedisClusterClient client, AutoCloseable owned, String description, Duration timeout) {
        try {
            return new Connection(
                    null, null, client.connect(ByteArrayCodec.INSTANCE), client, owned, description, timeout);
        } catch (RuntimeException e) {
            closeQuietly(owned);
            throw ConnectFailure.of(description, e);
        }
    }

    /** Refuses servers older than 6.2, whose scripts lack what ours use; notes whether it has Redis functions. */
    private static Connection checked(Connection connection, RedisSettings settings) {
        String info;
        try {
            info = connection.server.info("server").get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            connection.close();
            throw ConnectFailure.of(connection.description, e);
        }
        Matcher version = VERSION.matcher(info);
        if (version.find()) {
            int major = Integer.parseInt(version.group(1));
            int minor = Integer.parseInt(version.group(2));
            if (major < 6 || (major == 6 && minor < 2)) {
                connection.close();
                throw new SluiceException("Redis " + major + "." + minor + " (" + connection.description
                        + ") is too old: Sluice needs Redis 6.2 or newer, or Valkey");
            }
            if (major >= 7 && settings.redisFunctions()) {
                connection.functions = connection.functionCommands;
            }
        }
        return connection;
    }

    /**
     * A second connection to the same standalone Redis (followed through failovers as this one is), with the same
     * commands; closing it leaves this one and the client open.
     *
     * @throws SluiceException if Redis cannot be reached
     */
    Connection another() {
        if (cluster) {
            throw new IllegalStateException("a second connection is for a standalone Redis, not " + description);
        }
        Connection another = openStandalone(standaloneClient, null, description, timeout);
        another.timesOutCommands = timesOutCommands;
        if (functions != null) {
            another.functions = another.functionCommands;
        }
        return another;
    }

    /** Sends {@code WAIT replicas timeoutMillis} (standalone only): how many replicas have this connection's writes. */
    RedisFuture<Long> waitForReplicas(int replicas, long timeoutMillis) {
        return standalone.async().waitForReplication(replicas, timeoutMillis);
    }

    /** Runs {@code lost} whenever this (standalone) connection is lost, before it connects again. */
    void whenLost(Runnable lost) {
        ((RedisChannelHandler<?, ?>) standalone).addListener(new RedisConnectionStateListener() {
            @Override
            public void onRedisDisconnected(RedisChannelHandler<?, ?> ignored) {
                lost.run();
            }
        });
    }

    /** The cluster slot of {@code key}. */
    static int slot(String key) {
        return SlotHash.getSlot(key);
    }

    @Override
    public void close() {
        try {
            connection.close();
        } finally {
            closeQuietly(ownedClient);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception ignored) {
            // nothing more can be done with a client that fails to shut down
        }
    }
}
