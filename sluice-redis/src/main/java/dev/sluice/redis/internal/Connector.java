package dev.sluice.redis.internal;

import dev.sluice.time.DurationText;
import dev.sluice.time.SluiceClock;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens an engine's connections: at once ({@link #open}), or in the background for an engine built to start
 * without Redis, one attempt every retry interval on the engine's clock until one succeeds or the engine closes.
 *
 * <p>An attempt is the same as connecting at build (the client, Lettuce's connect timeout, the server check), so
 * it blocks: it runs on a virtual thread of its own, never on the clock's thread or a caller's. The log has one
 * WARN line when the first attempt fails, naming the cause, and one INFO line once an attempt succeeds; the failed
 * attempts between are at DEBUG, with their traces.
 */
final class Connector {
    private static final Logger LOG = LoggerFactory.getLogger(RedisEngine.class);

    /**
     * The connection of limiters, and that of queue calls: the same one unless queue calls wait for replicas, which
     * {@code replicaWait} then confirms (else null).
     */
    record Opened(Connection connection, Connection queueConnection, ReplicaWait replicaWait) {
        void close() {
            try {
                if (queueConnection != connection) {
                    queueConnection.close();
                }
            } finally {
                connection.close();
            }
        }
    }

    /**
     * Connects as {@code settings} say and checks the server.
     *
     * @throws dev.sluice.SluiceException if Redis cannot be reached or is too old
     */
    static Opened open(RedisSettings settings) {
        Connection connection = Connection.open(settings);
        if (settings.waitReplicas() == 0) {
            return new Opened(connection, connection, null);
        }
        try {
            Connection queueConnection = connection.another();
            return new Opened(
                    connection,
                    queueConnection,
                    new ReplicaWait(
                            queueConnection,
                            settings.waitReplicas(),
                            settings.waitTimeout(),
                            settings.commandTimeout()));
        } catch (RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    private final RedisSettings settings;
    private final String description;
    private final SluiceClock clock;
    private final long intervalNanos;
    private final Consumer<Opened> connected;
    private final FailedAttempt failed;

    /** The attempt scheduled next; null while one runs. Guarded by this. */
    private SluiceClock.Timer next;

    /** Guarded by this. */
    private boolean closed;

    /** Attempts that failed so far; written by the attempts only, which run one at a time. */
    private int failures;

    /** Completes once an attempt succeeded; fails if the engine closes first. */
    private final CompletableFuture<Void> connectedOnce = new CompletableFuture<>();

    /** What the engine learns of a failed attempt. */
    interface FailedAttempt {
        /**
         * @param cause why it failed
         * @param nextAttemptNanos when, on the engine's clock, the next attempt is due
         */
        void failed(Throwable cause, long nextAttemptNanos);
    }

    /**
     * A connector for {@code settings}; {@link #start()} makes the first attempt.
     *
     * @param connected takes the connections of the attempt that succeeded, unless the engine closed first
     */
    Connector(RedisSettings settings, String description, Consumer<Opened> connected, FailedAttempt failed) {
        this.settings = settings;
        this.description = description;
        this.clock = settings.clock();
        this.intervalNanos = settings.retryInterval().toNanos();
        this.connected = connected;
        this.failed = failed;
    }

    /** Schedules the first attempt, as soon as the clock runs it. */
    synchronized void start() {
        next = clock.schedule(0, this::startAttempt);
    }

    private void startAttempt() {
        synchronized (this) {
            if (closed) {
                return;
            }
            next = null;
        }
        Thread.ofVirtual().name("sluice-redis-connect").start(this::attempt);
    }

    private void attempt() {
        Opened opened;
        try {
            opened = open(settings);
        } catch (RuntimeException e) {
            attemptFailed(e);
            return;
        }
        synchronized (this) {
            if (closed) {
                opened.close();
                return;
            }
            connected.accept(opened);
        }
        if (failures == 0) {
            LOG.info("connected to Redis ({})", description);
        } else {
            LOG.info(
                    "connected to Redis ({}) after {} failed attempt{}: limiters decide on Redis again, and queues can"
                            + " be opened",
                    description,
                    failures,
                    failures == 1 ? "" : "s");
        }
        connectedOnce.complete(null);
    }

    /**
     * Completes once an attempt succeeded, on the thread of that attempt; fails with an {@link
     * IllegalStateException} if the engine closes first. A copy: completing it changes nothing here.
     */
    CompletableFuture<Void> whenConnected() {
        return connectedOnce.copy();
    }

    private void attemptFailed(RuntimeException e) {
        failures++;
        if (failures == 1) {
            LOG.warn(
                    "{}; the engine started without Redis and tries to connect again every {}: until then every"
                            + " limiter answers by its WhenUnavailable policy, and opening a queue fails",
                    e.getMessage(),
                    DurationText.formatNanos(intervalNanos));
        } else {
            LOG.debug("still cannot connect to Redis ({}), attempt {}", description, failures, e);
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            failed.failed(e, clock.nanos() + intervalNanos);
            next = clock.schedule(intervalNanos, this::startAttempt);
        }
    }

    /**
     * Stops the attempts: the next one is cancelled, and one under way closes what it opened once it ends (within
     * Lettuce's connect timeout).
     */
    synchronized void close() {
        closed = true;
        connectedOnce.completeExceptionally(
                new IllegalStateException("the engine was closed before it connected to Redis (" + description + ")"));
        if (next != null) {
            next.cancel();
            next = null;
        }
    }
}
