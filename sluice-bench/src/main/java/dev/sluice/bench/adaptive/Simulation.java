package dev.sluice.bench.adaptive;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * One controller against one scenario's downstream on virtual time, in steps of a millisecond, with seeded
 * randomness: the same seed gives the same trace. A worker sends jobs as the controller allows (paced at its rate
 * with a burst of 20 ms, or up to its concurrency), hears each answer when it arrives, and tells the controller a
 * tick every 100 ms. A refused job waits again: for its Retry-After plus up to a fifth more if the controller
 * honours it, else not at all. Jobs of a finite demand wait in arrival order; a refused one keeps its first arrival.
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

    /**
     * A run: its seconds, the 99th percentile of a job's wait from its arrival to the start of the attempt that was
     * served (jobs still waiting at the end count with their wait so far; NaN for a backlog that never empties), and
     * Jain's fairness index of the jobs the processes served, each as a share of what was served while it was live.
     */
    record Trace(List<Second> seconds, double waitP99Ms, double fairness) {}

    private record InFlight(long at, long sentAt, boolean served, long retryAfter, int process, long arrivedAt) {}

    private record Retry(long at, long arrivedAt) {}

    private final Scenario scenario;
    private final Controller controller;
    private final Random random;
    private final Downstream downstream;
    private final PriorityQueue<InFlight> answers = new PriorityQueue<>((a, b) -> Long.compare(a.at(), b.at()));
    private final PriorityQueue<Retry> retries = new PriorityQueue<>((a, b) -> Long.compare(a.at(), b.at()));
    private final ArrayDeque<Long> waiting = new ArrayDeque<>();
    private final LatencyWindow latencies = new LatencyWindow();
    private final LatencyWindow waits = new LatencyWindow();
    private final boolean endless;
    private double backlog;
    private int inFlight;
    private long sends;
    private final int processes;
    private final Processes live;

    private Simulation(Scenario scenario, Controller controller, long seed, int processes) {
        this.scenario = scenario;
        this.controller = controller;
        this.processes = processes;
        this.random = new Random(seed);
        this.downstream = new Downstream(scenario.capacity(), scenario.kind(), scenario.retryAfter(), random);
        this.endless = Double.isInfinite(scenario.demand().at(0));
        int most = scenario.processes() == null
                ? processes
                : (int) Math.round(scenario.processes().max());
        this.live = new Processes(most);
    }

    /** The trace of {@code controller} on {@code scenario} with {@code seed}, one process. */
    static Trace run(Scenario scenario, Controller controller, long seed) {
        return run(scenario, controller, seed, 1);
    }

    /**
     * As {@link #run(Scenario, Controller, long)} with the work spread over {@code processes} processes (or as many as
     * the scenario's profile says are live) that share the controller (one rate, as the engine keeps it): jobs go to
     * the live ones in turn, and each reports what it saw every 100 ms, the processes' reports evenly apart. A process
     * that leaves dies: what it had not reported is lost, and the answers to its attempts are heard by no one.
     */
    static Trace run(Scenario scenario, Controller controller, long seed, int processes) {
        return new Simulation(scenario, controller, seed, processes).run();
    }

    private int liveAt(long now) {
        return scenario.processes() == null
                ? processes
                : (int) Math.max(1, Math.round(scenario.processes().at(now)));
    }

    private Trace run() {
        List<Second> seconds = new ArrayList<>();
        double tokens = 0;
        double allowedInTick = 0;
        int sentInTick = 0;
        double capacitySum = 0;
        double available = backlog;
        int attempts = 0;
        int served = 0;
        int refused = 0;
        long end = scenario.seconds() * 1000L * MS;
        for (long ms = 0; ms < scenario.seconds() * 1000L; ms++) {
            long now = ms * MS;
            live.resize(liveAt(now), now);
            if (ms == scenario.staleFrom() * 1000L) {
                controller.gaugeStale(true, now);
            }
            if (ms == scenario.staleUntil() * 1000L) {
                controller.gaugeStale(false, now);
            }
            if (!endless) {
                double arriving = scenario.demand().at(now) / 1000;
                backlog += arriving;
                available += arriving;
                while (waiting.size() < (long) backlog) {
                    waiting.addLast(now);
                }
            }
            while (!retries.isEmpty() && retries.peek().at() <= now) {
                Retry retry = retries.poll();
                backlog += 1;
                available += 1;
                if (!endless) {
                    waiting.addLast(retry.arrivedAt());
                }
            }
            while (!answers.isEmpty() && answers.peek().at() <= now) {
                InFlight a = answers.poll();
                inFlight--;
                boolean heard = live.heard(a.process(), a.sentAt());
                if (a.served()) {
                    served++;
                    latencies.add(a.at() - a.sentAt());
                    if (!endless) {
                        waits.add(a.sentAt() - a.arrivedAt());
                    }
                    if (heard) {
                        live.succeeded(a.process());
                        controller.served(a.sentAt(), a.at() - a.sentAt(), inFlight + 1, now);
                    }
                } else {
                    refused++;
                    long wait = 0;
                    if (heard) {
                        live.refused(a.process());
                        controller.refused(a.sentAt(), a.retryAfter(), inFlight + 1, now);
                        wait = controller.honoursRetryAfter() && a.retryAfter() > 0
                                ? a.retryAfter() + (long) (a.retryAfter() * 0.2 * random.nextDouble())
                                : 0;
                    }
                    retries.add(new Retry(now + wait, a.arrivedAt()));
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
            int count = live.count();
            for (int p = 0; p < count; p++) {
                if (ms % 100 == 99 - p * 100 / count) {
                    double utilisation = allowedInTick > 0 ? sentInTick / allowedInTick : 0;
                    Processes.Report report = live.report(p);
                    controller.tick(report.started(), report.succeeded(), report.refused(), utilisation, now);
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
        double waitP99 = Double.NaN;
        if (!endless) {
            waiting.forEach(arrived -> waits.add(end - arrived));
            retries.forEach(retry -> waits.add(end - retry.arrivedAt()));
            waitP99 = waits.p99() / 1e6;
        }
        return new Trace(List.copyOf(seconds), waitP99, live.fairness());
    }

    private boolean hasWork() {
        return endless || backlog >= 1;
    }

    private void send(long now) {
        long arrivedAt = now;
        if (!endless) {
            backlog -= 1;
            Long first = waiting.pollFirst();
            arrivedAt = first == null ? now : first;
        }
        inFlight++;
        int process = live.next(sends++);
        Downstream.Answer answer = downstream.request(now);
        answers.add(new InFlight(answer.at(), now, answer.served(), answer.retryAfterNanos(), process, arrivedAt));
    }

    /**
     * The processes of a run, the first {@link #count()} of them live: what each has not reported yet, when it last
     * left, and for fairness the jobs it served and its share of all served while it was live.
     */
    private static final class Processes {
        record Report(int started, int succeeded, int refused) {}

        private final int[] started;
        private final int[] succeeded;
        private final int[] refused;
        private final long[] leftAt;
        private final long[] servedBy;
        private final double[] shareBy;
        private final double[] shareAtJoin;
        private double share;
        private int count;

        Processes(int most) {
            started = new int[most];
            succeeded = new int[most];
            refused = new int[most];
            leftAt = new long[most];
            servedBy = new long[most];
            shareBy = new double[most];
            shareAtJoin = new double[most];
            Arrays.fill(leftAt, Long.MIN_VALUE);
        }

        int count() {
            return count;
        }

        /** {@code live} processes from {@code now}: those beyond it die, their unreported counts lost. */
        void resize(int live, long now) {
            for (int p = live; p < count; p++) {
                leftAt[p] = now;
                started[p] = 0;
                succeeded[p] = 0;
                refused[p] = 0;
                shareBy[p] += share - shareAtJoin[p];
            }
            for (int p = count; p < live; p++) {
                shareAtJoin[p] = share;
            }
            count = live;
        }

        /** The process the {@code send}th job goes to: the live ones in turn. */
        int next(long send) {
            int p = (int) (send % count);
            started[p]++;
            return p;
        }

        /** Whether process {@code p} is there to hear the answer to an attempt it sent at {@code sentAt}. */
        boolean heard(int p, long sentAt) {
            return p < count && sentAt >= leftAt[p];
        }

        void succeeded(int p) {
            succeeded[p]++;
            servedBy[p]++;
            share += 1.0 / count;
        }

        void refused(int p) {
            refused[p]++;
        }

        /** What process {@code p} started, saw succeed and saw refused since its last report; the counts restart. */
        Report report(int p) {
            Report report = new Report(started[p], succeeded[p], refused[p]);
            started[p] = 0;
            succeeded[p] = 0;
            refused[p] = 0;
            return report;
        }

        /** Jain's index over the processes ever live of the jobs each served over its share of all served. */
        double fairness() {
            double sum = 0;
            double squares = 0;
            int n = 0;
            for (int p = 0; p < servedBy.length; p++) {
                double due = shareBy[p] + (p < count ? share - shareAtJoin[p] : 0);
                if (due > 0) {
                    double x = servedBy[p] / due;
                    sum += x;
                    squares += x * x;
                    n++;
                }
            }
            return n == 0 ? Double.NaN : sum * sum / (n * squares);
        }
    }
}
