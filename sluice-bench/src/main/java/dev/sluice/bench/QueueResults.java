package dev.sluice.bench;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The samples of {@link QueueLocalBench}, their medians and ratios, and a small JSON writer for them. */
public final class QueueResults {
    /** One contender in one case: a throughput sample (jobs per second) per measured round. */
    static final class Series {
        final String id;
        final String kind;
        final String contender;
        final int concurrency;
        final List<Long> nanos = new ArrayList<>();
        final List<Long> cpuNanos = new ArrayList<>();
        final List<Long> allocatedBytes = new ArrayList<>();
        final List<Long> gcCount = new ArrayList<>();
        final List<Long> gcMillis = new ArrayList<>();
        final List<Double> jobsPerSecond = new ArrayList<>();
        int jobs;

        Series(String id, String kind, String contender, int concurrency) {
            this.id = id;
            this.kind = kind;
            this.contender = contender;
            this.concurrency = concurrency;
        }

        void add(int jobs, QueueMeter.Timing timing) {
            this.jobs = jobs;
            nanos.add(timing.nanos());
            cpuNanos.add(timing.cpuNanos());
            allocatedBytes.add(timing.allocatedBytes());
            gcCount.add(timing.gcCount());
            gcMillis.add(timing.gcMillis());
            jobsPerSecond.add(jobs * 1e9 / timing.nanos());
        }

        /** Median over the rounds of the process's CPU time per job, in nanoseconds. */
        double medianCpuNanosPerJob() {
            return QueueResults.median(
                    cpuNanos.stream().map(c -> (double) c / jobs).toList());
        }

        /** Median over the rounds of the collections that ran during the batch. */
        double medianGcCount() {
            return QueueResults.median(gcCount.stream().map(c -> (double) c).toList());
        }

        /** Median over the rounds of the bytes Java threads allocated per job (negative: unknown). */
        double medianAllocatedBytesPerJob() {
            return QueueResults.median(
                    allocatedBytes.stream().map(b -> (double) b / jobs).toList());
        }

        /** Median over the rounds of how many CPUs the process kept busy while the batch ran. */
        double medianCpusBusy() {
            List<Double> busy = new ArrayList<>();
            for (int i = 0; i < nanos.size(); i++) {
                busy.add((double) cpuNanos.get(i) / nanos.get(i));
            }
            return QueueResults.median(busy);
        }

        double median() {
            return QueueResults.median(jobsPerSecond);
        }

        double min() {
            return jobsPerSecond.stream().mapToDouble(d -> d).min().orElse(Double.NaN);
        }

        double max() {
            return jobsPerSecond.stream().mapToDouble(d -> d).max().orElse(Double.NaN);
        }
    }

    final Map<String, Series> series = new LinkedHashMap<>();

    Series series(String id, String kind, String contender, int concurrency) {
        return series.computeIfAbsent(id, k -> new Series(id, kind, contender, concurrency));
    }

    Series get(String id) {
        Series s = series.get(id);
        if (s == null) {
            throw new IllegalArgumentException("no series " + id);
        }
        return s;
    }

    boolean has(String id) {
        return series.containsKey(id) && !series.get(id).jobsPerSecond.isEmpty();
    }

    /** {@code top / bottom} round by round (both were measured in the same round, one after the other). */
    List<Double> pairedRatios(String top, String bottom) {
        List<Double> a = get(top).jobsPerSecond;
        List<Double> b = get(bottom).jobsPerSecond;
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            ratios.add(a.get(i) / b.get(i));
        }
        return ratios;
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] sorted = values.stream().mapToDouble(d -> d).toArray();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    // ---- JSON ----

    /** A tiny JSON builder: objects keep insertion order; numbers are written with fixed decimals. */
    public static final class Json {
        private final StringBuilder out = new StringBuilder();
        private int depth;
        private boolean first = true;

        /**
         * The fields every benchmark's document starts with: which benchmark, when it ran and for how long, and
         * what it measured, from the system properties {@code sluice.bench.commit}, {@code
         * sluice.bench.measuredCommit} (the last commit that changed the code measured), {@code
         * sluice.bench.dirty} and {@code sluice.bench.engineSources} (set by the bench scripts).
         */
        public Json header(String benchmark, Instant began, long wallSeconds) {
            field("benchmark", benchmark);
            field("date", began.truncatedTo(ChronoUnit.SECONDS).toString());
            field("wallSeconds", wallSeconds);
            field("commit", System.getProperty("sluice.bench.commit", "unknown"));
            field("measuredCodeCommit", System.getProperty("sluice.bench.measuredCommit", "unknown"));
            field("uncommittedChanges", System.getProperty("sluice.bench.dirty", "unknown"));
            return field("engineSourcesSha256", System.getProperty("sluice.bench.engineSources", "unknown"));
        }

        public Json begin() {
            out.append('{');
            depth++;
            first = true;
            return this;
        }

        public Json end() {
            depth--;
            newline();
            out.append('}');
            first = false;
            return this;
        }

        public Json object(String key) {
            key(key);
            return begin();
        }

        public Json field(String key, String value) {
            key(key);
            out.append(value == null ? "null" : quote(value));
            first = false;
            return this;
        }

        public Json field(String key, long value) {
            key(key);
            out.append(value);
            first = false;
            return this;
        }

        public Json field(String key, double value, int decimals) {
            key(key);
            out.append(number(value, decimals));
            first = false;
            return this;
        }

        public Json field(String key, boolean value) {
            key(key);
            out.append(value);
            first = false;
            return this;
        }

        public Json numbers(String key, List<? extends Number> values, int decimals) {
            key(key);
            out.append('[');
            for (int i = 0; i < values.size(); i++) {
                if (i > 0) {
                    out.append(", ");
                }
                Number v = values.get(i);
                out.append(v instanceof Double d ? number(d, decimals) : v.toString());
            }
            out.append(']');
            first = false;
            return this;
        }

        public Json strings(String key, List<String> values) {
            key(key);
            out.append('[');
            for (int i = 0; i < values.size(); i++) {
                if (i > 0) {
                    out.append(", ");
                }
                out.append(quote(values.get(i)));
            }
            out.append(']');
            first = false;
            return this;
        }

        private void key(String key) {
            if (!first) {
                out.append(',');
            }
            newline();
            out.append(quote(key)).append(": ");
            first = true;
        }

        private void newline() {
            out.append('\n').append("  ".repeat(depth));
        }

        private static String number(double value, int decimals) {
            if (Double.isNaN(value) || Double.isInfinite(value)) {
                return "null";
            }
            return String.format(Locale.ROOT, "%." + decimals + "f", value);
        }

        public static String quote(String s) {
            StringBuilder sb = new StringBuilder("\"");
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> sb.append("\\\"");
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    case '\t' -> sb.append("\\t");
                    default -> {
                        if (c < 0x20) {
                            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                        } else {
                            sb.append(c);
                        }
                    }
                }
            }
            return sb.append('"').toString();
        }

        @Override
        public String toString() {
            return out.toString() + "\n";
        }
    }
}
