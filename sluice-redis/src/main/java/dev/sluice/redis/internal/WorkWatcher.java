package dev.sluice.redis.internal;

import dev.sluice.SluiceException;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits in Redis, on a connection of its own, for one of the queue's wake-up markers while threads of this process
 * wait for what it announces (workers for work, producers for room), and tells them to look again when it comes (one
 * idle worker slot, which passes the word on if it starts a job: see {@link IdleSlots}; every waiting producer). The
 * queue script adds the marker when that happened, while some process has noted that it waits (see "Idle workers"
 * in {@code queue-claim.lua}). Every wait ends within {@link Connection#EVENT_BLOCK} at most and tells the waiting threads
 * to look once more, which renews that note and finds what no marker announced (another process's lease running
 * out).
 */
final class WorkWatcher {
    private static final Logger LOG = LoggerFactory.getLogger(WorkWatcher.class);
    /** How long the watcher's connection stays open after the last worker of this process stopped waiting. */
    private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(30);

    private static final byte[] MEMBER = {'0'};

    private final RedisJobQueue<?> queue;
    private final byte[] marker;
    /** What it watches for, in log messages and its thread's name: "work" or "room". */
    private final String what;
    /** Tells the waiting threads to look again. */
    private final Runnable tell;

    private final Object lock = new Object();
    /** How many threads of this process wait now. */
    private int waiting;

    private Thread thread;
    private boolean stopped;
    private Connection.Dedicated dedicated;
    private long blockMillis;

    /** Watches marker {@code <queue key>:<suffix>}, announcing {@code what} with {@code tell}. */
    WorkWatcher(RedisJobQueue<?> queue, String suffix, String what, Runnable tell) {
        this.queue = queue;
        this.what = what;
        this.tell = tell;
        this.marker = (new String(queue.key, StandardCharsets.UTF_8) + ":" + suffix).getBytes(StandardCharsets.UTF_8);
        this.blockMillis = queue.engine.connection.eventBlockMillis;
    }

    /** A thread starts waiting: the watcher waits in Redis until no thread does. */
    void waitStarts() {
        synchronized (lock) {
            waiting++;
            if (stopped) {
                return;
            }
            if (thread == null) {
                thread = Thread.ofVirtual()
                        .name("sluice-" + queue.name() + "-" + what + "-watcher")
                        .start(this::watch);
            } else {
                lock.notifyAll();
            }
        }
    }

    /**
     * Sets the marker, which wakes one process that waits for it (this one too), without waiting for Redis: for work
     * this process meant to take itself and no longer can. A failure is logged; the waiting processes' next look
     * (within {@link Connection#EVENT_BLOCK}) finds the work.
     */
    void mark() {
        queue.engine.connection.keys.zadd(marker, 0, MEMBER).whenComplete((added, failure) -> {
            if (failure != null) {
                LOG.debug("{} could not set its {} marker in Redis", queue, what, failure);
            }
        });
    }

    /** A thread that called {@link #waitStarts} no longer waits. */
    void waitEnds() {
        synchronized (lock) {
            waiting--;
        }
    }

    /** Stops for good (the queue closes); a wait in Redis is cut short. */
    void stop() {
        Thread running;
        synchronized (lock) {
            stopped = true;
            running = thread;
            lock.notifyAll();
        }
        Connection.Dedicated connection;
        synchronized (lock) {
            connection = dedicated;
        }
        if (connection != null) {
            connection.close();
        }
        if (running != null) {
            running.interrupt();
        }
    }

    private void watch() {
        long backoff = 0;
        boolean failing = false;
        Connection.Dedicated own = null;
        try {
            while (awaitWaiters()) {
                try {
                    if (own == null) {
                        own = queue.engine.connection.openDedicated();
                        synchronized (lock) {
                            dedicated = own;
                            if (stopped) {
                                return;
                            }
                        }
                    }
                    KeyValue<byte[], ScoredValue<byte[]>> popped =
                            await(own.commands().bzpopmin(blockMillis / 1000.0, marker), blockMillis);
                    if (failing) {
                        failing = false;
                        // the workers and producers that wait report the outage and its end in their own words
                        LOG.debug("{} watches for {} in Redis again", queue, what);
                    }
                    backoff = 0;
                    if (popped != null && !popped.isEmpty() && !anyWaiting()) {
                        // nobody here waits any more: the wake-up is another process's
                        await(queue.engine.connection.keys.zadd(marker, 0, MEMBER), 0);
                    }
                    tell.run();
                } catch (SluiceException | RedisException e) {
                    if (isStopped()) {
                        return;
                    }
                    if (e.getCause() instanceof RedisCommandTimeoutException
                            && blockMillis > 1
                            && !queue.engine.connection.timesOutCommands) {
                        // the application's client times out blocking commands sooner than they block
                        blockMillis = Math.max(1, blockMillis / 2);
                        continue;
                    }
                    backoff = Math.min(
                            Math.max(TimeUnit.MILLISECONDS.toNanos(10), backoff * 2),
                            queue.engine.retryIntervalNanos());
                    if (!failing) {
                        failing = true;
                        LOG.debug(
                                "{} cannot watch for {} in Redis; it looks every {} ms meanwhile: {}",
                                queue,
                                what,
                                TimeUnit.NANOSECONDS.toMillis(queue.engine.retryIntervalNanos()),
                                e.getMessage());
                    } else {
                        LOG.debug("{} still cannot watch for {} in Redis", queue, what, e);
                    }
                    TimeUnit.NANOSECONDS.sleep(backoff);
                    tell.run();
                }
            }
        } catch (InterruptedException e) {
            // stopped
        } finally {
            if (own != null) {
                own.closeAndWait(Duration.ofSeconds(1));
            }
            synchronized (lock) {
                if (dedicated == own) {
                    dedicated = null;
                }
                if (thread == Thread.currentThread()) {
                    thread = null;
                }
            }
        }
    }

    /**
     * Waits until some thread waits; false if none did for {@link #LINGER_NANOS} or the watcher stopped (the
     * watcher's thread ends, and the next thread to wait starts another).
     */
    private boolean awaitWaiters() throws InterruptedException {
        synchronized (lock) {
            long deadline = System.nanoTime() + LINGER_NANOS;
            while (waiting == 0 && !stopped) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    thread = null;
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            if (stopped) {
                thread = null;
                return false;
            }
            return true;
        }
    }

    private boolean anyWaiting() {
        synchronized (lock) {
            return waiting > 0;
        }
    }

    private boolean isStopped() {
        synchronized (lock) {
            return stopped;
        }
    }

    private <V> V await(RedisFuture<V> future, long blockedMillis) throws InterruptedException {
        long timeout = queue.engine.timeoutNanos() + TimeUnit.MILLISECONDS.toNanos(blockedMillis);
        try {
            // the engine's own client fails it itself, after the timeout plus the longest block
            return queue.engine.connection.reply(future, timeout);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new SluiceException(
                    "Redis did not answer within " + TimeUnit.NANOSECONDS.toMillis(timeout) + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new SluiceException("Redis failed: " + cause.getMessage(), cause);
        }
    }
}
