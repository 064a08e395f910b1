package dev.sluice.redis.internal;

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
