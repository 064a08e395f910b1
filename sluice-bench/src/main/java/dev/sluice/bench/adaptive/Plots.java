package dev.sluice.bench.adaptive;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * One PNG per scenario: the downstream's capacity and, for the first seed, the attempts each plotted controller sent
 * per second (the axis stops at 450: controllers that send thousands leave the top).
 */
final class Plots {
    /** The controllers plotted, in the legend's order. */
    static final List<String> PLOTTED = List.of("sluice", "aws-cubic", "bullmq-pause", "seed-cpu-corrected");

    private static final double TOP = 450;
    private static final Color[] COLOURS = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0x9467bd)
    };

    private Plots() {}

    /** The file a scenario's plot goes to in {@code folder}. */
    static Path file(Path folder, Scenario scenario) {
        String slug = scenario.name()
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^a-z0-9]+", "-")
                .replaceAll("^-|-$", "");
        return folder.resolve("adaptive-" + slug + ".png");
    }

    /** Writes the plot of {@code scenario} with the first traces of the results named in {@link #PLOTTED}. */
    static Path write(Path folder, Scenario scenario, List<AdaptiveBench.Result> results) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        XYSeries capacity = new XYSeries("capacity");
        List<Simulation.Second> any = null;
        for (String name : PLOTTED) {
            List<Simulation.Second> trace = results.stream()
                    .filter(r -> r.controller().equals(name))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no result of a controller named " + name))
                    .firstTrace();
            XYSeries sent = new XYSeries(name + " (attempts/s)");
            for (int s = 0; s < trace.size(); s++) {
                sent.add(s, Math.min(TOP, trace.get(s).attempts()));
            }
            data.addSeries(sent);
            any = trace;
        }
        for (int s = 0; s < any.size(); s++) {
            capacity.add(s, any.get(s).capacity());
        }
        data.addSeries(capacity);
        JFreeChart chart = ChartFactory.createXYLineChart(
                scenario.name() + " (seed 1)",
                "seconds",
                "jobs per second",
                data,
                PlotOrientation.VERTICAL,
                true,
                false,
                false);
        XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        plot.getRangeAxis().setRange(0, TOP);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
        for (int i = 0; i < PLOTTED.size(); i++) {
            renderer.setSeriesPaint(i, COLOURS[i % COLOURS.length]);
            renderer.setSeriesStroke(i, new BasicStroke(1.2f));
        }
        renderer.setSeriesPaint(PLOTTED.size(), Color.BLACK);
        renderer.setSeriesStroke(PLOTTED.size(), new BasicStroke(2.5f));
        plot.setRenderer(renderer);
        Path out = file(folder, scenario);
        ChartUtils.saveChartAsPNG(out.toFile(), chart, 1000, 450);
        return out;
    }
}
