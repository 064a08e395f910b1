package dev.sluice.server.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.Sluice;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard's one snapshot, shared by every viewer: built at most about once a second however many pages poll
 * or stream, so that viewers do not multiply the engine's reads. While at least one stream watches, a scheduler
 * builds a new snapshot every second and wakes the streams; with none, nothing runs and a poll builds one if the
 * latest is older than a second.
 *
 * <p>Thread-safe.
 */
public final class DashboardFeed implements AutoCloseable {
    /** How often a snapshot is built while someone watches. */
    public static final long INTERVAL_MS = 1_000;

    private static final Logger LOG = LoggerFactory.getLogger(DashboardFeed.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(INTERVAL_MS);

    /** A built snapshot: its id (1, 2, ...: the number of builds so far), when it was built, and its JSON. */
    public record Snapshot(long id, long builtAtNanos, String json) {}

    private final SnapshotBuilder builder;
    private final DashboardHistory history = new DashboardHistory();
    private final LongSupplier nanoTime;
    private final ReentrantLock building = new ReentrantLock();
    private final Object watch = new Object();

    private volatile Snapshot latest;
    private volatile boolean failing;

    /** Guarded by {@link #watch}. */
    private int watchers;

    private ScheduledExecutorService ticker;
    private boolean closed;

    /**
     * A feed over {@code sluice}, whose snapshots' {@code engine} part holds {@code sections} and whose {@code
     * limiters} part is what {@code limiters} counted.
     *
     * @param nanoTime a monotonic clock in nanoseconds, such as {@code System::nanoTime}
     */
    public DashboardFeed(Sluice sluice, List<EngineSection> sections, LimiterTally limiters, LongSupplier nanoTime) {
        this.builder = new SnapshotBuilder(sluice, sections, limiters, history);
        this.nanoTime = nanoTime;
    }

    /**
     * The latest snapshot if it is younger than {@code maxAgeNanos}, else a new one. Callers at the same time wait for
     * one build and share it.
     *
     * @throws dev.sluice.SluiceException if the engine cannot be reached
     */
    public Snapshot latest(long maxAgeNanos) {
        Snapshot snapshot = latest;
        if (snapshot != null && nanoTime.getAsLong() - snapshot.builtAtNanos() < maxAgeNanos) {
            return snapshot;
        }
        building.lock();
        try {
            snapshot = latest;
            long now = nanoTime.getAsLong();
            if (snapshot != null && now - snapshot.builtAtNanos() < maxAgeNanos) {
                return snapshot;
            }
            var json = builder.build(now);
            snapshot = new Snapshot(json.get("id").asLong(), now, text(json));
            synchronized (watch) {
                latest = snapshot;
                watch.notifyAll();
            }
            return snapshot;
        } finally {
            building.unlock();
        }
    }

    /**
     * The latest snapshot, built now if it is a second old or older.
     *
     * @throws dev.sluice.SluiceException if the engine cannot be reached
     */
    public Snapshot latest() {
        return latest(INTERVAL_NANOS);
    }

    /** The history of the last snapshots, as {@link DashboardHistory#json} writes it. */
    public String history() {
        return text(history.json(INTERVAL_MS));
    }

    /** Counts one more viewer; the first starts the scheduler. */
    public void watch() {
        synchronized (watch) {
            if (closed) {
                return;
            }
            if (watchers++ == 0) {
                ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
                    Thread thread = new Thread(task, "sluice-dashboard-snapshots");
                    thread.setDaemon(true);
                    return thread;
                });
                executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
                executor.scheduleAtFixedRate(this::tick, 0, INTERVAL_MS, TimeUnit.MILLISECONDS);
                ticker = executor;
            }
        }
    }

    /** Counts one viewer less; the last stops the scheduler. */
    public void unwatch() {
        synchronized (watch) {
            if (watchers > 0 && --watchers == 0 && ticker != null) {
                ticker.shutdown();
                ticker = null;
            }
        }
    }

    /** How many viewers watch now. */
    public int watchers() {
        synchronized (watch) {
            return watchers;
        }
    }

    /**
     * Waits for a snapshot newer than {@code afterId}.
     *
     * @return it, or null if none came within {@code timeoutNanos} or the feed closed
     * @throws InterruptedException if the waiting thread is interrupted
     */
    public Snapshot awaitNewer(long afterId, long timeoutNanos) throws InterruptedException {
        long deadline = nanoTime.getAsLong() + timeoutNanos;
        synchronized (watch) {
            while (!closed && (latest == null || latest.id() <= afterId)) {
                long left = deadline - nanoTime.getAsLong();
                if (left <= 0) {
                    return null;
                }
                TimeUnit.NANOSECONDS.timedWait(watch, left);
            }
            return closed ? null : latest;
        }
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        synchronized (watch) {
            return closed;
        }
    }

    /** Builds a snapshot unless one is fresh: half an interval, so the scheduler's own are always rebuilt. */
    private void tick() {
        try {
            latest(INTERVAL_NANOS / 2);
            if (failing) {
                LOG.info("dashboard snapshots are built again");
                failing = false;
            }
        } catch (RuntimeException e) {
            if (!failing) {
                LOG.warn("dashboard snapshot not built, the engine could not be read: {}", e.getMessage());
                failing = true;
            }
        }
    }

    /** Stops the scheduler and ends every wait; streams then close. */
    @Override
    public void close() {
        synchronized (watch) {
            closed = true;
            if (ticker != null) {
                ticker.shutdown();
                ticker = null;
            }
            watch.notifyAll();
        }
    }

    private static String text(Object json) {
        try {
            return JSON.writeValueAsString(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the dashboard's JSON could not be written: " + e.getMessage(), e);
        }
    }
}
