package dev.sluice.server.internal;

import dev.sluice.queue.JobQueue;
import dev.sluice.server.internal.Problem.Kind;
import dev.sluice.time.SluiceClock;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote workers this server bridges, by id, and their leases, by token. A token is 128 random bits, known only to
 * the remote that claimed the job; once its lease has ended the token is remembered (the latest {@value
 * #ENDED_REMEMBERED} of them) so that a late call is told it lost the lease rather than that the token is unknown.
 * Thread-safe.
 */
final class RemoteWorkers {
    private static final Logger LOG = LoggerFactory.getLogger(RemoteWorkers.class);

    /** How many ended leases are remembered, to answer their late calls with a conflict. */
    static final int ENDED_REMEMBERED = 10_000;

    private record Ended(String workerId, String detail) {}

    private final SluiceClock clock;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, RemoteWorker> workers = new ConcurrentHashMap<>();
    private final Map<String, RemoteLease> leases = new ConcurrentHashMap<>();
    private final Map<String, Ended> ended = new LinkedHashMap<>() {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Ended> eldest) {
            return size() > ENDED_REMEMBERED;
        }
    };

    RemoteWorkers(SluiceClock clock) {
        this.clock = clock;
    }

    /** Starts a worker of {@code concurrency} slots on {@code queue} for the remote called {@code name}. */
    RemoteWorker start(JobQueue<?> queue, String name, int concurrency, long leaseNanos) {
        String id = "remote-" + HexFormat.of().formatHex(bytes(6));
        RemoteWorker worker = new RemoteWorker(id, name, queue, concurrency, leaseNanos, clock, this);
        synchronized (this) { // one at a time, so that each tells its Java worker apart from the others'
            worker.start();
        }
        workers.put(id, worker);
        LOG.info("remote worker {} ({}) started on queue '{}', concurrency {}", id, name, queue.name(), concurrency);
        return worker;
    }

    /**
     * The worker {@code id} of queue {@code queueName}.
     *
     * @throws Problem not found if there is none
     */
    RemoteWorker worker(String queueName, String id) {
        RemoteWorker worker = workers.get(id);
        if (worker == null || !worker.queue.name().equals(queueName)) {
            throw new Problem(
                    Kind.NOT_FOUND,
                    "no remote worker '" + id + "' on queue '" + queueName
                            + "' (it never registered here, or it stopped: register again)");
        }
        return worker;
    }

    /** The remote workers of queue {@code queueName}. */
    List<RemoteWorker> of(String queueName) {
        List<RemoteWorker> of = new ArrayList<>();
        for (RemoteWorker worker : workers.values()) {
            if (worker.queue.name().equals(queueName)) {
                of.add(worker);
            }
        }
        return of;
    }

    /**
     * The lease {@code token} of {@code worker}.
     *
     * @throws Problem a conflict if it has ended (recently enough to be remembered), not found if it is unknown
     */
    RemoteLease lease(RemoteWorker worker, String token) {
        RemoteLease lease = leases.get(token);
        if (lease != null && worker.held().contains(lease)) {
            return lease;
        }
        Ended end;
        synchronized (ended) {
            end = ended.get(token);
        }
        if (lease != null && lease.ended() != null) {
            end = new Ended(
                    worker.id,
                    RemoteLease.endedDetail(lease.jobId(), lease.context().attempt(), lease.ended()));
        }
        if (end != null && end.workerId.equals(worker.id)) {
            throw new Problem(Kind.CONFLICT, end.detail);
        }
        throw new Problem(
                Kind.NOT_FOUND,
                "worker '" + worker.id + "' holds no lease of that token (a token is given by a claim)");
    }

    /** A new lease token. */
    String newToken() {
        return HexFormat.of().formatHex(bytes(16));
    }

    private byte[] bytes(int count) {
        byte[] bytes = new byte[count];
        random.nextBytes(bytes);
        return bytes;
    }

    /** Notes that {@code lease} was claimed under {@code token}. */
    void leased(String token, RemoteLease lease) {
        leases.put(token, lease);
    }

    /** Notes that {@code lease} of worker {@code workerId} has ended, so that its token now answers a conflict. */
    void ended(RemoteLease lease, String workerId) {
        String token = lease.token();
        if (token == null) {
            return;
        }
        String why = lease.ended();
        synchronized (ended) {
            ended.put(
                    token,
                    new Ended(
                            workerId,
                            RemoteLease.endedDetail(
                                    lease.jobId(),
                                    lease.context().attempt(),
                                    why == null ? "its attempt ended" : why)));
        }
        leases.remove(token);
    }

    /** Forgets {@code worker}, which has closed. */
    void closed(RemoteWorker worker) {
        workers.remove(worker.id, worker);
        LOG.info("remote worker {} ({}) on queue '{}' closed", worker.id, worker.name, worker.queue.name());
    }

    /** Stops every worker at once, their jobs going back to waiting without using an attempt, and waits a while. */
    void close() {
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        for (RemoteWorker worker : workers.values()) {
            closing.add(worker.stopNow("the server stopped"));
        }
        try {
            CompletableFuture.allOf(closing.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException | ExecutionException e) {
            LOG.warn("remote workers did not all close in 10 s: {}", e.toString());
        }
    }
}
