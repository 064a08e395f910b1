package dev.sluice.redis.internal;

import dev.sluice.EngineListener;
import dev.sluice.Sluice;
import dev.sluice.SluiceException;
import dev.sluice.internal.limit.ChainBuilder;
import dev.sluice.internal.limit.EngineListeners;
import dev.sluice.internal.limit.InMemoryLimiters;
import dev.sluice.internal.limit.Limits;
import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.RatePolicy;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueOptions;
import dev.sluice.time.SluiceClock;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/** The engine that keeps every limiter's state in Redis. */
public final class RedisEngine implements Sluice {
    /** Error replies that mean the server cannot serve now, as opposed to a fault in the request. */
    private static final List<String> UNAVAILABLE_ERRORS =
            List.of("LOADING", "BUSY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "READONLY", "OOM", "NOREPLICAS");

    /** The connection of limiters and queues; null until an engine that connects in the background is connected. */
    volatile Connection connection;
    /** The connection of queue calls: {@link #connection}, or one of their own when they wait for replicas. */
    private volatile Connection queueConnection;
    /** Confirms that replicas have adds and endings; null when the engine does not wait for them. */
    private volatile ReplicaWait replicaWait;

    private final boolean cluster;
    /** The server, as messages name it (never with a password). */
    private final String description;
    /** Connects an engine built without waiting for Redis; null for one connected at build. */
    private final Connector connector;

    final String keyPrefix;
    private final SluiceClock clock;
    private final SluiceClock scriptClock;
    private final long timeoutNanos;
    private final long retryIntervalNanos;
    /** About how many of a queue's latest events Redis keeps while some process listens. */
    final int eventLogSize;

    private final ConcurrentHashMap<String, RedisLimiter<?>> limiters = new ConcurrentHashMap<>();
    private final QueueLibrary queueLibrary = new QueueLibrary(this);
    /** The engine-wide listeners: they hear every limiter's decisions and each limiter and queue opened. */
    final EngineListeners listeners = new EngineListeners(this, this::isClosed);

    /** When Redis failed last: until {@link #retryAt}, limiters answer without asking it. */
    private volatile boolean down;

    private volatile long retryAt;
    private volatile Throwable lastFailure;
    /** Why the latest attempt to connect in the background failed; null before one did. */
    private volatile Throwable connectFailure;

    private final AtomicBoolean probing = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile InMemoryLimiters fallback;

    private RedisEngine(RedisSettings settings, Connector.Opened opened) {
        this.cluster = settings.clusterUrls() != null || settings.clusterClient() != null;
        this.description = Connection.describe(settings);
        this.keyPrefix = settings.keyPrefix();
        this.registry = new QueueRegistry(this, keyPrefix);
        this.clock = settings.clock();
        this.scriptClock = settings.scriptClock();
        this.timeoutNanos = settings.commandTimeout().toNanos();
        this.retryIntervalNanos = settings.retryInterval().toNanos();
        this.eventLogSize = settings.eventLogSize();
        this.fallback = fallbackLimiters();
        if (opened != null) {
            this.connector = null;
            use(opened);
        } else {
            this.connector = new Connector(settings, description, this::connected, this::connectFailed);
            lastFailure = notConnected(null);
            retryAt = clock.nanos() + retryIntervalNanos;
            down = true;
        }
    }

    /**
     * Connects as {@code settings} say and checks the server; an engine that connects in the background is
     * returned at once, down until it is connected.
     *
     * @throws IllegalArgumentException if a URL is malformed
     * @throws SluiceException if Redis cannot be reached or is too old, unless the engine connects in the background
     */
    public static RedisEngine connect(RedisSettings settings) {
        if (!settings.connectInBackground()) {
            return new RedisEngine(settings, Connector.open(settings));
        }
        RedisEngine engine = new RedisEngine(settings, null);
        engine.connector.start();
        return engine;
    }

    private void use(Connector.Opened opened) {
        queueConnection = opened.queueConnection();
        replicaWait = opened.replicaWait();
        connection = opened.connection();
    }

    private void connected(Connector.Opened opened) {
        use(opened);
        succeeded();
    }

    private void connectFailed(Throwable cause, long nextAttemptNanos) {
        connectFailure = cause;
        lastFailure = cause;
        retryAt = nextAttemptNanos;
    }

    /** As {@link dev.sluice.redis.RedisSluice#whenConnected}. */
    public CompletableFuture<Void> whenConnected() {
        return connector == null ? CompletableFuture.completedFuture(null) : connector.whenConnected();
    }

    /** As {@link dev.sluice.redis.RedisSluice#connectFailure}. */
    public Optional<Throwable> connectFailure() {
        return connection == null ? Optional.ofNullable(connectFailure) : Optional.empty();
    }

    /** Why a call that needs Redis fails before the engine connected; {@code cause}: the last attempt's failure. */
    private SluiceException notConnected(Throwable cause) {
        String message = "Redis (" + description + ") is not reachable yet: the engine was built without waiting for"
                + " it, and connects in the background";
        return cause == null
                ? new SluiceException(message)
                : new SluiceException(message + "; its last attempt failed: " + cause.getMessage(), cause);
    }

    @Override
    public SluiceClock clock() {
        return clock;
    }

    @Override
    public RateLimiter limiter(String name, RatePolicy policy, LimiterOptions options) {
        checkOpen();
        return Limits.open(
                listeners,
                limiters,
                name,
                policy,
                options,
                RateLimiter.class,
                n -> new RedisRateLimiter(this, n, policy, options));
    }

    @Override
    public ConcurrencyLimiter concurrencyLimiter(String name, ConcurrencyLimit policy, LimiterOptions options) {
        checkOpen();
        return Limits.open(
                listeners,
                limiters,
                name,
                policy,
                options,
                ConcurrencyLimiter.class,
                n -> new RedisConcurrencyLimiter(this, n, policy, options));
    }

    /**
     * Limiters in this process for the shares of an outage: the Redis limiter they stand in for tells its
     * listeners, so theirs hear nothing.
     */
    private InMemoryLimiters fallbackLimiters() {
        return new InMemoryLimiters(this, clock, new EngineListeners(this, this::isClosed));
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> JobQueue<T> queue(String name, Codec<T> codec, QueueOptions options) {
        checkOpen();
        QueueChecks.checkQueue(name, codec, options);
        if (connection == null) {
            throw notConnected(connectFailure);
        }
        RedisJobQueue<?> queue =
                listeners.queue(queues, name, n -> registered(RedisJobQueue.open(this, n, codec, options)), opened -> {
                    if (!opened.codec().name().equals(codec.name())) {
                        throw QueueChecks.otherCodec(
                                name, "is open", opened.codec().name(), codec.name());
                    }
                    if (closed.get()) {
                        opened.closeWorkers();
                        opened.closeEvents();
                        throw Limits.closed(this);
                    }
                });
        return (JobQueue<T>) queue;
    }

    /** Every queue's workers, closed when the engine closes. */
    private final ConcurrentHashMap<String, RedisJobQueue<?>> queues = new ConcurrentHashMap<>();

    /** The queues {@link #existingQueue} opened that this process had not, closed when the engine closes. */
    private final ConcurrentHashMap<String, RedisJobQueue<?>> views = new ConcurrentHashMap<>();

    /** The engine's list of its queues in Redis. */
    private final QueueRegistry registry;

    /** Notes {@code queue}, just opened, among the engine's queues ({@link #queueNames}). */
    private <Q extends RedisJobQueue<?>> Q registered(Q queue) {
        register(queue.name());
        return queue;
    }

    /** Notes queue {@code name}, opened or restored, among the engine's queues ({@link #queueNames}). */
    void register(String name) {
        registry.add(name);
    }

    @Override
    public List<String> queueNames() {
        checkOpen();
        if (connection == null) {
            throw notConnected(connectFailure);
        }
        return registry.names();
    }

    @Override
    public Optional<JobQueue<?>> existingQueue(String name) {
        checkOpen();
        Limits.checkName("queue", name);
        if (connection == null) {
            throw notConnected(connectFailure);
        }
        RedisJobQueue<?> held = queues.get(name);
        if (held == null) {
            held = views.get(name);
        }
        if (held != null) {
            return Optional.of(held);
        }
        Optional<RedisJobQueue<byte[]>> found = RedisJobQueue.existing(this, name);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        RedisJobQueue<?> raced = views.putIfAbsent(name, found.get());
        if (closed.get()) {
            views.remove(name);
            throw Limits.closed(this);
        }
        return Optional.of(raced != null ? raced : found.get());
    }

    /**
     * Removes every key of {@code queue}, which its script found without workers (or was told to force), step by step,
     * and forgets it: the engine no longer lists it, and opening it again creates it anew.
     */
    void obliterate(RedisJobQueue<?> queue) {
        queues.remove(queue.name(), queue);
        views.remove(queue.name(), queue);
        registry.remove(queue.name());
    }

    @Override
    public <C> LimitChain.Builder<C> chain() {
        checkOpen();
        return new ChainBuilder<>(layers -> {
            checkOpen();
            return new RedisChain<>(this, layers);
        });
    }

    @Override
    public void addListener(EngineListener listener) {
        listeners.add(listener, limiters.values(), queues.values());
    }

    @Override
    public boolean removeListener(EngineListener listener) {
        return listeners.remove(listener);
    }

    /** Closes the connection (and the client, if the engine made it); a second call does nothing. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        listeners.awaitMakings();
        limiters.clear();
        listeners.clear();
        List<CompletableFuture<Void>> closing = new java.util.ArrayList<>();
        List<RedisJobQueue<?>> open = new java.util.ArrayList<>(queues.values());
        open.addAll(views.values());
        for (RedisJobQueue<?> queue : open) {
            closing.add(queue.closeWorkers());
        }
        try {
            CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new)).get(35, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // a worker that does not close in time keeps its jobs' leases, which run out: nothing is lost
        }
        for (RedisJobQueue<?> queue : open) {
            queue.stats.writeStatsQuietly();
            queue.closeEvents();
        }
        queues.clear();
        views.clear();
        fallback.close();
        if (connector != null) {
            connector.close();
        }
        if (connection != null) {
            new Connector.Opened(connection, queueConnection, replicaWait).close();
        }
    }

    /** Whether {@link #close()} was called. */
    boolean isClosed() {
        return closed.get();
    }

    /** Fails if the engine is closed. */
    void checkOpen() {
        if (closed.get()) {
            throw Limits.closed(this);
        }
    }

    @Override
    public String toString() {
        return "RedisSluice[" + description + ", prefix " + keyPrefix + "]";
    }

    /** The time argument for scripts: {@link LimitScript#REDIS_TIME} (Redis reads its own clock) except in tests. */
    long scriptNow() {
        return scriptClock == null ? LimitScript.REDIS_TIME : scriptClock.nanos();
    }

    /** The limiters in this process that hold fallback shares during this outage. */
    InMemoryLimiters fallback() {
        return fallback;
    }

    /** Whether calls should skip Redis now, because it failed recently and no retry is due. */
    boolean skipping() {
        if (!down) {
            return false;
        }
        return clock.nanos() < retryAt || connection == null || !probing.compareAndSet(false, true);
    }

    /** Nanoseconds until Redis will be tried again; at least 1. */
    long nanosUntilRetry() {
        return Math.max(1, retryAt - clock.nanos());
    }

    Throwable lastFailure() {
        return lastFailure;
    }

    /**
     * Runs the limit script once: one round trip, unless Redis lost the script (restart, failover), when it is
     * sent whole once.
     *
     * @return the reply, or null if Redis is unavailable (the caller answers by its policy)
     * @throws SluiceException if Redis refused the call for a reason other than being unavailable
     */
    <T> T run(ScriptOutputType type, String[] keys, String[] args) {
        try {
            byte[][] keyBytes = bytes(keys);
            byte[][] argBytes = bytes(args);
            T reply;
            try {
                reply = await(connection.scripting.<T>evalsha(LimitScript.SHA, type, keyBytes, argBytes));
            } catch (RedisNoScriptException lost) {
                reply = await(connection.scripting.<T>eval(LimitScript.SOURCE, type, keyBytes, argBytes));
            }
            succeeded();
            return reply;
        } catch (Unavailable e) {
            failed(e.getCause());
            return null;
        } catch (RuntimeException e) {
            probing.set(false);
            throw e;
        }
    }

    /**
     * As {@link #run}, without blocking the caller: the future completes when Redis answers, with null if Redis
     * is unavailable or does not answer within the command timeout, or with the {@link SluiceException} of a
     * refusal.
     */
    <T> CompletableFuture<T> runAsync(ScriptOutputType type, String[] keys, String[] args) {
        byte[][] keyBytes = bytes(keys);
        byte[][] argBytes = bytes(args);
        CompletableFuture<T> result = new CompletableFuture<>();
        send(() -> connection.scripting.<T>evalsha(LimitScript.SHA, type, keyBytes, argBytes))
                .whenComplete((reply, failure) -> {
                    if (failure != null && classify(failure) instanceof RedisNoScriptException) {
                        send(() -> connection.scripting.<T>eval(LimitScript.SOURCE, type, keyBytes, argBytes))
                                .whenComplete((again, failureAgain) -> settle(result, again, failureAgain));
                    } else {
                        settle(result, reply, failure);
                    }
                });
        return result;
    }

    /** A command's reply, failing with a {@link TimeoutException} once the command timeout has passed. */
    private <T> CompletableFuture<T> send(Supplier<RedisFuture<T>> command) {
        RedisFuture<T> future;
        try {
            future = command.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<T> reply = future.toCompletableFuture().copy().orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
        reply.whenComplete((ignored, failure) -> {
            if (failure instanceof TimeoutException) {
                future.cancel(true);
            }
        });
        return reply;
    }

    private <T> void settle(CompletableFuture<T> result, T reply, Throwable failure) {
        if (failure == null) {
            succeeded();
            result.complete(reply);
            return;
        }
        RuntimeException cause = classify(failure);
        if (cause instanceof Unavailable) {
            failed(cause.getCause());
            result.complete(null);
        } else {
            probing.set(false);
            result.completeExceptionally(cause);
        }
    }

    private static final byte[] EMPTY = new byte[0];
    private static final byte[] ONE = {'1'};

    private static byte[][] bytes(String[] strings) {
        byte[][] bytes = new byte[strings.length][];
        for (int i = 0; i < strings.length; i++) {
            String string = strings[i];
            bytes[i] = string.isEmpty() ? EMPTY : string.equals("1") ? ONE : string.getBytes(StandardCharsets.UTF_8);
        }
        return bytes;
    }

    private void succeeded() {
        if (down) {
            down = false;
            fallback = fallbackLimiters();
            probing.set(false);
        }
    }

    private void failed(Throwable cause) {
        lastFailure = cause;
        retryAt = clock.nanos() + retryIntervalNanos;
        down = true;
        probing.set(false);
    }

    /** Whether Redis is considered unavailable right now. */
    boolean isDown() {
        return down;
    }

    /**
     * The reply, within the command timeout. An interrupt does not cut the wait short (it is kept for the caller
     * to see): the script may already have taken permits, and the caller should learn the decision.
     */
    <T> T await(RedisFuture<T> future) {
        long deadline = System.nanoTime() + timeoutNanos;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return connection.reply(future, deadline - System.nanoTime());
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (TimeoutException e) {
            future.cancel(true);
            throw classify(e);
        } catch (ExecutionException | RuntimeException e) {
            throw classify(e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * What a failed call means: the lost script's {@link RedisNoScriptException} (to send it whole), a {@link
     * SluiceException} for a refusal, else {@link Unavailable}.
     */
    private RuntimeException classify(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof ExecutionException || cause instanceof CompletionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof TimeoutException || cause instanceof RedisCommandTimeoutException) {
            return new Unavailable(new SluiceException(
                    "Redis (" + description + ") did not answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
                            + " ms",
                    cause));
        }
        if (cause instanceof RedisNoScriptException noScript) {
            return noScript;
        }
        if (cause instanceof RedisCommandExecutionException refused && !isUnavailable(refused)) {
            return new SluiceException(
                    "Redis (" + description + ") refused the script: " + refused.getMessage(), refused);
        }
        return new Unavailable(cause);
    }

    private static boolean isUnavailable(RedisCommandExecutionException refused) {
        String message = refused.getMessage() == null ? "" : refused.getMessage();
        for (String code : UNAVAILABLE_ERRORS) {
            if (message.startsWith(code)) {
                return true;
            }
        }
        return false;
    }

    /** The calls of the queue library, on the engine's connection for queues. */
    QueueLibrary queueLibrary() {
        return queueLibrary;
    }

    /** The connection queues' calls go through: its own, or the limiters' when it has none. */
    Connection queueConnection() {
        return queueConnection;
    }

    /** How writes wait for replicas; null when they do not. */
    ReplicaWait replicaWait() {
        return replicaWait;
    }

    /** Redis as messages name it: its URL without the password. */
    String description() {
        return description;
    }

    /** The command timeout, in nanoseconds. */
    long timeoutNanos() {
        return timeoutNanos;
    }

    /** How long limiters answer without Redis after it failed, in nanoseconds: the longest an event reader backs off. */
    long retryIntervalNanos() {
        return retryIntervalNanos;
    }

    /** Whether Redis is a cluster. */
    boolean cluster() {
        return cluster;
    }

    /** The key prefix of every key this engine writes. */
    String keyPrefix() {
        return keyPrefix;
    }

    /** Redis could not answer: down, unreachable, too slow, or busy. */
    static final class Unavailable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unavailable(Throwable cause) {
            super(null, cause, false, false);
        }
    }
}
