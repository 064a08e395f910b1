package dev.sluice.bench.adaptive;

import dev.sluice.bench.QueueResults;
import dev.sluice.internal.adaptive.ControlSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Every controller against every scenario of the simulated downstream, on virtual time, 20 seeds each, and then the
 * scenario of {@link Tenants} (four tenants, each with a controller of its own, sharing the downstream): writes
 * {@code adaptive.json} (per scenario and controller the mean of each figure and its 95% interval) and
 * {@code adaptive.md} (the tables) into the folder given (default {@code bench/results}).
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.sluice.bench.adaptive.AdaptiveBench [--seeds 20] [--out DIR]}
 */
public final class AdaptiveBench {
    /** Student's t at 95% (two-sided) for 19 degrees of freedom, the default 20 seeds. */
    private static final double T_19 = 2.093;

    private AdaptiveBench() {}

    /** A controller made anew for each run (it keeps state), shared by the processes of the run. */
    record Contender(String name, int processes, Function<Scenario, Controller> make) {
        Contender(String name, Function<Scenario, Controller> make) {
            this(name, 1, make);
        }
    }

    /** A figure's mean over the seeds and the half-width of its 95% interval. */
    record Interval(double mean, double halfWidth) {
        static Interval of(List<Double> values) {
            List<Double> known = values.stream().filter(v -> !v.isNaN()).toList();
            if (known.isEmpty()) {
                return new Interval(Double.NaN, Double.NaN);
            }
            double mean =
                    known.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
            double variance =
                    known.stream().mapToDouble(v -> (v - mean) * (v - mean)).sum() / Math.max(1, known.size() - 1);
            double t = known.size() == 20 ? T_19 : 1.96;
            return new Interval(mean, t * Math.sqrt(variance / known.size()));
        }
    }

    /**
     * The figures of one controller on one scenario over all seeds (on the tenants' scenario, of all tenants
     * together, and their fairness; else no fairness between tenants), and the trace of the first seed (for plots).
     */
    record Result(
            String scenario,
            String controller,
            List<Figures> runs,
            List<Simulation.Second> firstTrace,
            List<Tenants.Fairness> tenants) {
        Interval of(ToDoubleFunction<Figures> figure) {
            return Interval.of(runs.stream().map(f -> figure.applyAsDouble(f)).toList());
        }

        Interval ofTenants(ToDoubleFunction<Tenants.Fairness> figure) {
            return Interval.of(
                    tenants.stream().map(f -> figure.applyAsDouble(f)).toList());
        }
    }

    static List<Contender> contenders() {
        List<Contender> list = new ArrayList<>();
        ControlSettings sluice = ControlSettings.between(5, 400).startingAt(200);
        list.add(new Contender("sluice", s -> new Controllers.Sluice("sluice", sluice, false)));
        for (int processes : new int[] {4, 16, 64}) {
            String name = "sluice, " + processes + " processes";
            list.add(new Contender(name, processes, s -> new Controllers.Sluice(name, sluice, false)));
        }
        list.add(new Contender("sluice-pausing", s -> new Controllers.Sluice("sluice-pausing", sluice, true)));
        list.add(new Contender("static-200", s -> new Controllers.Static("static-200", 200)));
        list.add(new Contender("static-50", s -> new Controllers.Static("static-50", 50)));
        list.add(new Contender("oracle", s -> new Controllers.Oracle(s.capacity())));
        list.add(new Contender("bullmq-pause", s -> new Controllers.BullmqPause(200)));
        list.add(new Contender("seed-as-written", s -> new Controllers.Seed(false, 5, 400)));
        list.add(new Contender("seed-cpu-corrected", s -> new Controllers.Seed(true, 5, 400)));
        list.add(new Contender("netflix-aimd", s -> new Controllers.Aimd()));
        list.add(new Contender("netflix-gradient2", s -> new Controllers.Gradient2()));
        list.add(new Contender("aws-cubic", s -> new Controllers.AwsCubic(400)));
        return list;
    }

