package dev.sluice.server.internal;

import dev.sluice.queue.JobContext;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Processor;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.server.internal.Problem.Kind;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A worker in another process that takes jobs over HTTP, bridged to a real {@link Worker} of the queue: every rule of
 * the engine (attempts and backoff, groups and their limits, the queue's rate, a Java worker's own lease on a shared
 * engine, the registry of workers) applies to it unchanged. Each slot of the Java worker offers the job it took to the
 * remote worker and waits, on its virtual thread, for the remote's outcome.
 *
 * <p>Time is the engine's clock: a claimed job's lease ends {@code leaseNanos} after the claim or the latest renewal,
 * and its attempt then fails as one that ran too long would (retried while attempts remain, with the job's backoff);
 * a remote worker not heard from (no call, no claim waiting) for {@code leaseNanos} is closed with a zero deadline,
 * which gives its jobs back to waiting without using an attempt. How long a claim waits for a job is a bound on one
 * HTTP request, in real time.
 *
 * <p>The Java worker takes up to its concurrency in jobs ahead of the remote's claims: they are active in the engine
 * while they wait for a claim. Thread-safe: the state is guarded by the monitor, never held while a lease's outcome
 * wakes a slot or while the Java worker is called.
 */
final class RemoteWorker {
    private enum State {
        RUNNING,
        STOPPING,
        CLOSED
    }

    /** Put in {@link #offered} by a stop, to wake the claims waiting there. */
    private static final RemoteLease STOPPED = new RemoteLease(null, null);

    final String id;
    final String name;
    final JobQueue<?> queue;
    final int concurrency;
    final long leaseNanos;
    final long startedAt;

    private final SluiceClock clock;
    private final RemoteWorkers registry;
    private final LinkedBlockingQueue<RemoteLease> offered = new LinkedBlockingQueue<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    private final Set<RemoteLease> held = new HashSet<>();
    private Worker<?> worker;
    /** The Java worker's id among the queue's workers; null if it could not be told apart from one that started with it. */
    private String engineId;

    private State state = State.RUNNING;
    private String stopReason;
    private long lastHeard;
    private int claimsWaiting;
    private SluiceClock.Timer timer;

    RemoteWorker(
            String id,
            String name,
            JobQueue<?> queue,
            int concurrency,
            long leaseNanos,
            SluiceClock clock,
            RemoteWorkers registry) {
        this.id = id;
        this.name = name;
        this.queue = queue;
        this.concurrency = concurrency;
        this.leaseNanos = leaseNanos;
        this.clock = clock;
        this.registry = registry;
        this.startedAt = clock.nanos();
        this.lastHeard = startedAt;
    }

    /** Starts the Java worker and the clock's watch over the remote's silence and leases. */
    void start() {
        WorkerOptions options = WorkerOptions.builder()
                .concurrency(concurrency)
                .leaseTime(Duration.ofNanos(leaseNanos))
                .autoStart(false)
                .build();
        Set<String> before = engineIds();
        Worker<?> started = worker(queue, this::process, options);
        synchronized (this) {
            worker = started;
        }
        started.start();
        Set<String> after = engineIds();
        after.removeAll(before);
        synchronized (this) {
            engineId = after.size() == 1 ? after.iterator().next() : null;
            timer = clock.schedule(leaseNanos, this::sweep);
        }
    }

    private static <T> Worker<T> worker(JobQueue<T> queue, Processor<?> processor, WorkerOptions options) {
        @SuppressWarnings("unchecked") // the processor never reads the payload as a T
        Processor<T> typed = (Processor<T>) processor;
        return queue.worker(typed, options);
    }

    private Set<String> engineIds() {
        Set<String> ids = new HashSet<>();
        queue.workers().forEach(w -> ids.add(w.id()));
        return ids;
    }

    /** Whether the engine's worker {@code engineWorkerId}, running {@code running}, is this one's Java worker. */
    synchronized boolean bridges(String engineWorkerId, List<String> running) {
        if (engineId != null) {
            return engineId.equals(engineWorkerId);
        }
        for (RemoteLease lease : held) {
            if (running.contains(lease.jobId())) {
                return true;
            }
        }
        return false;
    }

    /** The slot's processor: offers the job to the remote worker and returns or throws what it reports. */
    private Result process(JobContext<?> context) throws Exception {
        byte[] payload = queue.payloadBytes(context.job().id()).orElse(null);
        RemoteLease lease = new RemoteLease(context, payload);
        synchronized (this) {
            if (state != State.RUNNING) {
                return Result.runAgainAfter(Duration.ZERO);
            }
            offered.add(lease);
        }
        try {
            return await(lease, context);
        } catch (InterruptedException interrupted) {
            lease.abandon(whyInterrupted());
            throw interrupted;
        } finally {
            offered.remove(lease);
            synchronized (this) {
                held.remove(lease);
            }
            registry.ended(lease, id);
        }
    }

    /** The lease's outcome; an attempt the engine ended meanwhile without interrupting the slot ends the lease. */
    private static Result await(RemoteLease lease, JobContext<?> context) throws Exception {
        while (true) {
            try {
                return lease.outcome.get(1, TimeUnit.SECONDS);
            } catch (ExecutionException failed) {
                throw failed.getCause() instanceof Exception e ? e : new IllegalStateException(failed.getCause());
            } catch (TimeoutException stillWaiting) {
                if (context.isCancelled()) {
                    lease.abandon(RemoteLease.ATTEMPT_ENDED);
                    if (!lease.outcome.isDone()) {
                        throw new RemoteLease.LeaseExpiredException(RemoteLease.ATTEMPT_ENDED);
                    }
                }
            }
        }
    }

    private synchronized String whyInterrupted() {
        return state == State.RUNNING
                ? RemoteLease.ATTEMPT_ENDED
                : "its worker stopped (" + stopReason + ") and the job went back to waiting";
    }

    /**
     * Takes an offered job within {@code waitNanos} of real time, leased to the remote worker from now.
     *
     * @return the lease; null if no job came in time
     * @throws Problem a conflict if the worker is stopping
     */
    RemoteLease claim(long waitNanos) throws InterruptedException {
        synchronized (this) {
            checkRunning();
            claimsWaiting++;
            lastHeard = clock.nanos();
        }
        try {
            long deadline = System.nanoTime() + waitNanos;
            while (true) {
                RemoteLease lease = offered.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (lease == null) {
                    return null;
                }
                if (lease == STOPPED) {
                    offered.add(STOPPED);
                    synchronized (this) {
                        checkRunning();
                    }
                }
                synchronized (this) {
                    if (state != State.RUNNING) {
                        lease.handBack(Result.runAgainAfter(Duration.ZERO), "its worker stopped before it was claimed");
                        checkRunning();
                    }
                    String token = registry.newToken();
                    if (lease.claim(token, clock.nanos() + leaseNanos)) {
                        held.add(lease);
                        registry.leased(token, lease);
                        return lease;
                    }
                }
            }
        } finally {
            synchronized (this) {
                claimsWaiting--;
                lastHeard = clock.nanos();
            }
        }
    }

    /** Notes that the remote worker called now. */
    synchronized void heard() {
        lastHeard = Math.max(lastHeard, clock.nanos());
    }

    /** Renews {@code lease} to a lease time from now, the remote having been heard from. */
    long renew(RemoteLease lease) {
        long endsAt;
        synchronized (this) {
            lastHeard = clock.nanos();
            endsAt = lastHeard + leaseNanos;
        }
        lease.renew(endsAt);
        return lease.endsAt();
    }

    /** The leases the remote holds now, in no order. */
    synchronized List<RemoteLease> held() {
        return new ArrayList<>(held);
    }

    /** Whether it takes no more jobs. */
    synchronized boolean stopping() {
        return state != State.RUNNING;
    }

    /** How many claims wait for a job now. */
    synchronized int claimsWaiting() {
        return claimsWaiting;
    }

    /** When it was last heard from, in engine nanoseconds. */
    synchronized long lastHeard() {
        return lastHeard;
    }

    private void checkRunning() {
        if (state != State.RUNNING) {
            throw new Problem(
                    Kind.CONFLICT,
                    "worker '" + id + "' (" + name + ") is stopping: " + stopReason + "; it takes no jobs");
        }
    }

    /**
     * Ends the remote worker's silence and leases as their time on the clock says, and watches again for the next
     * time one could end.
     */
    private void sweep() {
        List<RemoteLease> leases;
        long now;
        synchronized (this) {
            timer = null;
            if (state == State.CLOSED) {
                return;
            }
            now = clock.nanos();
            boolean silent = state == State.RUNNING && claimsWaiting == 0 && now - lastHeard >= leaseNanos;
            if (silent) {
                leases = null;
            } else {
                leases = new ArrayList<>(held);
                long next =
                        state == State.RUNNING ? (claimsWaiting > 0 ? now : lastHeard) + leaseNanos : Long.MAX_VALUE;
                for (RemoteLease lease : leases) {
                    long endsAt = lease.endsAt();
                    if (lease.held() && endsAt > now) {
                        next = Math.min(next, endsAt);
                    }
                }
                if (next != Long.MAX_VALUE) {
                    timer = clock.schedule(next - now, this::sweep);
                }
            }
        }
        if (leases == null) {
            stop(Duration.ZERO, "not heard from for " + leaseNanos / 1_000_000 + " ms, its lease time");
            return;
        }
        for (RemoteLease lease : leases) {
            lease.expireIfDue(now, leaseNanos);
        }
    }

    /**
     * Stops taking jobs and closes the Java worker with {@code deadline}: jobs offered but not claimed go back to
     * waiting at once (no attempt used), claimed ones may still be reported until the deadline, when the engine gives
     * them back. A worker already stopping keeps its first deadline.
     *
     * @param why for the remote's later calls
     * @return completes once the Java worker has closed
     */
    CompletableFuture<Void> stop(Duration deadline, String why) {
        Worker<?> java;
        synchronized (this) {
            if (state != State.RUNNING) {
                return closed;
            }
            state = State.STOPPING;
            stopReason = why;
            java = worker;
        }
        CompletableFuture<Worker.CloseReport> closing = java.closeAsync(deadline);
        List<RemoteLease> unclaimed = new ArrayList<>();
        offered.drainTo(unclaimed);
        offered.add(STOPPED);
        for (RemoteLease lease : unclaimed) {
            if (lease != STOPPED) {
                lease.handBack(Result.runAgainAfter(Duration.ZERO), "its worker stopped before it was claimed");
            }
        }
        closing.whenComplete((report, error) -> {
            synchronized (this) {
                state = State.CLOSED;
                if (timer != null) {
                    timer.cancel();
                    timer = null;
                }
            }
            registry.closed(this);
            closed.complete(null);
        });
        return closed;
    }

    /** Stops at once, handing every job back to waiting without using an attempt (the server is stopping). */
    CompletableFuture<Void> stopNow(String why) {
        CompletableFuture<Void> done = stop(Duration.ZERO, why);
        for (RemoteLease lease : held()) {
            lease.handBack(Result.runAgainAfter(Duration.ZERO), why);
        }
        return done;
    }
}
