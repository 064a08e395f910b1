package dev.sluice.internal.queue;

import dev.sluice.queue.Retention;
import java.time.Duration;

/**
 * Which finished jobs a queue keeps, and until when its ids de-duplicate, as functions of engine nanoseconds.
 * A boundary instant belongs to the state that follows it: a job kept for {@code age} is gone when its age
 * reaches {@code age}; an id remembered until {@code t} is free at {@code t}.
 */
public final class RetentionRules {
    private RetentionRules() {}

    /** No expiry. */
    static final long NEVER = Long.MAX_VALUE;

    /** When a job finished at {@code finishedAt} under {@code retention} expires; {@link #NEVER} with no age. */
    static long expiresAt(Retention retention, long finishedAt) {
        Duration age = retention.maxAge();
        return age == null ? NEVER : AttemptRules.saturatedAdd(finishedAt, age.toNanos());
    }

    /** Whether a job expiring at {@code expiresAt} is gone at {@code now}. */
    static boolean isExpired(long expiresAt, long now) {
        return expiresAt <= now;
    }

    /** How many of the oldest of {@code kept} finished jobs of one state a finish under {@code retention} evicts. */
    static long evictions(Retention retention, long kept) {
        return Math.max(0, kept - retention.maxCount());
    }

    /** The latest finish time that {@code clean(age)} removes at {@code now}: jobs at least {@code age} old. */
    public static long cleanCutoff(Duration age, long now) {
        return age.getSeconds() >= Long.MAX_VALUE / 4_000_000_000L ? Long.MIN_VALUE : now - age.toNanos();
    }

    /**
     * Until when the id of a job that finished at {@code finishedAt} keeps de-duplicating adds once the job is
     * removed: {@code finishedAt + window}; {@link Long#MIN_VALUE} (not at all) without a window.
     */
    static long rememberUntil(Duration window, long finishedAt) {
        return window == null ? Long.MIN_VALUE : AttemptRules.saturatedAdd(finishedAt, window.toNanos());
    }

    /** Whether an id remembered until {@code until} still de-duplicates at {@code now}. */
    static boolean isRemembered(long until, long now) {
        return until > now;
    }
}
