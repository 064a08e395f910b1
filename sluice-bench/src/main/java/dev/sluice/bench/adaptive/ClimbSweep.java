package dev.sluice.bench.adaptive;

import dev.sluice.internal.adaptive.ControlSettings;
import java.time.Duration;
import java.util.List;

/**
 * The trade-off of Sluice's rule on 200 -> 50 -> 200 as its cut and climb time vary (20 seeds each, beside the AWS
 * CUBIC bucket): a longer climb probes less often (fewer 429s) but comes back more slowly (less goodput, later back
 * to 90%). Prints a Markdown table.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.sluice.bench.adaptive.ClimbSweep}
 */
public final class ClimbSweep {
    private static final int SEEDS = 20;

    private ClimbSweep() {}

    /**
     * Runs the sweep.
     *
     * @param args none
     */
    public static void main(String[] args) {
        Scenario drop = Scenario.dropAndReturn(Downstream.RetryAfter.ONE_SECOND);
        System.out.println("| controller | goodput | 429s / attempts | back to 90% (s) | peak overshoot |");
        System.out.println("|---|---:|---:|---:|---:|");
        for (double cut : List.of(0.85, 0.9)) {
            for (long climbMillis : List.of(3_000L, 3_250L, 3_500L, 3_750L, 4_000L, 6_000L)) {
                ControlSettings settings = new ControlSettings(
                        5,
                        400,
                        200,
                        cut,
                        ControlSettings.DEFAULT_EPISODE,
                        Duration.ofMillis(climbMillis),
                        ControlSettings.DEFAULT_APP_LIMITED,
                        ControlSettings.DEFAULT_LATENCY_TOLERANCE);
                String name = "sluice, cut " + cut + ", climb " + climbMillis + " ms";
                print(
                        name,
                        AdaptiveBench.run(
                                drop,
                                new AdaptiveBench.Contender(name, s -> new Controllers.Sluice(name, settings, false)),
                                SEEDS));
            }
        }
        print(
                "aws-cubic",
                AdaptiveBench.run(
                        drop, new AdaptiveBench.Contender("aws-cubic", s -> new Controllers.AwsCubic(400)), SEEDS));
    }

    private static void print(String name, AdaptiveBench.Result result) {
        System.out.printf(
                "| %s | %.1f%% | %.3f%% | %.1f | %.1f%% |%n",
                name,
                100 * result.of(Figures::goodput).mean(),
                100 * result.of(Figures::refusedShare).mean(),
                result.of(Figures::backAfter).mean(),
                100 * result.of(Figures::overshoot).mean());
    }
}
