package dev.sluice.internal.limit;

import dev.sluice.limit.Decision;
import dev.sluice.limit.LimiterListener;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A limiter's listener as the engine calls it: whatever the user's listener throws is logged and goes no
 * further, so it never changes a decision. The first failure of a limiter's listener is logged as a warning,
 * later ones at debug level, so a listener that always throws cannot flood the log.
 */
public final class SafeListener implements LimiterListener {
    /** Made on the first failure, so that limiters whose listeners never throw never start SLF4J. */
    private static final class Log {
        static final Logger LOG = LoggerFactory.getLogger(SafeListener.class);
    }

    private final LimiterListener listener;
    private final AtomicBoolean warned = new AtomicBoolean();

    private SafeListener(LimiterListener listener) {
        this.listener = listener;
    }

    /**
     * {@code listener}, made safe to call; {@link LimiterListener#none()} as it is. Its first failure is a warning
     * whichever limiter it heard, later ones are at debug level.
     */
    public static LimiterListener of(LimiterListener listener) {
        return listener == LimiterListener.none() ? listener : new SafeListener(listener);
    }

    @Override
    public void onAllowed(String limiter, String key, long permits, Decision decision) {
        try {
            listener.onAllowed(limiter, key, permits, decision);
        } catch (RuntimeException e) {
            failed(limiter, "onAllowed", e);
        }
    }

    @Override
    public void onDenied(String limiter, String key, long permits, Decision decision) {
        try {
            listener.onDenied(limiter, key, permits, decision);
        } catch (RuntimeException e) {
            failed(limiter, "onDenied", e);
        }
    }

    @Override
    public void onEvicted(String limiter, String key) {
        try {
            listener.onEvicted(limiter, key);
        } catch (RuntimeException e) {
            failed(limiter, "onEvicted", e);
        }
    }

    @Override
    public void onKeyTableFull(String limiter, String key) {
        try {
            listener.onKeyTableFull(limiter, key);
        } catch (RuntimeException e) {
            failed(limiter, "onKeyTableFull", e);
        }
    }

    @Override
    public void onUnavailable(String limiter, Throwable cause) {
        try {
            listener.onUnavailable(limiter, cause);
        } catch (RuntimeException e) {
            failed(limiter, "onUnavailable", e);
        }
    }

    @Override
    public void onRecovered(String limiter) {
        try {
            listener.onRecovered(limiter);
        } catch (RuntimeException e) {
            failed(limiter, "onRecovered", e);
        }
    }

    private void failed(String limiter, String event, RuntimeException e) {
        String message =
                "listener " + listener + " of limiter '" + limiter + "' threw from " + event + "; the decision stands";
        if (warned.compareAndSet(false, true)) {
            Log.LOG.warn("{} (later failures of this listener are logged at debug level)", message, e);
        } else {
            Log.LOG.debug(message, e);
        }
    }
}
