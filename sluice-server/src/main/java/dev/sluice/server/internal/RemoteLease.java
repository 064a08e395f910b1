package dev.sluice.server.internal;

import dev.sluice.queue.JobContext;
import dev.sluice.queue.Result;
import dev.sluice.server.internal.Problem.Kind;
import dev.sluice.time.SluiceClock;
import java.util.concurrent.CompletableFuture;

/**
 * One attempt of a job that a bridged worker's slot hands to a remote worker: offered until the remote claims it, then
 * held under a lease that ends at a time the remote extends by renewing, and ended once, by the remote's outcome, by
 * the lease running out, or by the engine ending the attempt. A lease that has ended answers every later call with a
 * conflict and changes nothing: that is the fencing of remote workers. Thread-safe: its state is guarded by its
 * monitor, and the slot waiting for {@link #outcome} is woken outside it.
 */
final class RemoteLease {
    private enum State {
        OFFERED,
        CLAIMED,
        ENDED
    }

    private final JobContext<?> context;
    private final byte[] payload;
    /** What the slot's processor returns, or throws (its cause). */
    final CompletableFuture<Result> outcome = new CompletableFuture<>();

    private State state = State.OFFERED;
    private String token;
    private long endsAt;
    private String ended;

    RemoteLease(JobContext<?> context, byte[] payload) {
        this.context = context;
        this.payload = payload;
    }

    JobContext<?> context() {
        return context;
    }

    /** The payload's bytes as the queue stores them; null if the job no longer had any when it was offered. */
    byte[] payload() {
        return payload;
    }

    /** The job's id. */
    String jobId() {
        return context.job().id();
    }

    /** The token, once claimed; null before. */
    synchronized String token() {
        return token;
    }

    /** When the lease ends unless renewed, in engine nanoseconds; meaningful once claimed. */
    synchronized long endsAt() {
        return endsAt;
    }

    /** Whether it is claimed and not ended. */
    synchronized boolean held() {
        return state == State.CLAIMED;
    }

    /** Claims it under {@code token} until {@code endsAt}; false if it ended before a claim could take it. */
    synchronized boolean claim(String token, long endsAt) {
        if (state != State.OFFERED) {
            return false;
        }
        this.state = State.CLAIMED;
        this.token = token;
        this.endsAt = endsAt;
        return true;
    }

    /**
     * Moves its end to {@code endsAt}.
     *
     * @throws Problem a conflict if it has ended, saying how
     */
    synchronized void renew(long endsAt) {
        checkHeld();
        this.endsAt = Math.max(this.endsAt, endsAt);
    }

    /**
     * Ends it with what the remote worker reported: the slot returns {@code result}, or throws {@code failure}.
     *
     * @param result what the processor returns; null when it throws
     * @param failure what the processor throws; null when it returns
     * @param how what the outcome was, for the conflict answered to any later call ("completed", "failed")
     * @throws Problem a conflict if it has ended (the remote is told how; nothing changes)
     */
    void finish(Result result, Exception failure, String how) {
        boolean cancelled;
        synchronized (this) {
            checkHeld();
            cancelled = context.isCancelled();
            end(cancelled ? ATTEMPT_ENDED : "the remote worker reported it " + how);
        }
        if (cancelled) {
            outcome.completeExceptionally(new LeaseExpiredException(ATTEMPT_ENDED));
            throw new Problem(Kind.CONFLICT, endedDetail(jobId(), context.attempt(), ATTEMPT_ENDED));
        }
        if (failure == null) {
            outcome.complete(result);
        } else {
            outcome.completeExceptionally(failure);
        }
    }

    /** Ends it if it is claimed and its end has come by {@code now}: its attempt fails as one that ran too long. */
    void expireIfDue(long now, long leaseNanos) {
        String why;
        synchronized (this) {
            if (state != State.CLAIMED || now < endsAt) {
                return;
            }
            why = "the remote worker's lease on it ended at " + SluiceClock.toInstant(endsAt)
                    + " without a renewal (its lease is " + leaseNanos / 1_000_000 + " ms)";
            end(why);
        }
        outcome.completeExceptionally(new LeaseExpiredException(why));
    }

    /** Ends it without an outcome from the remote (the engine ended the attempt, or it was handed back): {@code why}. */
    synchronized void abandon(String why) {
        if (state != State.ENDED) {
            end(why);
        }
    }

    /** Ends it with {@code result}, claimed or not (a job handed back by a stopping worker); false if it had ended. */
    boolean handBack(Result result, String why) {
        synchronized (this) {
            if (state == State.ENDED) {
                return false;
            }
            end(why);
        }
        outcome.complete(result);
        return true;
    }

    /** Why it ended, for a conflict; null while it has not. */
    synchronized String ended() {
        return ended;
    }

    /** Why a lease ends when the engine ended its attempt first. */
    static final String ATTEMPT_ENDED = "the engine ended its attempt (the job's timeout passed, or its worker closed)";

    private void end(String why) {
        state = State.ENDED;
        ended = why;
    }

    private void checkHeld() {
        if (state != State.CLAIMED) {
            throw new Problem(Kind.CONFLICT, endedDetail(jobId(), context.attempt(), ended));
        }
    }

    /** The detail of a conflict on a lease that has ended. */
    static String endedDetail(String jobId, int attempt, String why) {
        return "the lease on attempt " + attempt + " of job '" + jobId + "' has ended: " + why
                + "; nothing was changed";
    }

    /** Why an attempt whose lease ran out failed: the remote worker was not heard from about it in time. */
    static final class LeaseExpiredException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LeaseExpiredException(String message) {
            super(message, null, false, false);
        }
    }

    /** A failure a remote worker reported, to be retried as the job's attempts and backoff say. */
    static final class RemoteFailureException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RemoteFailureException(String message) {
            super(message, null, false, false);
        }
    }
}
