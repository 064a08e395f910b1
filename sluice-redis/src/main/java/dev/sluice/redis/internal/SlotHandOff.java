package dev.sluice.redis.internal;

import dev.sluice.queue.QueueListener;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An add's claim for idle slots of this process: the add call that brings jobs to a queue where a worker of this
 * process idles also claims jobs for that worker's idle slots, as the worker's own claim would, and hands each slot
 * its job. A job then starts one call and one thread hand-off sooner, and the slot makes no claim call of its own.
 *
 * <p>The slots are taken out of the idle ones before the call is sent ({@link IdleSlots#reserve}), so that nothing
 * else wakes them; each is handed a job or released once the reply is read. A call whose reply is lost leaves its
 * claims to the worker's next call, which gives them back, as it does for the worker's own lost claims.
 */
final class SlotHandOff<T> {
    private static final Logger LOG = LoggerFactory.getLogger(SlotHandOff.class);

    private final IdleSlots idleSlots;
    private final List<IdleSlots.Sleeper> sleepers;
    private final RedisWorker<T> worker;
    private final String claimRef;

    private SlotHandOff(IdleSlots idleSlots, List<IdleSlots.Sleeper> sleepers, RedisWorker<T> worker, String claimRef) {
        this.idleSlots = idleSlots;
        this.sleepers = sleepers;
        this.worker = worker;
        this.claimRef = claimRef;
    }

    /**
     * Reserves up to {@code jobs} idle slots of one worker of {@code queue} in this process; null if none is idle or
     * that worker no longer takes jobs.
     */
    @SuppressWarnings("unchecked")
    static <T> SlotHandOff<T> reserve(RedisJobQueue<T> queue, int jobs) {
        List<IdleSlots.Sleeper> sleepers = jobs == 0 ? List.of() : queue.idleSlots.reserve(jobs);
        if (sleepers.isEmpty()) {
            return null;
        }
        RedisWorker<T> worker = (RedisWorker<T>) sleepers.get(0).slot.worker();
        int begun = 0;
        while (begun < sleepers.size() && worker.beginHandOff()) {
            begun++;
        }
        if (begun < sleepers.size()) {
            // the worker closes: its slots end their waits, and the claims begun end at once
            for (int i = 0; i < sleepers.size(); i++) {
                if (i < begun) {
                    slot(sleepers.get(i), worker).notHanded();
                }
                queue.idleSlots.release(sleepers.get(i));
            }
            return null;
        }
        return new SlotHandOff<>(
                queue.idleSlots, sleepers, worker, worker.calls().newClaimRef());
    }

    /** The claim's four values at the end of an add call's arguments (as {@code finish} takes its claim). */
    void writeClaim(byte[][] args, int at) {
        args[at] = RedisJobQueue.bytes(Integer.toString(sleepers.size()));
        args[at + 1] = RedisJobQueue.bytes(worker.leaseMicros);
        args[at + 2] = RedisJobQueue.bytes(worker.maxStalls);
        args[at + 3] = RedisJobQueue.bytes(claimRef);
    }

    /** How many values {@link #writeClaim} writes. */
    static final int CLAIM_VALUES = 4;

    /**
     * Hands the jobs the call claimed ({@code claimed}, as claim() of queue-claim.lua replies them) to the reserved
     * slots, their events after {@code events}'s, and releases the slots left without one. Returns how many it
     * claimed.
     */
    int handOver(List<Object> claimed, List<Consumer<QueueListener<T>>> events) {
        for (int i = 0; i < sleepers.size(); i++) {
            IdleSlots.Sleeper sleeper = sleepers.get(i);
            RedisWorker<T>.Slot slot = slot(sleeper, worker);
            ClaimedJob<T> job = null;
            if (i < claimed.size()) {
                try {
                    job = slot.handed(claimed.get(i), events);
                } catch (RuntimeException e) {
                    // a record this engine cannot read: the job stays claimed until its lease runs out
                    slot.notHanded();
                    LOG.warn(
                            "{}: a job an add claimed for an idle slot cannot be read; its lease will run out",
                            worker,
                            e);
                }
            } else {
                slot.notHanded();
            }
            if (job == null) {
                idleSlots.release(sleeper);
            } else {
                worker.calls().measureStart(job);
                idleSlots.handOver(sleeper, job);
            }
        }
        return claimed.size();
    }

    /**
     * The call failed, or its reply could not be read: whatever it claimed is given back by the worker's next call,
     * which one of the slots makes at once (again after the engine's retry interval while Redis cannot be reached);
     * the others wait on.
     */
    void lost() {
        worker.calls().lostClaims.add(claimRef);
        for (int i = 0; i < sleepers.size(); i++) {
            slot(sleepers.get(i), worker).notHanded();
            if (i == 0) {
                idleSlots.handOver(sleepers.get(i), null);
            } else {
                idleSlots.release(sleepers.get(i));
            }
        }
    }

    /** How many slots it reserved. */
    int slots() {
        return sleepers.size();
    }

    @SuppressWarnings("unchecked")
    private static <T> RedisWorker<T>.Slot slot(IdleSlots.Sleeper sleeper, RedisWorker<T> worker) {
        return (RedisWorker<T>.Slot) sleeper.slot;
    }
}
