package dev.sluice.bench.adaptive;

import java.util.List;

/**
 * What one trace measured (NaN where the scenario has no such moment).
 *
 * @param goodput jobs served as a share of what the capacity and the demand allowed
 * @param refusedShare 429s as a share of attempts, leaving out the first second after a drop
 * @param safeAfter seconds after the drop until the 429s fell under 1% of attempts (over the 5 s that follow): the
 *     end of the drop's storm of 429s (the probes after it count in {@code refusedShare})
 * @param backAfter seconds after the capacity's return until a second served at least 90% of it
 * @param overshoot the peak second's attempts above what the capacity allowed, as a share of it (after the first 2 s,
 *     leaving out the second the capacity drops in)
 * @param excess attempts above the capacity in all, summed over seconds
 * @param cutsInDrop how many times the controller lowered its limit while the capacity was low
 * @param worstLatencyMs the highest of the seconds' 99th percentiles of a served attempt's latency (after the first
 *     2 s), milliseconds: what a job waits at the downstream
 * @param waitP99 the 99th percentile of a job's wait from its arrival to the start of its served attempt, seconds
 *     (NaN for a backlog that never empties)
 * @param fairness Jain's fairness index of the jobs the processes served, each over its share (1 for one process)
 */
record Figures(
        double goodput,
        double refusedShare,
        double safeAfter,
        double backAfter,
        double overshoot,
        double excess,
        double cutsInDrop,
        double worstLatencyMs,
        double waitP99,
        double fairness) {

    /** The seconds over which the 429s' share counts for safety. */
    static final int SAFETY_WINDOW = 5;

    static Figures of(Scenario scenario, Simulation.Trace trace) {
        List<Simulation.Second> seconds = trace.seconds();
        double served = 0;
        double possible = 0;
        double attempts = 0;
        double refused = 0;
        double overshoot = 0;
        double excess = 0;
        double worstLatency = 0;
        for (int s = 0; s < seconds.size(); s++) {
            Simulation.Second second = seconds.get(s);
            served += second.served();
            possible += second.possible();
            if (s != scenario.dropAt()) {
                attempts += second.attempts();
                refused += second.refused();
            }
            if (s >= 2 && s != scenario.dropAt()) {
                overshoot = Math.max(overshoot, (second.attempts() - second.capacity()) / second.capacity());
            }
            excess += Math.max(0, second.attempts() - second.capacity());
            if (s >= 2) {
                worstLatency = Math.max(worstLatency, second.latencyP99Ms());
            }
        }
        return new Figures(
                served / possible,
                attempts == 0 ? 0 : refused / attempts,
                safeAfter(scenario, seconds),
                backAfter(scenario, seconds),
                Math.max(0, overshoot),
                excess,
                cutsInDrop(scenario, seconds),
                worstLatency,
                trace.waitP99Ms() / 1e3,
                trace.fairness());
    }

    private static double safeAfter(Scenario scenario, List<Simulation.Second> seconds) {
        if (scenario.dropAt() < 0) {
            return Double.NaN;
        }
        int end = scenario.returnAt() < 0 ? seconds.size() : scenario.returnAt();
        for (int s = scenario.dropAt(); s + SAFETY_WINDOW <= end; s++) {
            int attempts = 0;
            int refused = 0;
            for (int t = s; t < s + SAFETY_WINDOW; t++) {
                attempts += seconds.get(t).attempts();
                refused += seconds.get(t).refused();
            }
            if (refused < 0.01 * attempts || attempts == 0) {
                return s - scenario.dropAt();
            }
        }
        return end - scenario.dropAt();
    }

    private static double backAfter(Scenario scenario, List<Simulation.Second> seconds) {
        if (scenario.returnAt() < 0) {
            return Double.NaN;
        }
        for (int s = scenario.returnAt(); s < seconds.size(); s++) {
            Simulation.Second second = seconds.get(s);
            if (second.served() >= 0.9 * second.possible()) {
                return s - scenario.returnAt() + 1;
            }
        }
        return Double.NaN;
    }

    private static double cutsInDrop(Scenario scenario, List<Simulation.Second> seconds) {
        if (scenario.dropAt() < 1) {
            return Double.NaN;
        }
        int end = (scenario.returnAt() < 0 ? seconds.size() : scenario.returnAt()) - 1;
        return seconds.get(end).cuts() - seconds.get(scenario.dropAt() - 1).cuts();
    }
}
