package dev.sluice.bench;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The arithmetic of {@link QueueRedisBench}, defined exactly as the BullMQ harness defines it
 * ({@code ../shared/bench/bullmq/bench.mjs}), so that both sides' figures mean the same: nearest-rank
 * percentiles, the median of the runs, and the most starts in any sliding or fixed window.
 */
final class QueueRedisFigures {
    private QueueRedisFigures() {}

    /**
     * The nearest-rank percentile of {@code sorted}: the element at {@code ceil(p * n) - 1}, clamped to the
     * array; NaN if empty.
     */
    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
        return sorted[index];
    }

    /** The median of the finite values (the mean of the middle two for an even count); NaN if none. */
    static double median(List<Double> values) {
        double[] sorted = values.stream()
                .filter(v -> v != null && Double.isFinite(v))
                .mapToDouble(Double::doubleValue)
                .sorted()
                .toArray();
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /** The mean; NaN if empty. */
    static double mean(double[] values) {
        return Arrays.stream(values).average().orElse(Double.NaN);
    }

    /**
     * The largest number of {@code sorted} times in any half-open window {@code [t, t + windowMs)}, windows
     * anchored at every time (two pointers, exact).
     */
    static int maxSliding(double[] sorted, double windowMs) {
        int best = 0;
        int j = 0;
        for (int i = 0; i < sorted.length; i++) {
            j = Math.max(j, i);
            while (j < sorted.length && sorted[j] < sorted[i] + windowMs) {
                j++;
            }
            best = Math.max(best, j - i);
        }
        return best;
    }

    /** The largest number of times in one bucket {@code floor((t - origin) / windowMs)}. */
    static int maxFixed(double[] times, double windowMs, double origin) {
        Map<Long, Integer> buckets = new HashMap<>();
        int best = 0;
        for (double t : times) {
            int count = buckets.merge((long) Math.floor((t - origin) / windowMs), 1, Integer::sum);
            best = Math.max(best, count);
        }
        return best;
    }

    /**
     * The figures of a rate-limited run (scenarios D and E), as the BullMQ harness names them: {@code starts}
     * are the epoch milliseconds at which processors were invoked, {@code stamped} the engine's own start
     * stamps of the same jobs, {@code t0} when the workers were started and {@code end} the last completion.
     */
    static Map<String, Double> limiterFigures(
            double[] starts, double[] stamped, double t0, double end, double windowMs) {
        double[] s = starts.clone();
        double[] p = stamped.clone();
        Arrays.sort(s);
        Arrays.sort(p);
        int n = s.length;
        double span = s[n - 1] - s[0];
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("achieved_jobs_per_s", n / ((end - t0) / 1000));
        figures.put("start_span_ms", span);
        figures.put("start_rate_jobs_per_s", (n - 1) / span * 1000);
        figures.put("max_sliding_1000ms", (double) maxSliding(s, windowMs));
        figures.put("max_fixed_aligned_1000ms", (double) maxFixed(s, windowMs, 0));
        figures.put("max_sliding_1000ms_processedOn", (double) maxSliding(p, windowMs));
        figures.put("max_fixed_aligned_1000ms_processedOn", (double) maxFixed(p, windowMs, 0));
        return figures;
    }
}
