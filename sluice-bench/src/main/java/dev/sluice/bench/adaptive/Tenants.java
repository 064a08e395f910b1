package dev.sluice.bench.adaptive;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.Supplier;

/**
 * Several tenants (the groups of one queue) with equal, endless demand sharing one downstream, each with its own
 * controller, as each group of a queue has its own adaptive rate in the engines: on virtual time, in steps of a
 * millisecond, with seeded randomness (the same seed gives the same trace). Each tenant is one process, as in
 * {@link Simulation}: it sends its jobs as its own controller allows (paced at its rate with a burst of 20 ms, or up
 * to its own concurrency), its controller hears the answers to its attempts only, and a report of its own every
 * 100 ms. The tenants take their turns within a millisecond in an order drawn anew each millisecond, so that none is
 * always first at the downstream's bucket. Demand is a backlog that never empties, so a refused job waiting its
 * Retry-After changes nothing of what a tenant may send.
 */
final class Tenants {
    /** How many tenants share the downstream. */
    static final int COUNT = 4;

    /**
     * A run: the seconds of all tenants together (capacity, attempts, served, refused; the limits and cuts summed over
     * the tenants; the p99 of every served attempt's latency), and each tenant's seconds (its own attempts, served,
     * refused, limit, cuts and latency; its quarter of the capacity).
     */
    record Trace(List<Simulation.Second> seconds, List<List<Simulation.Second>> tenants) {}

    /**
     * Fairness between the tenants of one run.
     *
     * @param wholeRun Jain's index over the tenants of the jobs each served over the whole run
     * @param lowMinute the same over the seconds the capacity is low (from the drop to the return)
     * @param worstLowShare the worst tenant's jobs served while the capacity is low, as a share of its fair part (the
     *     capacity over those seconds divided by the number of tenants)
     */
    record Fairness(double wholeRun, double lowMinute, double worstLowShare) {
        static Fairness of(Scenario scenario, Trace trace) {
            int tenants = trace.tenants().size();
            double[] whole = new double[tenants];
            double[] low = new double[tenants];
            for (int t = 0; t < tenants; t++) {
                List<Simulation.Second> seconds = trace.tenants().get(t);
                for (int s = 0; s < seconds.size(); s++) {
                    whole[t] += seconds.get(s).served();
                    if (s >= scenario.dropAt() && s < scenario.returnAt()) {
                        low[t] += seconds.get(s).served();
                    }
                }
            }
            double possible = 0;
            for (int s = Math.max(0, scenario.dropAt()); s < scenario.returnAt(); s++) {
                possible += trace.seconds().get(s).possible();
            }
            double worst = Double.POSITIVE_INFINITY;
            for (double served : low) {
                worst = Math.min(worst, served);
            }
            boolean hasLow = scenario.dropAt() >= 0 && scenario.returnAt() > scenario.dropAt();
            return new Fairness(
                    jain(whole),
                    hasLow ? jain(low) : Double.NaN,
                    hasLow && possible > 0 ? worst / (possible / tenants) : Double.NaN);
        }
    }

    private record InFlight(long at, long sentAt, boolean served, long retryAfter, int tenant) {}

    /** One tenant's controller, its pacing, and what it has not reported yet and what its second counted. */
    private static final class Tenant {
        final Controller controller;
        final LatencyWindow latencies = new LatencyWindow();
        final List<Simulation.Second> seconds = new ArrayList<>();
        double tokens;
        double allowedInTick;
        int sentInTick;
        int inFlight;
        double limit;
        int started;
        int succeeded;
        int refusedUnreported;
        int attempts;
        int served;
        int refused;

        Tenant(Controller controller) {
            this.controller = controller;
        }
    }

    private final Scenario scenario;
    private final Random random;
    private final Downstream downstream;
    private final Tenant[] tenants;
    private final PriorityQueue<InFlight> answers = new PriorityQueue<>((a, b) -> Long.compare(a.at(), b.at()));
    private final LatencyWindow latencies = new LatencyWindow();

    private Tenants(Scenario scenario, Supplier<Controller> controllers, int count, long seed) {
        if (!Double.isInfinite(scenario.demand().at(0)) || scenario.processes() != null) {
            throw new IllegalArgumentException(
                    "tenants run with a backlog that never empties and one process each: " + scenario.name());
        }
        this.scenario = scenario;
        this.random = new Random(seed);
        this.downstream = new Downstream(scenario.capacity(), scenario.kind(), scenario.retryAfter(), random);
        this.tenants = new Tenant[count];
        for (int t = 0; t < count; t++) {
            tenants[t] = new Tenant(controllers.get());
        }
    }

    /**
     * The trace of {@code count} tenants on {@code scenario} with {@code seed}, each with a controller of its own
     * from {@code controllers} (called once per tenant).
     */
    static Trace run(Scenario scenario, Supplier<Controller> controllers, int count, long seed) {
        return new Tenants(scenario, controllers, count, seed).run();
    }

