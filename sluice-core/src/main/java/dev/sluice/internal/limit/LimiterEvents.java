package dev.sluice.internal.limit;

import dev.sluice.limit.Decision;
import dev.sluice.limit.LimiterListener;

/**
 * What one limiter tells, in both engines: its own listener (from its options), then each of its engine's
 * {@link dev.sluice.EngineListener}s; each made safe to call, so nothing they throw changes a decision.
 */
public final class LimiterEvents implements LimiterListener {
    private final LimiterListener own;
    private final EngineListeners engine;

    LimiterEvents(LimiterListener own, EngineListeners engine) {
        this.own = own;
        this.engine = engine;
    }

    /** Whether no listener hears this limiter now, so that a decision need not be built to tell it. */
    public boolean quiet() {
        return own == LimiterListener.none() && engine.decisionListeners().length == 0;
    }

    @Override
    public void onAllowed(String limiter, String key, long permits, Decision decision) {
        own.onAllowed(limiter, key, permits, decision);
        for (LimiterListener listener : engine.decisionListeners()) {
            listener.onAllowed(limiter, key, permits, decision);
        }
    }

    @Override
    public void onDenied(String limiter, String key, long permits, Decision decision) {
        own.onDenied(limiter, key, permits, decision);
        for (LimiterListener listener : engine.decisionListeners()) {
            listener.onDenied(limiter, key, permits, decision);
        }
    }

    @Override
    public void onEvicted(String limiter, String key) {
        own.onEvicted(limiter, key);
        for (LimiterListener listener : engine.decisionListeners()) {
            listener.onEvicted(limiter, key);
        }
    }

    @Override
    public void onKeyTableFull(String limiter, String key) {
        own.onKeyTableFull(limiter, key);
        for (LimiterListener listener : engine.decisionListeners()) {
            listener.onKeyTableFull(limiter, key);
        }
    }

    @Override
    public void onUnavailable(String limiter, Throwable cause) {
        own.onUnavailable(limiter, cause);
        for (LimiterListener listener : engine.decisionListeners()) {
            listener.onUnavailable(limiter, cause);
        }
    }

    @Override
    public void onRecovered(String limiter) {
        own.onRecovered(limiter);
        for (LimiterListener listener : engine.decisionListeners()) {
            listener.onRecovered(limiter);
        }
    }
}
