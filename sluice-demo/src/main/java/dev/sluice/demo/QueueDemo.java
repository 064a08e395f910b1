package dev.sluice.demo;

import dev.sluice.Sluice;
import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.queue.Backoff;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobContext;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueFullException;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.QueueStats;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.SluiceClock;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

/**
 * The seeds' layered scenario on the in-memory engine (or on Redis), in real time.
 *
 * <ol>
 *   <li>L1 ingress: clients of five tenants send requests; one tenant is noisy and sends ten times what each
 *       other one does. Each request needs a permit of its client's limit AND room in its tenant's backlog,
 *       taken all or nothing (a request refused for a full backlog keeps its client permit).
 *   <li>L2 queue: each admitted request becomes a job of the queue {@code deliveries}, grouped by tenant, under
 *       a queue-wide rate and a rate and concurrency per tenant, both rates adaptive: each 429 cuts the rate of its
 *       scope and the rate climbs back as calls succeed. Tenants are served round-robin.
 *   <li>L3 workers: twenty virtual threads call the partner API for each job. A 429 with Retry-After pauses
 *       only the tenant that got it (the whole queue, for the API's global limit); a 503 is retried with
 *       exponential backoff and jitter.
 *   <li>Downstream: {@link PartnerApi}, with limits of its own that the queue does not know; its capacity for all
 *       our calls falls for the middle third of the traffic and comes back ({@link CapacityDrop}).
 * </ol>
 *
 * After the ingress closes, the queue drains, the worker closes with a deadline, and a table per tenant shows
 * what each layer did.
 */
final class QueueDemo {
    // L1: ingress
    private static final long CLIENT_PER_SECOND = 10;
    private static final long TENANT_BACKLOG = 40;
    // L2: the queue
    private static final long QUEUE_PER_SECOND = 45;
    private static final long QUEUE_BURST = 10;
    private static final long TENANT_PER_SECOND = 20;
    private static final long TENANT_BURST = 5;
    private static final int TENANT_CONCURRENCY = 4;
    // L3: workers
    private static final int WORKERS = 20;
    private static final int ATTEMPTS = 5;
    // Downstream, hidden from the queue
    private static final long API_TENANT_PER_SECOND = 15;
    private static final long API_GLOBAL_PER_SECOND = 50;
    private static final long API_GLOBAL_LOW_PER_SECOND = 20;
    private static final double API_FAILURE_RATE = 0.05;

    private static final String CLIENT_LIMITER = "ingress-client";
    private static final String BACKLOG_LIMITER = "ingress-tenant-backlog";
    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final Duration MAX_DRAIN = Duration.ofSeconds(12);
    private static final Duration CLOSE_DEADLINE = Duration.ofSeconds(2);
    private static final long TICK = SECOND.toNanos();

    private record Tenant(String name, int clients, double perClientPerSecond) {}

    /** What ingress knows of a request: whose it is. */
    private record Request(String tenant, String client) {}

    /** A job admitted and not yet finished, with the ingress permit it holds in its tenant's backlog. */
    private record InFlight(Tally tally, Decision permit, AtomicBoolean started) {}

    private static final List<Tenant> TENANTS = List.of(
            new Tenant("noisy", 3, 20),
            new Tenant("acme", 1, 6),
            new Tenant("globex", 1, 6),
            new Tenant("initech", 1, 6),
            new Tenant("umbrella", 1, 6));

    private final Duration length;
    private final PrintStream out;
    private final Map<String, Tally> tallies = new LinkedHashMap<>();
    private final Map<String, InFlight> inFlight = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    private final String engineName;

    /**
     * The demo for {@code length} of traffic on an engine called {@code engineName} in the report (such as "the
     * in-memory engine"), reporting on {@code out}.
     */
    QueueDemo(Duration length, PrintStream out, String engineName) {
        this.length = length;
        this.out = out;
        this.engineName = engineName;
        for (Tenant tenant : TENANTS) {
            tallies.put(tenant.name(), new Tally(tenant.name()));
        }
    }

