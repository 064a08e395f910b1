package dev.sluice.redis.internal;

import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The one place where a job, as the queue script replies it, is decoded into a {@link Job}: a snapshot (snapshot() of
 * {@code queue-events.lua}, its fields named by {@link SnapshotField}) or a job's record ({@link JobRecord}, which a
 * claim replies); and the script's times, epoch microseconds, as instants.
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
        Object failureReason = SnapshotField.FAILURE_REASON.of(r);
        return new Job<>(
                Replies.text(SnapshotField.ID.of(r)),
                Replies.text(SnapshotField.NAME.of(r)),
                payloadGiven ? payload : decodePayload(Replies.bytes(SnapshotField.PAYLOAD.of(r))),
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
                failure(failureReason, SnapshotField.FAILURE_CLASS.of(r), SnapshotField.FAILURE_TRACE.of(r)),
                attempts(SnapshotField.ATTEMPTS.of(r)));
    }

    /**
     * The job of id {@code id} whose record ({@link JobRecord}, decoded) a script replied, as snapshot() of {@code
     * queue-events.lua} makes it from the record: {@code payloadBytes} is its payload as stored, {@code payload}
     * the decoded payload if the caller has it.
     */
    Job<T> fromRecord(String id, List<Object> record, byte[] payloadBytes, T payload, boolean payloadGiven) {
        JobState state = stateOf(Replies.text(JobRecord.Field.R_STATE.of(record)));
        boolean started = Replies.number(JobRecord.Field.R_ATTEMPTS.of(record)) > 0;
        boolean finished = state == JobState.COMPLETED || state == JobState.FAILED;
        return new Job<>(
                id,
                Replies.text(JobRecord.Field.R_NAME.of(record)),
                payloadGiven ? payload : decodePayload(payloadBytes),
                Replies.textOrNull(JobRecord.Field.R_GROUP.of(record)),
                state,
                optionsText.decode(Replies.text(JobRecord.Field.R_OPTS.of(record))),
                (int) Replies.number(JobRecord.Field.R_MADE.of(record)),
                (int) Replies.number(JobRecord.Field.R_RLIMITS.of(record)),
                instant(JobRecord.Field.R_CREATED.of(record)),
                state == JobState.DELAYED ? instant(JobRecord.Field.R_RUNAT.of(record)) : null,
                started ? instant(JobRecord.Field.R_STARTED.of(record)) : null,
                finished ? instant(JobRecord.Field.R_FINISHED.of(record)) : null,
                (int) Replies.number(JobRecord.Field.R_PROGRESS.of(record)),
                Replies.bytes(JobRecord.Field.R_RESULT.of(record)),
                failure(
                        JobRecord.Field.R_FREASON.of(record),
                        JobRecord.Field.R_FCLASS.of(record),
                        JobRecord.Field.R_FTRACE.of(record)),
                attempts(JobRecord.Field.R_HISTORY.of(record)));
    }

    /**
     * The job of id {@code id} as a finish call replied it for an ending: {@code {payload, record}}, the payload null
     * when the record holds it (a kept job's).
     */
    Job<T> fromEnding(String id, Object reply) {
        List<Object> ended = Replies.list(reply);
        List<Object> record = JobRecord.decode(Replies.bytes(ended.get(1)));
        byte[] payload = ended.get(0) != null
                ? Replies.bytes(ended.get(0))
                : Replies.bytes(JobRecord.Field.R_PAYLOAD.of(record));
        return fromRecord(id, record, payload, null, false);
    }

    /** The state of a record's state letter (STATES of {@code queue-events.lua}). */
    private static JobState stateOf(String letter) {
        return switch (letter) {
            case "w" -> JobState.WAITING;
            case "d" -> JobState.DELAYED;
            case "a" -> JobState.ACTIVE;
            case "c" -> JobState.COMPLETED;
            case "f" -> JobState.FAILED;
            default ->
                throw new IllegalStateException("a job record holds state '" + letter + "', not one of w, d, a,"
                        + " c, f; is another version of Sluice using these keys?");
        };
    }

    private T decodePayload(byte[] bytes) {
        try {
            return bytes == null ? null : codec.decode(bytes);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static Job.Failure failure(Object reason, Object errorClass, Object trace) {
        return reason == null
                ? null
                : new Job.Failure(Replies.text(reason), Replies.textOrNull(errorClass), Replies.textOrNull(trace));
    }

    /** The attempts of a history (each {number, started, ended, outcome, error}; absent values null or missing). */
    private static List<Job.Attempt> attempts(Object history) {
        List<Job.Attempt> attempts = new ArrayList<>();
        if (history == null) {
            return attempts;
        }
        for (Object a : Replies.list(history)) {
            List<Object> attempt = Replies.list(a);
            Object outcome = attempt.size() > 3 ? attempt.get(3) : null;
            attempts.add(new Job.Attempt(
                    (int) Replies.number(attempt.get(0)),
                    instant(attempt.get(1)),
                    attempt.size() > 2 ? instant(attempt.get(2)) : null,
                    outcome == null ? null : Job.Attempt.Outcome.valueOf(Replies.text(outcome)),
                    attempt.size() > 4 ? Replies.textOrNull(attempt.get(4)) : null));
        }
        return attempts;
    }

    /** The instant of epoch microseconds {@code value}, or null. */
    static Instant instant(Object value) {
        if (value == null) {
            return null;
        }
        return instant(Replies.number(value));
    }

    /** The instant {@code micros} microseconds after the epoch. */
    static Instant instant(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1000L);
    }
}
