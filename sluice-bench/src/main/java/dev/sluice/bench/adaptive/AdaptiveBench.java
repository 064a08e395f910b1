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
 * Every controller against every scenario of the simulated downstream, on virtual time, 20 seeds each: writes
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

    /** The figures of one controller on one scenario over all seeds, and the trace of the first seed (for plots). */
    record Result(String scenario, String controller, List<Figures> runs, List<Simulation.Second> firstTrace) {
        Interval of(ToDoubleFunction<Figures> figure) {
            return Interval.of(runs.stream().map(f -> figure.applyAsDouble(f)).toList());
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
        return new Result(scenario.name(), contender.name(), runs, first);
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
        long wall = Instant.now().getEpochSecond() - began.getEpochSecond();
        Files.createDirectories(out);
        Files.writeString(out.resolve("adaptive.json"), json(results, seeds, began, wall));
        System.setProperty("java.awt.headless", "true");
        List<Path> plots = new ArrayList<>();
        for (Scenario scenario : scenarios()) {
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
            new Column("goodput", "goodput share", Figures::goodput, v -> pct(v)),
            new Column("refusedShare", "429s / attempts", Figures::refusedShare, v -> pct(v)),
            new Column("safeAfterSeconds", "safe after (s)", Figures::safeAfter, v -> num(v, 1)),
            new Column("backTo90Seconds", "back to 90% (s)", Figures::backAfter, v -> num(v, 1)),
            new Column("overshoot", "peak overshoot", Figures::overshoot, v -> pct(v)),
            new Column("excessAttempts", "attempts over capacity", Figures::excess, v -> num(v, 0)),
            new Column("cutsInDrop", "cuts while low", Figures::cutsInDrop, v -> num(v, 1)),
            new Column("worstLatencyMs", "worst second's p99 latency (ms)", Figures::worstLatencyMs, v -> num(v, 0)),
            new Column("waitP99Seconds", "wait p99 (s)", Figures::waitP99, v -> num(v, 1)),
            new Column("fairness", "fairness (Jain)", Figures::fairness, v -> num(v, 3)));

    private record Column(String key, String label, ToDoubleFunction<Figures> figure, DoubleFunction<String> text) {}

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
            for (Column c : COLUMNS) {
                Interval i = r.of(c.figure());
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
        for (Result r : results) {
            if (!r.scenario().equals(scenario)) {
                scenario = r.scenario();
                md.append("\n## ").append(scenario).append("\n\n");
                md.append("![")
                        .append(scenario)
                        .append("](")
                        .append(plots.get(plot++).getFileName())
                        .append(")\n\n");
                md.append("| controller |");
                COLUMNS.forEach(c -> md.append(' ').append(c.label()).append(" |"));
                md.append("\n|---|");
                COLUMNS.forEach(c -> md.append("---:|"));
                md.append('\n');
            }
            md.append("| ").append(r.controller()).append(" |");
            for (Column c : COLUMNS) {
                Interval i = r.of(c.figure());
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
