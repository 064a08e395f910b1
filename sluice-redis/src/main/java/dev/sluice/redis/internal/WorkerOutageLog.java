package dev.sluice.redis.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's outages in its log: one WARN line when its calls first fail, naming the cause, and one INFO line once
 * one succeeds again; the failures between are at DEBUG, with their traces.
 */
final class WorkerOutageLog {
    /** The log of {@link RedisWorker}, whose outages these are. */
    private static final Logger LOG = LoggerFactory.getLogger(RedisWorker.class);

    private final Object worker;
    private final long retryIntervalNanos;
    /** Whether the last call failed. */
    private final AtomicBoolean unreachable = new AtomicBoolean();

    WorkerOutageLog(Object worker, long retryIntervalNanos) {
        this.worker = worker;
        this.retryIntervalNanos = retryIntervalNanos;
    }

    /** A call of the worker failed with {@code e}. */
    void failed(RuntimeException e) {
        if (unreachable.compareAndSet(false, true)) {
            LOG.warn(
                    "{} cannot reach Redis ({}); it tries again every {} ms and keeps its running jobs' endings"
                            + " until it can record them",
                    worker,
                    ConnectFailure.reason(e),
                    TimeUnit.NANOSECONDS.toMillis(retryIntervalNanos));
        } else {
            LOG.debug("{} still cannot reach Redis", worker, e);
        }
    }

    /** A call of the worker succeeded. */
    void succeeded() {
        if (unreachable.get() && unreachable.compareAndSet(true, false)) {
            LOG.info("{} reaches Redis again", worker);
        }
    }
}