    /** Plays the demo on {@code sluice}, which the caller closes afterwards (its queue and limiters stay in it). */
    void run(Sluice sluice) throws InterruptedException {
        try (PartnerApi api = new PartnerApi(
                TokenBucket.perSecond(API_TENANT_PER_SECOND),
                TokenBucket.perSecond(API_GLOBAL_PER_SECOND),
                API_FAILURE_RATE)) {
            SluiceClock clock = sluice.clock();
            long started = clock.nanos();

            // L1: a permit of the client's sliding window AND a lease of room in the tenant's backlog.
            LimitChain<Request> ingress = sluice.<Request>chain()
                    .layer(
                            sluice.limiter(CLIENT_LIMITER, SlidingWindowLog.of(CLIENT_PER_SECOND, SECOND)),
                            Request::client)
                    .layer(
                            sluice.concurrencyLimiter(
                                    BACKLOG_LIMITER, ConcurrencyLimit.of(TENANT_BACKLOG, Duration.ofMinutes(10))),
                            Request::tenant)
                    .build();

            // L2: one queue, a queue-wide rate under the API's global limit, and limits per tenant (group).
            JobQueue<String> queue = sluice.queue(
                    "deliveries",
                    Codec.utf8(),
                    QueueOptions.builder()
                            .rate(AdaptiveRate.of(Gcra.of(QUEUE_PER_SECOND, SECOND, QUEUE_BURST))
                                    .withFloor(5))
                            .groupDefaults(GroupLimits.builder()
                                    .rate(AdaptiveRate.of(TokenBucket.of(TENANT_BURST, TENANT_PER_SECOND, SECOND))
                                            .withFloor(2))
                                    .concurrency(TENANT_CONCURRENCY)
                                    .build())
                            .maxQueued(10_000)
                            .jobDefaults(JobOptions.builder()
                                    .attempts(ATTEMPTS)
                                    .backoff(Backoff.exponentialWithJitter(
                                            Duration.ofMillis(100), Duration.ofSeconds(2)))
                                    .timeout(Duration.ofSeconds(2))
                                    .maxRateLimits(1_000)
                                    .keepCompleted(Retention.keepLast(1_000))
                                    .build())
                            .build());
            queue.addListener(new Tracker());
            CapacityDrop drop = new CapacityDrop(api, queue, API_GLOBAL_PER_SECOND, API_GLOBAL_LOW_PER_SECOND, length);

            // L3: the workers, calling the partner API.
            Worker<String> worker = queue.worker(job -> deliver(api, job), WorkerOptions.concurrency(WORKERS));

            printIntro();
            long ingressEnd = started + length.toNanos();
            List<Thread> clients = startClients(clock, ingress, queue, ingressEnd);
            Progress progress = new Progress(api, queue, drop);
            progress.header();
            long nextTick = started + TICK;
            while (nextTick <= ingressEnd) {
                clock.sleep(nextTick - clock.nanos());
                progress.row(Duration.ofNanos(nextTick - started), drop.at(nextTick - started));
                nextTick += TICK;
            }
            for (Thread client : clients) {
                client.join();
            }
            long closedAt = clock.nanos();
            out.printf(
                    "  -- ingress closed after %d s; draining (at most %d s) --%n",
                    length.toSeconds(), MAX_DRAIN.toSeconds());

            long drainEnd = closedAt + MAX_DRAIN.toNanos();
            while (unfinished(queue) > 0 && clock.nanos() < drainEnd) {
                clock.sleep(Math.min(100_000_000L, drainEnd - clock.nanos()));
                if (clock.nanos() >= nextTick) {
                    progress.row(Duration.ofNanos(nextTick - started), "draining");
                    nextTick += TICK;
                }
            }
            long drainedAt = clock.nanos();
            Worker.CloseReport closed = worker.close(CLOSE_DEADLINE);
            awaitListeners(queue);
            progress.row(Duration.ofNanos(clock.nanos() - started), unfinished(queue) == 0 ? "drained" : "stopped");

            printTable();
            printVerdict(api, queue, closed, Duration.ofNanos(drainedAt - closedAt));
            drop.printVerdict(out);
            out.printf("%nWall time %.1f s.%n", (clock.nanos() - started) / 1e9);
        }
    }

    /** The processor: one call to the partner API per attempt. */
    private static Result deliver(PartnerApi api, JobContext<String> job) throws Exception {
        PartnerApi.Response response = api.call(job.job().group());
        return switch (response.status()) {
            case 200 -> Result.done();
            case 429 ->
                Result.rateLimited(
                        response.globalLimit() ? Result.Scope.QUEUE : Result.Scope.GROUP, response.retryAfter());
            default -> throw new IOException(response.status() + " from the partner API");
        };
    }