    /** Jain's fairness index of {@code x}: (Σx)² / (n·Σx²), 1 when all are equal, 1/n when one has all; NaN if none. */
    static double jain(double... x) {
        double sum = 0;
        double squares = 0;
        for (double v : x) {
            sum += v;
            squares += v * v;
        }
        return squares == 0 ? Double.NaN : sum * sum / (x.length * squares);
    }

    /** {@code profile} divided by {@code parts}: a tenant's fair part of a capacity. */
    static Profile share(Profile profile, int parts) {
        return new Profile(profile.phases().stream()
                .map(p -> new Profile.Phase(p.startSeconds(), p.value() / parts, p.drifts()))
                .toList());
    }

    private Trace run() {
        List<Simulation.Second> seconds = new ArrayList<>();
        double capacitySum = 0;
        for (long ms = 0; ms < scenario.seconds() * 1000L; ms++) {
            long now = ms * Simulation.MS;
            for (Tenant tenant : tenants) {
                if (ms == scenario.staleFrom() * 1000L) {
                    tenant.controller.gaugeStale(true, now);
                }
                if (ms == scenario.staleUntil() * 1000L) {
                    tenant.controller.gaugeStale(false, now);
                }
            }
            while (!answers.isEmpty() && answers.peek().at() <= now) {
                hear(answers.poll(), now);
            }
            int first = random.nextInt(tenants.length);
            for (int i = 0; i < tenants.length; i++) {
                send(tenants[(first + i) % tenants.length], (first + i) % tenants.length, now);
            }
            capacitySum += scenario.capacity().at(now);
            if (ms % 100 == 99) {
                for (Tenant tenant : tenants) {
                    double utilisation = tenant.allowedInTick > 0 ? tenant.sentInTick / tenant.allowedInTick : 0;
                    tenant.controller.tick(
                            tenant.started, tenant.succeeded, tenant.refusedUnreported, utilisation, now);
                    tenant.started = 0;
                    tenant.succeeded = 0;
                    tenant.refusedUnreported = 0;
                    tenant.allowedInTick = 0;
                    tenant.sentInTick = 0;
                }
            }
            if (ms % 1000 == 999) {
                double capacity = capacitySum / 1000;
                seconds.add(second(capacity));
                latencies.clear();
                capacitySum = 0;
            }
        }
        List<List<Simulation.Second>> each = new ArrayList<>();
        for (Tenant tenant : tenants) {
            each.add(List.copyOf(tenant.seconds));
        }
        return new Trace(List.copyOf(seconds), List.copyOf(each));
    }

    private void hear(InFlight a, long now) {
        Tenant tenant = tenants[a.tenant()];
        tenant.inFlight--;
        if (a.served()) {
            tenant.served++;
            tenant.succeeded++;
            latencies.add(a.at() - a.sentAt());
            tenant.latencies.add(a.at() - a.sentAt());
            tenant.controller.served(a.sentAt(), a.at() - a.sentAt(), tenant.inFlight + 1, now);
        } else {
            tenant.refused++;
            tenant.refusedUnreported++;
            tenant.controller.refused(a.sentAt(), a.retryAfter(), tenant.inFlight + 1, now);
        }
    }

    /** What {@code tenant}'s controller allows it to send at {@code now}, sent. */
    private void send(Tenant tenant, int index, long now) {
        double limit = tenant.controller.limit(now);
        tenant.limit = limit;
        if (tenant.controller.mode() == Controller.Mode.RATE) {
            boolean paused = now < tenant.controller.pausedUntil();
            double perMs = paused ? 0 : limit / 1000;
            tenant.tokens = Math.min(Math.max(1, limit * 0.02), tenant.tokens + perMs);
            tenant.allowedInTick += perMs;
            while (!paused && tenant.tokens >= 1) {
                attempt(tenant, index, now);
                tenant.tokens -= 1;
                tenant.sentInTick++;
            }
        } else {
            while (tenant.inFlight < limit) {
                attempt(tenant, index, now);
            }
        }
    }

    private void attempt(Tenant tenant, int index, long now) {
        tenant.inFlight++;
        tenant.started++;
        tenant.attempts++;
        Downstream.Answer answer = downstream.request(now);
        answers.add(new InFlight(answer.at(), now, answer.served(), answer.retryAfterNanos(), index));
    }

    /** The second that ends now, of all tenants together; each tenant's own is added to its seconds. */
    private Simulation.Second second(double capacity) {
        int attempts = 0;
        int served = 0;
        int refused = 0;
        double limit = 0;
        long cuts = 0;
        double part = capacity / tenants.length;
        for (Tenant tenant : tenants) {
            tenant.seconds.add(new Simulation.Second(
                    part,
                    part,
                    tenant.attempts,
                    tenant.served,
                    tenant.refused,
                    tenant.limit,
                    tenant.controller.cuts(),
                    tenant.latencies.p99() / 1e6));
            attempts += tenant.attempts;
            served += tenant.served;
            refused += tenant.refused;
            limit += tenant.limit;
            cuts += tenant.controller.cuts();
            tenant.latencies.clear();
            tenant.attempts = 0;
            tenant.served = 0;
            tenant.refused = 0;
        }
        return new Simulation.Second(capacity, capacity, attempts, served, refused, limit, cuts, latencies.p99() / 1e6);
    }
}