    /**
     * The controllers of the tenants' scenario, one instance per tenant, each started at a quarter of where the
     * controller of one tenant starts (its ceiling, for those that start at it): Sluice at 50/s (floor 5, ceiling
     * 400), fixed rates of a quarter of 200 and of 50, the oracle at a quarter of the capacity, BullMQ's pause at
     * 50/s, the seed's controller at 100/s (its ceiling), Netflix's AIMD and Gradient2 at a concurrency of 5 (their
     * ceiling of 200 kept), the AWS bucket with a ceiling of 100/s. Named as the contenders of one tenant.
     */
    static List<Contender> tenantContenders() {
        int n = Tenants.COUNT;
        ControlSettings sluice = ControlSettings.between(5, 400).startingAt(200.0 / n);
        List<Contender> list = new ArrayList<>();
        list.add(new Contender("sluice", s -> new Controllers.Sluice("sluice", sluice, false)));
        list.add(new Contender("sluice-pausing", s -> new Controllers.Sluice("sluice-pausing", sluice, true)));
        list.add(new Contender("static-200", s -> new Controllers.Static("static-200", 200.0 / n)));
        list.add(new Contender("static-50", s -> new Controllers.Static("static-50", 50.0 / n)));
        list.add(new Contender("oracle", s -> new Controllers.Oracle(Tenants.share(s.capacity(), n))));
        list.add(new Contender("bullmq-pause", s -> new Controllers.BullmqPause(200.0 / n)));
        list.add(new Contender("seed-as-written", s -> new Controllers.Seed(false, 5, 400.0 / n)));
        list.add(new Contender("seed-cpu-corrected", s -> new Controllers.Seed(true, 5, 400.0 / n)));
        list.add(new Contender("netflix-aimd", s -> new Controllers.Aimd(20.0 / n)));
        list.add(new Contender("netflix-gradient2", s -> new Controllers.Gradient2(20.0 / n)));
        list.add(new Contender("aws-cubic", s -> new Controllers.AwsCubic(400.0 / n)));
        return list;
    }

    static List<Scenario> scenarios() {
        return List.of(
                Scenario.dropAndReturn(Downstream.RetryAfter.ONE_SECOND),
                Scenario.dropAndReturn(Downstream.RetryAfter.ABSENT),
                Scenario.dropAndReturn(Downstream.RetryAfter.HALF),
                Scenario.refusalsOnly(),
                Scenario.latencyOnly(),
                Scenario.noisyNeighbour(),
                Scenario.slowDrift(),
                Scenario.appLimitedThenBacklog(),
                Scenario.processesJoiningAndLeaving(),
                Scenario.staleGauge());
    }

    /**
     * Whether {@code contender} runs on {@code scenario}: not one of several processes where the scenario says how
     * many are live (it would repeat the run of one).
     */
    static boolean runs(Scenario scenario, Contender contender) {
        return scenario.processes() == null || contender.processes() == 1;
    }

    static Result run(Scenario scenario, Contender contender, int seeds) {
        List<Figures> runs = new ArrayList<>();
        List<Simulation.Second> first = null;
        for (long seed = 1; seed <= seeds; seed++) {
            Controller controller = contender.make().apply(scenario);
            Simulation.Trace trace = Simulation.run(scenario, controller, seed, contender.processes());
            if (first == null) {
                first = trace.seconds();
            }
            runs.add(Figures.of(scenario, trace));
        }
        return new Result(scenario.name(), contender.name(), runs, first, List.of());
    }

    /** {@code contender} on the tenants' {@code scenario}, a controller of its own for each tenant. */
    static Result runTenants(Scenario scenario, Contender contender, int seeds) {
        List<Figures> runs = new ArrayList<>();
        List<Tenants.Fairness> fairness = new ArrayList<>();
        List<Simulation.Second> first = null;
        for (long seed = 1; seed <= seeds; seed++) {
            Tenants.Trace trace = Tenants.run(scenario, () -> contender.make().apply(scenario), Tenants.COUNT, seed);
            if (first == null) {
                first = trace.seconds();
            }
            Tenants.Fairness f = Tenants.Fairness.of(scenario, trace);
            fairness.add(f);
            runs.add(Figures.of(scenario, new Simulation.Trace(trace.seconds(), Double.NaN, f.wholeRun())));
        }
        return new Result(scenario.name(), contender.name(), runs, first, List.copyOf(fairness));
    }