    private List<Thread> startClients(
            SluiceClock clock, LimitChain<Request> ingress, JobQueue<String> queue, long end) {
        List<Thread> clients = new ArrayList<>();
        for (Tenant tenant : TENANTS) {
            Tally tally = tallies.get(tenant.name());
            long gap = Math.round(1e9 / tenant.perClientPerSecond());
            for (int c = 1; c <= tenant.clients(); c++) {
                Request request = new Request(tenant.name(), tenant.name() + "-client-" + c);
                clients.add(Thread.ofVirtual()
                        .name(request.client())
                        .start(() -> send(clock, ingress, queue, request, tally, gap, end)));
            }
        }
        return clients;
    }

    /** One client: a request every {@code gapNanos} (give or take a quarter) until {@code end}. */
    private void send(
            SluiceClock clock,
            LimitChain<Request> ingress,
            JobQueue<String> queue,
            Request request,
            Tally tally,
            long gapNanos,
            long end) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try {
            for (long next = clock.nanos() + random.nextLong(gapNanos); next < end; ) {
                clock.sleep(next - clock.nanos());
                admit(ingress, queue, request, tally);
                next += gapNanos * 3 / 4 + random.nextLong(gapNanos / 2 + 1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void admit(LimitChain<Request> ingress, JobQueue<String> queue, Request request, Tally tally) {
        tally.sent.increment();
        Decision decision = ingress.tryAcquire(request);
        if (decision.denied()) {
            (decision.limiter().equals(CLIENT_LIMITER) ? tally.rejectedClient : tally.rejectedBacklog).increment();
            return;
        }
        String id = request.tenant() + "-" + ids.incrementAndGet();
        inFlight.put(id, new InFlight(tally, decision, new AtomicBoolean()));
        tally.admitted.increment();
        try {
            queue.add(
                    "deliver",
                    "{\"client\":\"" + request.client() + "\",\"request\":\"" + id + "\"}",
                    JobOptions.builder().jobId(id).group(request.tenant()).build());
        } catch (QueueFullException e) {
            inFlight.remove(id);
            tally.admitted.decrement();
            tally.rejectedFull.increment();
            decision.release();
        }
    }

    /** Jobs the engine holds that have not finished: waiting, delayed (a retry's backoff) or running. */
    private static long unfinished(JobQueue<String> queue) {
        JobCounts counts = queue.counts();
        return counts.waiting() + counts.delayed() + counts.active();
    }

    /** The same for one tenant. */
    private static long unfinished(JobQueue<String> queue, String tenant) {
        JobCounts counts = queue.stats(tenant).counts();
        return counts.waiting() + counts.delayed() + counts.active();
    }

    /** Waits until the tracker has heard every change the worker made (its listener runs on a thread of its own). */
    private static void awaitListeners(JobQueue<String> queue) throws InterruptedException {
        queue.awaitListeners(SECOND);
    }

    /**
     * Counts what the queue reports, per tenant. Times come from the job's own timestamps (the engine's
     * clock), so they do not depend on when an event is delivered.
     */
    private final class Tracker implements QueueListener<String> {
        @Override
        public void onActive(Job<String> job) {
            InFlight flight = inFlight.get(job.id());
            if (flight != null && flight.started().compareAndSet(false, true)) {
                flight.tally()
                        .wait
                        .add(Duration.between(job.createdAt(), job.startedAt()).toNanos());
            }
        }

        @Override
        public void onCompleted(Job<String> job) {
            InFlight flight = finish(job);
            if (flight != null) {
                flight.tally()
                        .endToEnd
                        .add(Duration.between(job.createdAt(), job.finishedAt()).toNanos());
                flight.tally().done.increment();
            }
        }

        @Override
        public void onFailed(Job<String> job) {
            InFlight flight = finish(job);
            if (flight != null) {
                flight.tally().failed.increment();
            }
        }

        @Override
        public void onRetrying(Job<String> job, Throwable error, Duration delay) {
            tally(job).retried.increment();
        }

        @Override
        public void onRateLimited(Job<String> job, Result.Scope scope, Duration retryAfter) {
            Tally tally = tally(job);
            (scope == Result.Scope.QUEUE ? tally.rateLimitedGlobal : tally.rateLimited).increment();
        }

        private InFlight finish(Job<String> job) {
            InFlight flight = inFlight.remove(job.id());
            if (flight != null) {
                flight.permit().release(); // room in the tenant's backlog again
            }
            return flight;
        }

        private Tally tally(Job<String> job) {
            return tallies.get(job.group());
        }
    }

    /** One line a second: jobs each tenant got done in that second, and its backlog. */
    private final class Progress {
        private final PartnerApi api;
        private final JobQueue<String> queue;
        private final CapacityDrop drop;
        private final Map<String, Long> lastDone = new LinkedHashMap<>();
        private long last429;
        private long last503;

        Progress(PartnerApi api, JobQueue<String> queue, CapacityDrop drop) {
            this.api = api;
            this.queue = queue;
            this.drop = drop;
            tallies.keySet().forEach(tenant -> lastDone.put(tenant, 0L));
        }

        void header() {
            out.println();
            out.println("Each second, per tenant: +jobs done in that second, q jobs in the queue (waiting, running or"
                    + " waiting to retry).");
            StringBuilder line = new StringBuilder("   time ");
            for (String tenant : tallies.keySet()) {
                line.append(String.format(" %-11s", tenant));
            }
            out.println(line.append("  api 429  api 503  rate"));
        }

        void row(Duration at, String note) {
            StringBuilder line = new StringBuilder(String.format("  %4.0fs ", at.toMillis() / 1000.0));
            for (Tally tally : tallies.values()) {
                long done = tally.done.sum();
                line.append(String.format(
                        " %-11s", "+" + (done - lastDone.get(tally.tenant)) + " q" + unfinished(queue, tally.tenant)));
                lastDone.put(tally.tenant, done);
            }
            long now429 = api.tooManyRequests.sum();
            long now503 = api.unavailable.sum();
            line.append(String.format(
                    "  %7s  %7s  %5s", "+" + (now429 - last429), "+" + (now503 - last503), drop.rateCell()));
            last429 = now429;
            last503 = now503;
            if (!note.isEmpty()) {
                line.append("  ").append(note);
            }
            out.println(line);
        }
    }

    private void printIntro() {
        Tenant noisy = TENANTS.get(0);
        Tenant quiet = TENANTS.get(1);
        double noisyRate = noisy.clients() * noisy.perClientPerSecond();
        double quietRate = quiet.clients() * quiet.perClientPerSecond();
        out.printf(
                "Sluice demo: %d tenants through layered limits on %s; %d s of traffic, then the queue drains.%n",
                TENANTS.size(), engineName, length.toSeconds());
        out.printf(
                "  clients      '%s' sends %.0f req/s (%d clients), each other tenant %.0f req/s (%d client): %.0fx"
                        + " less%n",
                noisy.name(), noisyRate, noisy.clients(), quietRate, quiet.clients(), noisyRate / quietRate);
        out.printf(
                "  L1 ingress   per client %d req/s (sliding log) AND per tenant at most %d jobs in the queue, all or"
                        + " nothing%n",
                CLIENT_PER_SECOND, TENANT_BACKLOG);
        out.printf(
                "  L2 queue     'deliveries': at most %d starts/s in all (GCRA, bursts of %d); per tenant %d/s (token"
                        + " bucket) and %d at once;%n               both rates adaptive (a 429 cuts, success climbs"
                        + " back); tenants served round-robin%n",
                QUEUE_PER_SECOND, QUEUE_BURST, TENANT_PER_SECOND, TENANT_CONCURRENCY);
        out.printf(
                "  L3 workers   %d virtual threads calling the partner API; a 503 is retried (%d attempts, exponential"
                        + " backoff, jitter)%n",
                WORKERS, ATTEMPTS);
        out.printf(
                "  partner API  limits of its own, unknown to the queue: %d/s per tenant, %d/s in all (%d/s for the"
                        + " middle third);%n               past them 429 + Retry-After; %.0f%% of calls fail with a"
                        + " 503%n",
                API_TENANT_PER_SECOND, API_GLOBAL_PER_SECOND, API_GLOBAL_LOW_PER_SECOND, API_FAILURE_RATE * 100);
    }

    private void printTable() {
        String format = "%-9s %6s %8s %10s %11s %6s %7s %5s %6s %9s %9s %9s%n";
        out.println();
        out.printf(
                format,
                "tenant",
                "sent",
                "admitted",
                "rej:client",
                "rej:backlog",
                "done",
                "retried",
                "429s",
                "failed",
                "wait p50",
                "wait p99",
                "e2e p99");
        long[] sums = new long[8];
        for (Tally t : tallies.values()) {
            long[] row = {
                t.sent.sum(),
                t.admitted.sum(),
                t.rejectedClient.sum(),
                t.rejectedBacklog.sum() + t.rejectedFull.sum(),
                t.done.sum(),
                t.retried.sum(),
                t.rateLimited.sum() + t.rateLimitedGlobal.sum(),
                t.failed.sum()
            };
            Object[] cells = new Object[12];
            cells[0] = t.tenant;
            for (int i = 0; i < row.length; i++) {
                sums[i] += row[i];
                cells[i + 1] = row[i];
            }
            cells[9] = millis(t.wait.percentile(50));
            cells[10] = millis(t.wait.percentile(99));
            cells[11] = millis(t.endToEnd.percentile(99));
            out.printf(format, cells);
        }
        Object[] total = new Object[12];
        total[0] = "all";
        for (int i = 0; i < sums.length; i++) {
            total[i + 1] = sums[i];
        }
        Arrays.fill(total, 9, 12, "");
        out.printf(format, total);
        out.println("rej:client = past the client's own limit; rej:backlog = its tenant already had " + TENANT_BACKLOG
                + " jobs in the queue.");
        out.println("retried = 503s retried after backoff; 429s = times the API said slow down (the job waited, no"
                + " attempt used).");
        out.println("wait = admitted to first start; e2e = admitted to done, 429 pauses and retries included.");
    }

    private void printVerdict(PartnerApi api, JobQueue<String> queue, Worker.CloseReport closed, Duration drain) {
        List<Tally> all = new ArrayList<>(tallies.values());
        Tally noisy = all.get(0);
        List<Tally> quiet = all.subList(1, all.size());
        double quietSent = quiet.stream().mapToLong(t -> t.sent.sum()).average().orElse(0);
        long quietAdmitted = sum(quiet, t -> t.admitted.sum());
        long quietDone = sum(quiet, t -> t.done.sum());
        long quietRefused = sum(quiet, Tally::refused);
        long quiet429 = sum(quiet, t -> t.rateLimited.sum());
        long quietWorstP99 =
                quiet.stream().mapToLong(t -> t.wait.percentile(99)).max().orElse(-1);
        long noisyP99 = noisy.wait.percentile(99);
        long global429 = sum(all, t -> t.rateLimitedGlobal.sum());
        long admitted = sum(all, t -> t.admitted.sum());
        QueueStats stats = queue.stats();
        long left = unfinished(queue);

        out.println();
        boolean fair = quietDone == quietAdmitted && quietRefused == 0 && quietWorstP99 < noisyP99;
        out.println(
                fair
                        ? "Verdict: the noisy tenant did not starve the others."
                        : "Verdict: the quiet tenants were held back (see below).");
        out.printf(
                "  %-8s sent %.1fx what each other tenant sent; %d done (%.1f/s), %d refused at ingress,"
                        + " %d 429s%n",
                noisy.tenant,
                quietSent == 0 ? 0 : noisy.sent.sum() / quietSent,
                noisy.done.sum(),
                noisy.done.sum() / ((length.toNanos() + drain.toNanos()) / 1e9),
                noisy.refused(),
                noisy.rateLimited.sum());
        out.printf(
                "  %-8s %d of %d admitted requests done, %d refused, %d 429s; worst p99 wait %s (%s: %s)%n",
                "others",
                quietDone,
                quietAdmitted,
                quietRefused,
                quiet429,
                millis(quietWorstP99),
                noisy.tenant,
                millis(noisyP99));
        out.printf("  %-8s paused only the tenant that got them (%d from the API's global limit)%n", "429s", global429);
        out.printf(
                "  %-8s %.1f s, then the worker closed (%d finished while closing, %d returned to the queue)%n",
                "drain", drain.toNanos() / 1e9, closed.finished(), closed.returned());
        out.printf(
                "  %-8s admitted %d = %d completed + %d failed + %d still queued: %s%n",
                "jobs",
                admitted,
                stats.completed(),
                stats.failed(),
                left,
                admitted == stats.completed() + stats.failed() + left ? "none lost" : "MISMATCH");
        out.printf(
                "  %-8s wait of every attempt p50 %s, p99 %s; the partner API answered %d OK, %d 429, %d 503%n",
                "engine",
                stats.waitTime().count() == 0
                        ? "-"
                        : millis(stats.waitTime().p50().toNanos()),
                stats.waitTime().count() == 0
                        ? "-"
                        : millis(stats.waitTime().p99().toNanos()),
                api.ok.sum(),
                api.tooManyRequests.sum(),
                api.unavailable.sum());
    }

    private static long sum(List<Tally> tallies, ToLongFunction<Tally> what) {
        return tallies.stream().mapToLong(what).sum();
    }

    /** A duration in nanoseconds, as milliseconds below 10 s; "-" for none. */
    private static String millis(long nanos) {
        if (nanos < 0) {
            return "-";
        }
        if (nanos >= 10_000_000_000L) {
            return String.format("%.1f s", nanos / 1e9);
        }
        return String.format("%d ms", Math.round(nanos / 1e6));
    }
}
