package dev.sluice.queue;

import java.time.Instant;

/**
 * One group (tenant) of a queue as it is now ({@link JobQueue#groups(String, String, int)}): what it holds, whether it
 * may start jobs, and the limits it runs under.
 *
 * @param name the group's name
 * @param waiting its jobs ready to run
 * @param delayed its jobs waiting for a time
 * @param active its jobs running
 * @param paused whether {@link JobQueue#pauseGroup} holds it until {@link JobQueue#resumeGroup}
 * @param pausedUntil when its pause by a rate-limited result ({@link Result#rateLimited}) ends; {@code null} if it has
 *     none now, or if {@code paused}
 * @param limits the limits it runs under: its own, or the queue's defaults
 * @param ownLimits whether those are its own ({@link JobQueue#setGroupLimits})
 */
public record GroupInfo(
        String name,
        long waiting,
        long delayed,
        long active,
        boolean paused,
        Instant pausedUntil,
        GroupLimits limits,
        boolean ownLimits) {

    /**
     * Whether it may start a job now as far as its own state goes: it has one waiting, is not paused, and runs fewer
     * than its concurrency (the queue's limits and the group's rate may still hold it back).
     *
     * @param now the time to judge a pause by
     * @return whether a waiting job of the group may start
     */
    public boolean mayStart(Instant now) {
        return waiting > 0
                && !paused
                && (pausedUntil == null || !pausedUntil.isAfter(now))
                && active < limits.concurrency();
    }
}
