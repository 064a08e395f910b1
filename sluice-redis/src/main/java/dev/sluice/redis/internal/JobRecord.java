package dev.sluice.redis.internal;

import dev.sluice.queue.Job;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A job's record as the queue library keeps it in Redis ({@code B:j}, a MessagePack array whose positions are the
 * R_* of {@code queue-state.lua}): the one place the Java side names those positions. {@code JobRecordTest} checks
 * them against the library's declarations, so that a field added on one side cannot shift the other silently.
 */
final class JobRecord {
    /** The record's fields, in their order (R_NAME is position 1 in Lua). */
    enum Field {
        R_NAME,
        R_GROUP,
        R_STATE,
        R_OPTS,
        R_CREATED,
        R_SEQ,
        R_KEY,
        R_READY,
        R_RUNAT,
        R_STARTED,
        R_FINISHED,
        R_FINISH,
        R_MADE,
        R_RLIMITS,
        R_PROGRESS,
        R_RESULT,
        R_FREASON,
        R_FCLASS,
        R_FTRACE,
        R_ATTEMPTS,
        R_HISTORY,
        R_TOKEN,
        R_STALLS,
        R_MAXSTALLS,
        R_MAX_ATTEMPTS,
        R_PRIORITY,
        R_KC_N,
        R_KC_AGE,
        R_KF_N,
        R_KF_AGE,
        R_MAX_RL,
        R_DEDUP,
        R_REPEAT,
        R_SCHEDULED,
        R_CLAIM,
        R_PAYLOAD;

        /** This field's position in Lua, counted from 1. */
        int position() {
            return ordinal() + 1;
        }

        /** This field's value in {@code record}, null if absent (nil or false in Lua, or past the record's end). */
        Object of(List<Object> record) {
            return ordinal() < record.size() ? record.get(ordinal()) : null;
        }
    }

    private JobRecord() {}

    /**
     * The record of a job that reads as waiting, made active for the attempt that {@code token} owns, started at
     * {@code startedMicros}, as {@code held.attach} of {@code queue-moves.lua} makes it: a claim leaves the record in
     * Redis as it was while the job waited and replies the attempt beside it. The claim's reference and the most
     * stalls, which no snapshot shows, are left out. {@code record} is not changed.
     */
    static List<Object> activated(List<Object> record, long token, long startedMicros) {
        List<Object> active = new ArrayList<>(record);
        while (active.size() < Field.R_SCHEDULED.position()) {
            active.add(null);
        }
        set(active, Field.R_STATE, "a");
        set(active, Field.R_TOKEN, token);
        set(active, Field.R_STARTED, startedMicros);
        set(active, Field.R_PROGRESS, 0L);
        set(active, Field.R_READY, null);
        set(active, Field.R_KEY, null);
        long attempts = Replies.number(Field.R_ATTEMPTS.of(record)) + 1;
        set(active, Field.R_ATTEMPTS, attempts);
        Object history = Field.R_HISTORY.of(record);
        List<Object> attemptsMade = history == null ? new ArrayList<>() : new ArrayList<>(Replies.list(history));
        if (attemptsMade.size() >= Job.MAX_ATTEMPTS_RECORDED) {
            attemptsMade.remove(1);
        }
        attemptsMade.add(Arrays.asList(attempts, startedMicros, null, null, null));
        set(active, Field.R_HISTORY, attemptsMade);
        return active;
    }

    private static void set(List<Object> record, Field field, Object value) {
        record.set(field.ordinal(), value);
    }

    /**
     * The record {@code packed} holds, as a list of its values (null for absent ones).
     *
     * @throws IllegalStateException if {@code packed} is not a record
     */
    static List<Object> decode(byte[] packed) {
        return Replies.list(MessagePack.decode(packed));
    }

    /**
     * The payload {@code packed} holds, or null: a job that is not finished and kept holds its payload in the
     * payloads' hash instead.
     *
     * @throws IllegalStateException if {@code packed} is not a record
     */
    static byte[] keptPayload(byte[] packed) {
        return Replies.bytes(Field.R_PAYLOAD.of(decode(packed)));
    }
}
