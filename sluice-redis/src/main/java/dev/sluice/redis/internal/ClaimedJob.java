package dev.sluice.redis.internal;

import dev.sluice.internal.queue.ClaimedAttempt;
import dev.sluice.internal.queue.LazyPayload;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.time.SluiceClock;
import java.util.List;

/**
 * A job claimed by a slot: its id, the token that owns it, its attempt number and its snapshot. The payload is
 * decoded once, when first needed (by the processor, or for a listener), never on the call's lane.
 */
final class ClaimedJob<T> implements ClaimedAttempt {
    private final RedisJobQueue<T> queue;

    final String id;
    final long token;
    final int attempt;
    /** The snapshot without its payload (null), for the options and group. */
    final Job<T> job;

    final LazyPayload<T> payload;
    /** The job's record, active, decoded. */
    private final List<Object> record;

    private Job<T> withPayload;
    /** When the attempt started, epoch microseconds on Redis's clock (or the test clock). */
    final long startedMicros;
    /** The group's scope in the script's statistics: {@code u} without a group, else {@code g<group>}. */
    final String scope;
    /** How long the job waited since it was ready, by the engine's clock; -1 if its record did not say. */
    final long waitedNanos;

    volatile boolean lost;
    SluiceClock.Timer timeout;

    /** The positions of a claim's reply of one job (claim() of queue-claim.lua). */
    static final int ID = 0;

    static final int READY_AT = 1;
    static final int PAYLOAD = 2;
    static final int RECORD = 3;
    static final int TOKEN = 4;
    static final int STARTED = 5;

    /**
     * A job of a claim's reply: in a plain queue {id, nil, payload, its record as the job waited, token, started},
     * else {id, when it became ready, payload, its record as the claim wrote it} (claim() of queue-claim.lua).
     */
    ClaimedJob(RedisJobQueue<T> queue, Object reply) {
        this.queue = queue;
        List<Object> r = Replies.list(reply);
        this.id = Replies.text(r.get(ID));
        List<Object> read = JobRecord.decode(Replies.bytes(r.get(RECORD)));
        Object readyAt;
        if (r.size() > TOKEN) {
            this.token = Replies.number(r.get(TOKEN));
            this.startedMicros = Replies.number(r.get(STARTED));
            this.record = JobRecord.activated(read, token, startedMicros);
            readyAt = JobRecord.Field.R_READY.of(read);
        } else {
            this.record = read;
            this.token = Replies.number(JobRecord.Field.R_TOKEN.of(record));
            this.startedMicros = Replies.number(JobRecord.Field.R_STARTED.of(record));
            readyAt = r.get(READY_AT);
        }
        this.payload = new LazyPayload<>(id, Replies.bytes(r.get(PAYLOAD)), queue.codec());
        this.job = queue.snapshots.fromRecord(id, record, null, null, true);
        this.attempt = job.attemptsMade() + 1;
        this.scope = job.group() == null ? "u" : "g" + job.group();
        if (readyAt != null) {
            waitedNanos = (startedMicros - Replies.number(readyAt)) * 1000;
            queue.stats.pending.time(scope, 'w', waitedNanos);
        } else {
            waitedNanos = -1;
        }
    }

    @Override
    public String jobId() {
        return id;
    }

    @Override
    public long token() {
        return token;
    }

    @Override
    public int attempt() {
        return attempt;
    }

    @Override
    public JobOptions options() {
        return job.options();
    }

    /** The snapshot with its payload, as listeners hear it; null for a payload the codec cannot decode. */
    synchronized Job<T> withPayload() {
        if (withPayload == null) {
            T decoded;
            try {
                decoded = payload.get();
            } catch (LazyPayload.Undecodable e) {
                decoded = null;
            }
            withPayload = queue.snapshots.fromRecord(id, record, null, decoded, true);
        }
        return withPayload;
    }
}
