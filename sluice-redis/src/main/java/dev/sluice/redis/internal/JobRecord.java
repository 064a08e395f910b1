package dev.sluice.redis.internal;

import java.util.List;

/**
 * What Java reads of a job's record in Redis ({@code B:j}, packed by the queue library; its fields are the R_*
 * positions of {@code queue-state.lua}) without a call of the library: the payload a kept finished job holds.
 */
final class JobRecord {
    /** The position of R_PAYLOAD in the record, counted from 1 as in Lua. */
    static final int PAYLOAD = 36;

    private JobRecord() {}

    /**
     * The payload {@code packed} holds, or null: a job that is not finished and kept holds its payload in the
     * payloads' hash instead.
     *
     * @throws IllegalStateException if {@code packed} is not a record
     */
    static byte[] keptPayload(byte[] packed) {
        List<Object> record = Replies.list(MessagePack.decode(packed));
        return record.size() < PAYLOAD ? null : Replies.bytes(record.get(PAYLOAD - 1));
    }
}
