package dev.sluice.bench.adaptive;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * One controller against one scenario's downstream on virtual time, in steps of a millisecond, with seeded
 * randomness: the same seed gives the same trace. A worker sends jobs as the controller allows (paced at its rate
 * with a burst of 20 ms, or up to its concurrency), hears each answer when it arrives, and tells the controller a
 * tick every 100 ms. A refused job waits again: for its Retry-After plus up to a fifth more if the controller
 * honours it, else not at all.
 */
final class Simulation {
    static final long MS = 1_000_000L;

    /** One second of a trace. */
    record Second(
            double capacity,
            double possible,
            int attempts,
            int served,
            int refused,
            double limit,
            long cuts,
            double latencyP99Ms) {}

    private record InFlight(long at, long sentAt, boolean served, long retryAfter, int process) {}

    private final Scenario scenario;
    private final Controller controller;
    private final Random random;
    private final Downstream downstream;
    private final PriorityQueue<InFlight> answers = new PriorityQueue<>((a, b) -> Long.compare(a.at(), b.at()));
    private final PriorityQueue<Long> retries = new PriorityQueue<>();
    private final LatencyWindow latencies = new LatencyWindow();
    private final boolean endless;
    private double backlog;
    private int inFlight;
    private long sends;
    private final int processes;
    private final int[] startedBy;
    private final int[] succeededBy;
    private final int[] refusedBy;

    private Simulation(Scenario scenario, Controller controller, long seed, int processes) {
        this.scenario = scenario;
        this.controller = controller;
        this.processes = processes;
        this.startedBy = new int[processes];
        this.succeededBy = new int[processes];
        this.refusedBy = new int[processes];
        this.random = new Random(seed);
        this.downstream = new Downstream(scenario.capacity(), scenario.kind(), scenario.retryAfter(), random);
        this.endless = Double.isInfinite(scenario.demand().at(0));
    }

    /** The trace of {@code controller} on {@code scenario} with {@code seed}, one entry per second. */
    static List<Second> run(Scenario scenario, Controller controller, long seed) {
        return run(scenario, controller, seed, 1);
    }

    /**
     * As {@link #run(Scenario, Controller, long)} with the work spread over {@code processes} processes that share the
     * controller (one rate, as the engine keeps it): jobs go to them in turn, and each reports what it saw every
     * 100 ms, the processes' reports evenly apart.
     */
    static List<Second> run(Scenario scenario, Controller controller, long seed, int processes) {
        return new Simulation(scenario, controller, seed, processes).run();
    }

    private List<Second> run() {
        List<Second> seconds = new ArrayList<>();
        double tokens = 0;
        double allowedInTick = 0;
        int sentInTick = 0;
        double capacitySum = 0;
        double available = backlog;
        int attempts = 0;
        int served = 0;
        int refused = 0;
        for (long ms = 0; ms < scenario.seconds() * 1000L; ms++) {
            long now = ms * MS;
            if (!endless) {
                double arriving = scenario.demand().at(now) / 1000;
                backlog += arriving;
                available += arriving;
            }
            while (!retries.isEmpty() && retries.peek() <= now) {
                retries.poll();
                backlog += 1;
                available += 1;
            }
            while (!answers.isEmpty() && answers.peek().at() <= now) {
                InFlight a = answers.poll();
                inFlight--;
                if (a.served()) {
                    served++;
                    latencies.add(a.at() - a.sentAt());
                    succeededBy[a.process()]++;
                    controller.served(a.sentAt(), a.at() - a.sentAt(), inFlight + 1, now);
                } else {
                    refused++;
                    refusedBy[a.process()]++;
                    controller.refused(a.sentAt(), a.retryAfter(), inFlight + 1, now);
                    long wait = controller.honoursRetryAfter() && a.retryAfter() > 0
                            ? a.retryAfter() + (long) (a.retryAfter() * 0.2 * random.nextDouble())
                            : 0;
                    retries.add(now + wait);
                }
            }
            double limit = controller.limit(now);
            if (controller.mode() == Controller.Mode.RATE) {
                boolean paused = now < controller.pausedUntil();
                double perMs = paused ? 0 : limit / 1000;
                tokens = Math.min(Math.max(1, limit * 0.02), tokens + perMs);
                allowedInTick += perMs;
                while (!paused && tokens >= 1 && hasWork()) {
                    send(now);
                    tokens -= 1;
                    sentInTick++;
                    attempts++;
                }
            } else {
                while (inFlight < limit && hasWork()) {
                    send(now);
                    attempts++;
                }
            }
            capacitySum += scenario.capacity().at(now);
            for (int p = 0; p < processes; p++) {
                if (ms % 100 == 99 - p * 100 / processes) {
                    double utilisation = allowedInTick > 0 ? sentInTick / allowedInTick : 0;
                    controller.tick(startedBy[p], succeededBy[p], refusedBy[p], utilisation, now);
                    startedBy[p] = 0;
                    succeededBy[p] = 0;
                    refusedBy[p] = 0;
                    if (p == 0) {
                        allowedInTick = 0;
                        sentInTick = 0;
                    }
                }
            }
            if (ms % 1000 == 999) {
                double capacity = capacitySum / 1000;
                double possible = endless ? capacity : Math.min(capacity, available);
                seconds.add(new Second(
                        capacity,
                        possible,
                        attempts,
                        served,
                        refused,
                        limit,
                        controller.cuts(),
                        latencies.p99() / 1e6));
                latencies.clear();
                capacitySum = 0;
                available = backlog;
                attempts = 0;
                served = 0;
                refused = 0;
            }
        }
        return seconds;
    }

    private boolean hasWork() {
        return endless || backlog >= 1;
    }

    private void send(long now) {
        if (!endless) {
            backlog -= 1;
        }
        inFlight++;
        int process = (int) (sends++ % processes);
        startedBy[process]++;
        Downstream.Answer answer = downstream.request(now);
        answers.add(new InFlight(answer.at(), now, answer.served(), answer.retryAfterNanos(), process));
    }
}
