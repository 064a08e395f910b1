package dev.sluice.queue;

import dev.sluice.time.Arguments;
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

    /**
     * Validates the bounds.
     *
     * @throws IllegalArgumentException if {@code maxCount} is negative, or {@code maxAge} is not positive or
     *     longer than about 73 years; the message names the value and the range
     */
    public Retention {
        Arguments.inRange("retention maxCount", maxCount, 0, Integer.MAX_VALUE);
        if (maxAge != null) {
            Durations.positive("retention maxAge", maxAge);
        }
    }

    /**
     * Keep every finished job (memory grows with them: prefer a bound).
     *
     * @return no count and no age bound
     */
    public static Retention keepAll() {
        return ALL;
    }

    /**
     * Remove a job as soon as it finishes.
     *
     * @return a count bound of 0
     */
    public static Retention keepNone() {
        return NONE;
    }

    /**
     * Keep the newest {@code count} finished jobs.
     *
     * @param count 0 to {@link Integer#MAX_VALUE}
     * @return the retention, with no age bound
     * @throws IllegalArgumentException if {@code count} is negative
     */
    public static Retention keepLast(int count) {
        return new Retention(count, null);
    }

    /**
     * Keep finished jobs for {@code age} after they finished: a job is removed when its age reaches {@code age}.
     *
     * @param age positive, at most about 73 years; {@code null} for no age bound ({@link #keepAll()})
     * @return the retention, with no count bound
     * @throws IllegalArgumentException if {@code age} is not positive or longer
     */
    public static Retention keepFor(Duration age) {
        return new Retention(Integer.MAX_VALUE, age);
    }

    /**
     * This retention, bounded by {@code age} instead of its own age bound.
     *
     * @param age positive, at most about 73 years; {@code null} for no age bound
     * @return the retention with this count bound and that age bound
     * @throws IllegalArgumentException if {@code age} is not positive or longer
     */
    public Retention andFor(Duration age) {
        return new Retention(maxCount, age);
    }

    /**
     * The retention for people, as the factories would make it.
     *
     * @return for example {@code Retention.keepLast(1000)}, {@code Retention.keepFor(7 d)} or {@code
     *     Retention.keepAll()}
     */
    @Override
    public String toString() {
        if (maxAge == null) {
            return maxCount == Integer.MAX_VALUE
                    ? "Retention.keepAll()"
                    : maxCount == 0 ? "Retention.keepNone()" : "Retention.keepLast(" + maxCount + ")";
        }
        String age = "(" + Durations.text(maxAge) + ")";
        return maxCount == Integer.MAX_VALUE
                ? "Retention.keepFor" + age
                : "Retention.keepLast(" + maxCount + ").andFor" + age;
    }
}
