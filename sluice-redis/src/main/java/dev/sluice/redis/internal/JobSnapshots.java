package dev.sluice.redis.internal;

import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The one place where a job's snapshot, as the queue script replies it (snapshot() of {@code queue-events.lua}, its
 * fields named by {@link SnapshotField}), is decoded into a {@link Job}; and the script's times, epoch
 * microseconds, as instants.
 */
final class JobSnapshots<T> {
    private final Codec<T> codec;
    private final JobOptionsText optionsText;

    JobSnapshots(Codec<T> codec, JobOptionsText optionsText) {
        this.codec = codec;
        this.optionsText = optionsText;
    }

    /**
     * The job a script replied; {@code payload} is its decoded payload if the caller has it, else the reply's
     * bytes are decoded (null if the codec cannot).
     */
    Job<T> decode(Object reply, T payload, boolean payloadGiven) {
        List<Object> r = Replies.list(reply);
        T decoded = payload;
        if (!payloadGiven) {
            byte[] bytes = Replies.bytes(SnapshotField.PAYLOAD.of(r));
            try {
                decoded = bytes == null ? null : codec.decode(bytes);
            } catch (RuntimeException e) {
                decoded = null;
            }
        }
        Object failureReason = SnapshotField.FAILURE_REASON.of(r);
        Job.Failure failure = failureReason == null
                ? null
                : new Job.Failure(
                        Replies.text(failureReason),
                        Replies.textOrNull(SnapshotField.FAILURE_CLASS.of(r)),
                        Replies.textOrNull(SnapshotField.FAILURE_TRACE.of(r)));
        List<Job.Attempt> attempts = new ArrayList<>();
        for (Object a : Replies.list(SnapshotField.ATTEMPTS.of(r))) {
            List<Object> attempt = Replies.list(a);
            Object outcome = attempt.size() > 3 ? attempt.get(3) : null;
            attempts.add(new Job.Attempt(
                    (int) Replies.number(attempt.get(0)),
                    instant(attempt.get(1)),
                    attempt.size() > 2 ? instant(attempt.get(2)) : null,
                    outcome == null ? null : Job.Attempt.Outcome.valueOf(Replies.text(outcome)),
                    attempt.size() > 4 ? Replies.textOrNull(attempt.get(4)) : null));
        }
        return new Job<>(
                Replies.text(SnapshotField.ID.of(r)),
                Replies.text(SnapshotField.NAME.of(r)),
                decoded,
                Replies.textOrNull(SnapshotField.GROUP.of(r)),
                JobState.valueOf(Replies.text(SnapshotField.STATE.of(r))),
                optionsText.decode(Replies.text(SnapshotField.OPTIONS.of(r))),
                (int) Replies.number(SnapshotField.ATTEMPTS_MADE.of(r)),
                (int) Replies.number(SnapshotField.RATE_LIMITS.of(r)),
                instant(SnapshotField.CREATED_AT.of(r)),
                instant(SnapshotField.RUN_AT.of(r)),
                instant(SnapshotField.STARTED_AT.of(r)),
                instant(SnapshotField.FINISHED_AT.of(r)),
                (int) Replies.number(SnapshotField.PROGRESS.of(r)),
                Replies.bytes(SnapshotField.RESULT.of(r)),
                failure,
                attempts);
    }

    /** The instant of epoch microseconds {@code value}, or null. */
    static Instant instant(Object value) {
        if (value == null) {
            return null;
        }
        long micros = Replies.number(value);
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1000L);
    }
}