    public static void main(String[] args) throws IOException {
        int seeds = 20;
        Path out = Path.of("bench/results");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seeds" -> seeds = Integer.parseInt(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                default ->
                    throw new IllegalArgumentException(
                            "unknown argument " + args[i] + " (options: --seeds N, --out DIR)");
            }
        }
        Instant began = Instant.now();
        List<Result> results = new ArrayList<>();
        for (Scenario scenario : scenarios()) {
            for (Contender contender : contenders()) {
                if (runs(scenario, contender)) {
                    results.add(run(scenario, contender, seeds));
                }
            }
        }
        Scenario shared = Scenario.sharedByTenants();
        for (Contender contender : tenantContenders()) {
            results.add(runTenants(shared, contender, seeds));
        }
        long wall = Instant.now().getEpochSecond() - began.getEpochSecond();
        Files.createDirectories(out);
        Files.writeString(out.resolve("adaptive.json"), json(results, seeds, began, wall));
        System.setProperty("java.awt.headless", "true");
        List<Path> plots = new ArrayList<>();
        List<Scenario> plotted = new ArrayList<>(scenarios());
        plotted.add(shared);
        for (Scenario scenario : plotted) {
            plots.add(Plots.write(
                    out,
                    scenario,
                    results.stream()
                            .filter(r -> r.scenario().equals(scenario.name()))
                            .toList()));
        }
        String markdown = markdown(results, seeds, plots);
        Files.writeString(out.resolve("adaptive.md"), markdown);
        System.out.print(markdown);
    }

    private static final List<Column> COLUMNS = List.of(
            column("goodput", "goodput share", Figures::goodput, v -> pct(v)),
            column("refusedShare", "429s / attempts", Figures::refusedShare, v -> pct(v)),
            column("safeAfterSeconds", "safe after (s)", Figures::safeAfter, v -> num(v, 1)),
            column("backTo90Seconds", "back to 90% (s)", Figures::backAfter, v -> num(v, 1)),
            column("overshoot", "peak overshoot", Figures::overshoot, v -> pct(v)),
            column("excessAttempts", "attempts over capacity", Figures::excess, v -> num(v, 0)),
            column("cutsInDrop", "cuts while low", Figures::cutsInDrop, v -> num(v, 1)),
            column("worstLatencyMs", "worst second's p99 latency (ms)", Figures::worstLatencyMs, v -> num(v, 0)),
            column("waitP99Seconds", "wait p99 (s)", Figures::waitP99, v -> num(v, 1)),
            column("fairness", "fairness (Jain)", Figures::fairness, v -> num(v, 3)));

    /** The figures of fairness between tenants, beyond {@link #COLUMNS} (whose fairness is then the whole run's). */
    private static final List<Column> TENANT_COLUMNS = List.of(
            tenantColumn("fairnessLowMinute", "fairness while low (Jain)", Tenants.Fairness::lowMinute, v -> num(v, 3)),
            tenantColumn(
                    "worstTenantLowShare",
                    "worst tenant while low (share of its quarter)",
                    Tenants.Fairness::worstLowShare,
                    v -> pct(v)));

    /** The tenants' table: the totals' figures that mean something there, and fairness between the tenants. */
    private static final List<Column> TENANT_TABLE = List.of(
            COLUMNS.get(0),
            COLUMNS.get(1),
            COLUMNS.get(2),
            COLUMNS.get(3),
            COLUMNS.get(4),
            COLUMNS.get(6),
            COLUMNS.get(7),
            column("fairness", "fairness over the run (Jain)", Figures::fairness, v -> num(v, 3)),
            TENANT_COLUMNS.get(0),
            TENANT_COLUMNS.get(1));

    private record Column(String key, String label, Function<Result, Interval> interval, DoubleFunction<String> text) {}

    private static Column column(
            String key, String label, ToDoubleFunction<Figures> figure, DoubleFunction<String> text) {
        return new Column(key, label, r -> r.of(figure), text);
    }

    private static Column tenantColumn(
            String key, String label, ToDoubleFunction<Tenants.Fairness> figure, DoubleFunction<String> text) {
        return new Column(key, label, r -> r.ofTenants(figure), text);
    }

    private static String json(List<Result> results, int seeds, Instant began, long wall) {
        QueueResults.Json json = new QueueResults.Json().begin();
        json.header("dev.sluice.bench.adaptive.AdaptiveBench (simulated downstream, virtual time)", began, wall);
        json.field("seeds", seeds);
        json.field("interval", "mean and the half-width of its 95% interval (Student's t) over the seeds");
        json.object("results");
        for (Result r : results) {
            json.object(r.scenario() + " | " + r.controller());
            json.field("scenario", r.scenario());
            json.field("controller", r.controller());
            List<Column> columns = new ArrayList<>(COLUMNS);
            if (!r.tenants().isEmpty()) {
                columns.addAll(TENANT_COLUMNS);
            }
            for (Column c : columns) {
                Interval i = c.interval().apply(r);
                json.object(c.key())
                        .field("mean", i.mean(), 4)
                        .field("halfWidth", i.halfWidth(), 4)
                        .end();
            }
            json.end();
        }
        json.end();
        return json.end().toString();
    }

    private static String markdown(List<Result> results, int seeds, List<Path> plots) {
        StringBuilder md = new StringBuilder("# Adaptive rates in simulation\n\n");
        md.append(
                        "`java -cp sluice-bench/target/benchmarks.jar dev.sluice.bench.adaptive.AdaptiveBench` (virtual time, ")
                .append(seeds)
                .append(
                        " seeds per cell; mean ± half-width of the 95% interval). How the simulation works and what each"
                                + " controller is: docs/adaptive-simulation.md. —: the scenario has no such moment or"
                                + " figure (a wait with a backlog that never empties), or it never came. Where a scenario"
                                + " sets how many processes are live, the contenders of one process run with them.\n");
        String scenario = null;
        int plot = 0;
        List<Column> columns = COLUMNS;
        for (Result r : results) {
            if (!r.scenario().equals(scenario)) {
                scenario = r.scenario();
                columns = r.tenants().isEmpty() ? COLUMNS : TENANT_TABLE;
                md.append("\n## ").append(scenario).append("\n\n");
                if (!r.tenants().isEmpty()) {
                    md.append(Tenants.COUNT)
                            .append(" tenants with equal, endless demand share the downstream, each with a controller")
                            .append(" of its own started at a quarter of one tenant's start (AdaptiveBench")
                            .append(".tenantContenders); the figures are of all tenants together, and fairness")
                            .append(" between them: Jain's index of the jobs each tenant served, over the run and")
                            .append(" while the capacity is low (60–120 s), and the worst tenant's jobs served")
                            .append(" while low as a share of its quarter of the capacity.\n\n");
                }
                md.append("![")
                        .append(scenario)
                        .append("](")
                        .append(plots.get(plot++).getFileName())
                        .append(")\n\n");
                md.append("| controller |");
                columns.forEach(c -> md.append(' ').append(c.label()).append(" |"));
                md.append("\n|---|");
                columns.forEach(c -> md.append("---:|"));
                md.append('\n');
            }
            md.append("| ").append(r.controller()).append(" |");
            for (Column c : columns) {
                Interval i = c.interval().apply(r);
                md.append(' ').append(Double.isNaN(i.mean()) ? "—" : c.text().apply(i.mean()));
                if (!Double.isNaN(i.halfWidth()) && i.halfWidth() > 0) {
                    md.append(" ± ").append(c.text().apply(i.halfWidth()));
                }
                md.append(" |");
            }
            md.append('\n');
        }
        return md.toString();
    }

    private static String pct(double v) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * v);
    }

    private static String num(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
