package dev.sluice.demo;

import dev.sluice.Sluice;
import dev.sluice.limit.Decision;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.Clock;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The layered limits of the seeds on one process: clients of several tenants call an API; each client is
 * limited at ingress, and each call then needs a permit from its tenant's limit AND the global limit of
 * the downstream API. One tenant is noisy; the others still get their share.
 */
final class LimiterDemo {
    private static final long GLOBAL_PER_SECOND = 120;
    private static final long TENANT_PER_SECOND = 50;
    private static final long CLIENT_PER_SECOND = 40;

    private record Tenant(String name, int clients, int callsPerSecondPerClient) {}

    private static final class Tally {
        final LongAdder offered = new LongAdder();
        final LongAdder allowed = new LongAdder();
        final LongAdder deniedAtIngress = new LongAdder();
        final LongAdder deniedByTenant = new LongAdder();
        final LongAdder deniedByGlobal = new LongAdder();
    }

    private final Duration length;
    private final PrintStream out;

    LimiterDemo(Duration length, PrintStream out) {
        this.length = length;
        this.out = out;
    }

    void run() throws InterruptedException {
        List<Tenant> tenants = List.of(
                new Tenant("noisy", 8, 60),
                new Tenant("acme", 1, 15),
                new Tenant("globex", 1, 15),
                new Tenant("initech", 1, 15));
        try (Sluice sluice = Sluice.inMemory()) {
            Clock clock = sluice.clock();
            RateLimiter ingress =
                    sluice.limiter("ingress", SlidingWindowLog.of(CLIENT_PER_SECOND, Duration.ofSeconds(1)));
            RateLimiter perTenant = sluice.limiter("tenant", TokenBucket.perSecond(TENANT_PER_SECOND));
            RateLimiter global = sluice.limiter("downstream", TokenBucket.perSecond(GLOBAL_PER_SECOND));
            LimitChain<String> downstream = sluice.<String>chain()
                    .layer(perTenant, tenant -> tenant)
                    .layer(global, "api")
                    .build();

            out.printf(
                    "Sluice limiter demo, in memory, %d s: per client %d/s (sliding log), per tenant %d/s AND global %d/s"
                            + " (token buckets, one all-or-nothing chain)%n",
                    length.toSeconds(), CLIENT_PER_SECOND, TENANT_PER_SECOND, GLOBAL_PER_SECOND);
            List<Tally> tallies = new ArrayList<>();
            List<Thread> clients = new ArrayList<>();
            long end = clock.nanos() + length.toNanos();
            for (Tenant tenant : tenants) {
                Tally tally = new Tally();
                tallies.add(tally);
                for (int c = 0; c < tenant.clients(); c++) {
                    String client = tenant.name() + "-client-" + c;
                    long gap = 1_000_000_000L / tenant.callsPerSecondPerClient();
                    clients.add(Thread.ofVirtual()
                            .start(() ->
                                    callUntil(end, clock, gap, client, tenant.name(), ingress, downstream, tally)));
                }
            }
            for (long second = 1; clock.nanos() < end; second++) {
                clock.sleep(Math.min(1_000_000_000L, end - clock.nanos()));
                out.printf("  t=%2ds %s%n", second, progress(tenants, tallies));
            }
            for (Thread client : clients) {
                client.join();
            }
            printTable(tenants, tallies);
        }
    }

    private static void callUntil(
            long end,
            Clock clock,
            long gapNanos,
            String client,
            String tenant,
            RateLimiter ingress,
            LimitChain<String> downstream,
            Tally tally) {
        try {
            for (long next = clock.nanos(); next < end; next += gapNanos) {
                clock.sleep(next - clock.nanos());
                tally.offered.increment();
                if (ingress.tryAcquire(client).denied()) {
                    tally.deniedAtIngress.increment();
                    continue;
                }
                Decision decision = downstream.tryAcquire(tenant);
                if (decision.allowed()) {
                    tally.allowed.increment();
                } else if (decision.limiter().equals("tenant")) {
                    tally.deniedByTenant.increment();
                } else {
                    tally.deniedByGlobal.increment();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String progress(List<Tenant> tenants, List<Tally> tallies) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < tenants.size(); i++) {
            line.append(String.format(
                    "%-8s %5d ok  ",
                    tenants.get(i).name(), tallies.get(i).allowed.sum()));
        }
        return line.toString();
    }

    private void printTable(List<Tenant> tenants, List<Tally> tallies) {
        double seconds = length.toNanos() / 1e9;
        out.println();
        out.printf(
                "%-8s %8s %8s %10s %10s %10s %9s%n",
                "tenant", "offered", "allowed", "ingress429", "tenant429", "global429", "allowed/s");
        for (int i = 0; i < tenants.size(); i++) {
            Tally t = tallies.get(i);
            out.printf(
                    "%-8s %8d %8d %10d %10d %10d %9.1f%n",
                    tenants.get(i).name(),
                    t.offered.sum(),
                    t.allowed.sum(),
                    t.deniedAtIngress.sum(),
                    t.deniedByTenant.sum(),
                    t.deniedByGlobal.sum(),
                    t.allowed.sum() / seconds);
        }
        out.printf(
                "%nThe noisy tenant offers %dx the others' traffic but is held to its own %d/s (after a first burst"
                        + " of as many); the quiet tenants keep their full rate.%n",
                tenants.get(0).clients()
                        * tenants.get(0).callsPerSecondPerClient()
                        / tenants.get(1).callsPerSecondPerClient(),
                TENANT_PER_SECOND);
    }
}
