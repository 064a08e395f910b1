package dev.sluice.internal.queue;

/**
 * Where a group belongs, as a function of its counts, its limits and {@code now} (engine nanoseconds): in the
 * ready ring, parked until a time (its own rate-limit pause, or its rate), held until one of its jobs ends (its
 * concurrency), or released (it holds nothing and nothing holds it). A pause or a park ending at {@code t} no
 * longer holds at {@code t}.
 */
final class GroupRules {
    private GroupRules() {}

    /** Where a group is. */
    enum Place {
        /** It may start a job now. */
        READY,
        /** It waits for a time: {@link #until}. */
        PARKED,
        /** Its running jobs fill its concurrency: it waits for one of them to end. */
        HELD,
        /** Nothing waits in it, but it still holds delayed or running jobs or a pause: it stays out of the ring. */
        IDLE,
        /** It holds nothing: the queue may forget it. */
        RELEASED
    }

    /** Where a group with these counts and limits belongs at {@code now}. */
    static Place place(
            int waiting, int delayed, int active, int concurrency, long pausedUntil, long parkedUntil, long now) {
        if (waiting == 0) {
            return isReleasable(0, delayed, active, pausedUntil, parkedUntil, now) ? Place.RELEASED : Place.IDLE;
        }
        if (active >= concurrency) {
            return Place.HELD;
        }
        return until(pausedUntil, parkedUntil) > now ? Place.PARKED : Place.READY;
    }

    /** Whether a group with these counts holds nothing at {@code now}: no job, no pause, no park. */
    static boolean isReleasable(int waiting, int delayed, int active, long pausedUntil, long parkedUntil, long now) {
        return waiting == 0 && delayed == 0 && active == 0 && pausedUntil <= now && parkedUntil <= now;
    }

    /** Until when a group paused until {@code pausedUntil} and parked until {@code parkedUntil} waits. */
    static long until(long pausedUntil, long parkedUntil) {
        return Math.max(pausedUntil, parkedUntil);
    }

    /** When a group whose rate asks it to wait {@code rateWait} nanoseconds at {@code now} may start again. */
    static long parkedForRate(long rateWait, long now) {
        return AttemptRules.saturatedAdd(now, rateWait);
    }

    /** The pause that a rate limit until {@code until} leaves on a group (or the queue) paused until {@code current}. */
    static long pausedUntil(long current, long until) {
        return Math.max(current, until);
    }
}
