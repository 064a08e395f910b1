package dev.sluice.queue;

import java.time.Duration;

/**
 * How many finished jobs (completed, or failed) a queue keeps, and for how long. A job beyond either bound
 * is removed; its id is then free again unless {@link JobOptions#deduplicateFor} still holds it.
 *
 * @param maxCount the most jobs kept, 0 to {@link Integer#MAX_VALUE}; the newest are kept
 * @param maxAge the longest a job is kept after it finished; {@code null} for no age limit. A job finished at
 *     {@code f} is removed at exactly {@code f + maxAge} on the engine clock (kept until the nanosecond before)
 */
public record Retention(int maxCount, Duration maxAge) {
    private static final Retention ALL = new Retention(Integer.MAX_VALUE, null);
    private static final Retention NONE = new Retention(0, null);

    /** Validates the bounds; each {@link IllegalArgumentException} names the bad value and the range. */
    public Retention {
        Durations.inRange("retention maxCount", maxCount, 0, Integer.MAX_VALUE);
        if (maxAge != null) {
            Durations.positive("retention maxAge", maxAge);
        }
    }

    /** Keep every finished job (memory grows with them: prefer a bound). */
    public static Retention keepAll() {
        return ALL;
    }

    /** Remove a job as soon as it finishes. */
    public static Retention keepNone() {
        return NONE;
    }

    /** Keep the newest {@code count} finished jobs. */
    public static Retention keepLast(int count) {
        return new Retention(count, null);
    }

    /** Keep finished jobs for {@code age} after they finished: a job is removed when its age reaches {@code age}. */
    public static Retention keepFor(Duration age) {
        return new Retention(Integer.MAX_VALUE, age);
    }

    /** This retention, also bounded by {@code age}. */
    public Retention andFor(Duration age) {
        return new Retention(maxCount, age);
    }
}
