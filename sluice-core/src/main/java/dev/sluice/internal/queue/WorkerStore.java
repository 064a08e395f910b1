package dev.sluice.internal.queue;

import dev.sluice.queue.JobContext;

/**
 * An engine's side of a {@link QueueWorker}: recording how attempts ended, claiming jobs, waiting for work and
 * handing jobs back, each in the engine's own store. The worker's state, its counts, its close and its slots'
 * threads are the worker's; the store tells the worker what its calls did through {@link QueueWorker#took}, {@link
 * QueueWorker#endedBySlot}, {@link QueueWorker#returned} and {@link QueueWorker#claiming}, and never calls the worker while it holds a lock the worker
 * waits for. The worker never calls the store while it holds its own monitor.
 *
 * @param <T> the payload type
 * @param <J> the engine's claimed job
 */
public interface WorkerStore<T, J extends ClaimedAttempt> {
    /** The calls of {@code slot}, one of the worker's slots (or the caller of {@code runDue}). */
    SlotCalls<J> slotCalls(QueueWorker<T, J>.Slot slot);

    /** What the processor sees of attempt {@code job}. */
    JobContext<T> context(J job);

    /** The queue: its name, its engine's clock (the close deadline's), whether its engine is open. */
    QueueFront<T> queue();

    /** The worker began to take jobs (started, or inside {@code runDue}). */
    void started();

    /** The worker stopped taking jobs: {@code runDue} returned, or the worker closed. */
    void stopped();

    /** The worker closes: its idle slots, interrupted, must stop waiting for work. */
    void wakeIdle();

    /** The worker closed: the queue no longer closes it with the engine. */
    void forget();

    /** A call of a slot failed with {@code e}, the engine unreachable; logged once per outage. */
    void failed(RuntimeException e);

    /** A call of a slot succeeded (ends an outage {@link #failed} began). */
    void succeeded();

    /** One slot's calls of the store. Each is made by the slot's own thread, except {@link #giveBack}. */
    interface SlotCalls<J> {
        /**
         * Records {@code ending} of {@code finished}, the attempt this slot ran, unless {@code ending} is null, and
         * claims the next job for this slot if {@code claim}; returns the job claimed (told to the worker by {@link
         * QueueWorker#took}) or null.
         *
         * @throws dev.sluice.SluiceException if the engine cannot be reached
         */
        J endAndClaim(J finished, AttemptEnd ending, boolean claim);

        /**
         * Waits, as an idle slot, until work may have come since this slot's last claim, or until interrupted (a
         * closing worker interrupts its idle slots); returns a job the store claimed for this slot meanwhile, or
         * null to claim again. {@code afterFailure}: the last call failed, so wait at most the engine's retry
         * interval.
         */
        J awaitWork(boolean afterFailure);

        /**
         * Returns {@code job} to waiting without using an attempt, as the close deadline does; tells the worker by
         * {@link QueueWorker#returned} if the store still owned it. Called by any thread.
         */
        void giveBack(J job);

        /**
         * Whether the ending of {@code finished}, which a failed call may not have recorded, is sent again (after a
         * pause) rather than left to the job's lease.
         */
        boolean resendAfterPause(J finished);

        /** The slot stops: the worker closes, or the engine did. */
        void exit();
    }
}
