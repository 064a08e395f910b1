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
 * Waits in Redis, on a connection of its own, for the queue's wake-up marker while workers of this process wait
 * for work, and tells them to claim when it comes. The queue script adds the marker when a job may start that could
 * not before, while some process has noted idle workers (see "Idle workers" in {@code queue.lua}). Every wait ends
 * within {@link Connection#EVENT_BLOCK} at most and tells the workers to claim once more, which renews that note and
 * finds what no marker announced (another process's lease running out).
 */
final class WorkWatcher {
    private static final Logger LOG = LoggerFactory.getLogger(WorkWatcher.class);
    /** How long the watcher's connection stays open after the last worker of this process stopped waiting. */
    private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(30);

    private static final byte[] MEMBER = {'0'};

    private final RedisJobQueue<?> queue;
    private final byte[] marker;
    private final Object lock = new Object();
    /** How many slots of this process's workers wait for work now. */
    private int waiting;

    private Thread thread;
    private boolean stopped;
    private Connection.Dedicated dedicated;
    private long blockMillis;

    WorkWatcher(RedisJobQueue<?> queue) {
        this.queue = queue;
        this.marker = (new String(queue.key, StandardCharsets.UTF_8) + ":mk").getBytes(StandardCharsets.UTF_8);
        this.blockMillis = queue.engine.connection.eventBlockMillis;
    }

    /** A slot starts waiting for work: the watcher waits in Redis until it stops. */
    void waitStarts() {
        synchronized (lock) {
            waiting++;
            if (stopped) {
                return;
            }
            if (thread == null) {
                thread = Thread.ofVirtual()
                        .name("sluice-" + queue.name() + "-work-watcher")
                        .start(this::watch);
            } else {
                lock.notifyAll();
            }
        }
    }

    /** The slot that called {@link #waitStarts} no longer waits. */
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
                        LOG.info("{} watches for work in Redis again", queue);
                    }
                    backoff = 0;
                    if (popped != null && !popped.isEmpty() && !anyWaiting()) {
                        // this process's workers found work meanwhile: the wake-up is another process's
                        await(queue.engine.connection.keys.zadd(marker, 0, MEMBER), 0);
                    }
                    queue.signal();
                } catch (SluiceException | RedisException e) {
                    if (isStopped()) {
                        return;
                    }
                    if (e.getCause() instanceof RedisCommandTimeoutException && blockMillis > 1) {
                        // the application's client times out blocking commands sooner than they block
                        blockMillis = Math.max(1, blockMillis / 2);
                        continue;
                    }
                    backoff = Math.min(
                            Math.max(TimeUnit.MILLISECONDS.toNanos(10), backoff * 2),
                            queue.engine.retryIntervalNanos());
                    if (!failing) {
                        failing = true;
                        LOG.warn(
                                "{} cannot watch for work in Redis; its workers claim every {} ms meanwhile: {}",
                                queue,
                                TimeUnit.NANOSECONDS.toMillis(queue.engine.retryIntervalNanos()),
                                e.getMessage());
                    } else {
                        LOG.debug("{} still cannot watch for work in Redis", queue, e);
                    }
                    TimeUnit.NANOSECONDS.sleep(backoff);
                    queue.signal();
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
     * Waits until some slot waits for work; false if none did for {@link #LINGER_NANOS} or the watcher stopped
     * (the thread ends, and the next slot to wait starts another).
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
            return future.get(timeout, TimeUnit.NANOSECONDS);
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
