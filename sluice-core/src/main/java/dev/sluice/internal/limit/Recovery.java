package dev.sluice.internal.limit;

/**
 * How a rate comes back after its scope was paused by a rate-limited result: not with every job that waited at
 * once, but at a quarter of the rate in the first {@link #STEP} after the pause, half in the next, then whole. The
 * limiter's state carries over from step to step (what the scope owes is owed at the new rate), so a burst saved up
 * during the pause shrinks with the rate. The Redis engine's copy is in queue-rates.lua.
 */
public final class Recovery {
    /** How long each step of the ramp lasts: one second. */
    public static final long STEP = 1_000_000_000L;

    private Recovery() {}

    /**
     * The share of its rate a scope runs at {@code now}, when its last pause by a rate-limited result ended at
     * {@code pausedUntil} ({@link Long#MIN_VALUE}: never paused): 1/4, 1/2 or 1 (1 also while still paused, as
     * nothing starts then).
     */
    public static double share(long pausedUntil, long now) {
        long since = now - pausedUntil;
        if (since < 0 || since >= 2 * STEP) {
            // before the pause's end nothing starts at all; or the subtraction overflowed: never paused
            return 1;
        }
        return since < STEP ? 0.25 : 0.5;
    }

    /**
     * The wait of a start that the rate refused at {@code now}, cut short where the ramp's next step comes sooner
     * (the faster rate may allow it then).
     */
    public static long waitWithin(long wait, long pausedUntil, long now) {
        long since = now - pausedUntil;
        if (since < 0 || since >= 2 * STEP) {
            return wait;
        }
        long nextStep = (since < STEP ? STEP : 2 * STEP) - since;
        return Math.min(wait, nextStep);
    }
}
