package dev.sluice.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The samples of {@link RedisLimiterBench}: one {@link Series} per case, and the ratios between contenders. */
final class RedisBenchResults {
    /** One contender on one key set at one number of requests in flight: a sample per measured round. */
    static final class Series {
        final String id;
        final String contender;
        final String keySet;
        final int keys;
        final int inFlight;
        final List<Double> decisionsPerSecond = new ArrayList<>();
        final List<Long> decisions = new ArrayList<>();
        final List<Long> granted = new ArrayList<>();
        final List<Long> errors = new ArrayList<>();
        final List<Long> nanos = new ArrayList<>();
        final List<Long> commands = new ArrayList<>();
        final List<Double> redisCpuMicros = new ArrayList<>();
        final List<Double> redisMainThreadCpuMicros = new ArrayList<>();
        final List<Long> clientCpuNanos = new ArrayList<>();
        final List<Long> clientAllocatedBytes = new ArrayList<>();
        final Map<String, Long> commandsByType = new TreeMap<>();
        String firstError;

        Series(String id, String contender, String keySet, int keys, int inFlight) {
            this.id = id;
            this.contender = contender;
            this.keySet = keySet;
            this.keys = keys;
            this.inFlight = inFlight;
        }

        /**
         * Records one measured round.
         *
         * @param sent the commands the contender's client sent during the round, by type
         */
        void add(
                RedisBenchLoad.Outcome outcome,
                Map<String, Long> sent,
                RedisBenchAdmin.CpuSeconds cpuBefore,
                RedisBenchAdmin.CpuSeconds cpuAfter) {
            QueueMeter.Timing timing = outcome.timing();
            decisions.add(outcome.decisions());
            granted.add(outcome.granted());
            errors.add(outcome.errors());
            nanos.add(timing.nanos());
            decisionsPerSecond.add(outcome.decisions() * 1e9 / timing.nanos());
            commands.add(RedisBenchCommands.total(sent));
            sent.forEach((type, count) -> commandsByType.merge(type, count, Long::sum));
            redisCpuMicros.add((cpuAfter.process() - cpuBefore.process()) * 1e6);
            redisMainThreadCpuMicros.add((cpuAfter.mainThread() - cpuBefore.mainThread()) * 1e6);
            clientCpuNanos.add(timing.cpuNanos());
            clientAllocatedBytes.add(timing.allocatedBytes());
            if (firstError == null) {
                firstError = outcome.firstError();
            }
        }

        boolean isEmpty() {
            return decisionsPerSecond.isEmpty();
        }

        double median() {
            return QueueResults.median(decisionsPerSecond);
        }

        double min() {
            return decisionsPerSecond.stream().mapToDouble(d -> d).min().orElse(Double.NaN);
        }

        double max() {
            return decisionsPerSecond.stream().mapToDouble(d -> d).max().orElse(Double.NaN);
        }

        long totalDecisions() {
            return decisions.stream().mapToLong(Long::longValue).sum();
        }

        long totalCommands() {
            return commands.stream().mapToLong(Long::longValue).sum();
        }

        long totalErrors() {
            return errors.stream().mapToLong(Long::longValue).sum();
        }

        /** Commands sent over decisions made, all measured rounds together. */
        double roundTripsPerDecision() {
            return (double) totalCommands() / totalDecisions();
        }

        /** Of each command type, how many were sent per decision, all measured rounds together. */
        Map<String, Double> commandsPerDecision() {
            Map<String, Double> perDecision = new LinkedHashMap<>();
            long total = totalDecisions();
            commandsByType.forEach((type, count) -> perDecision.put(type, (double) count / total));
            return perDecision;
        }

        /** Granted decisions over all decisions, all measured rounds together. */
        double grantedFraction() {
            return (double) granted.stream().mapToLong(Long::longValue).sum() / totalDecisions();
        }

        double medianRedisCpuMicrosPerDecision() {
            return perDecisionMedian(redisCpuMicros, 1);
        }

        double medianRedisMainThreadCpuMicrosPerDecision() {
            return perDecisionMedian(redisMainThreadCpuMicros, 1);
        }

        double medianClientCpuMicrosPerDecision() {
            return perDecisionMedian(
                    clientCpuNanos.stream().map(n -> (double) n).toList(), 1e-3);
        }

        double medianClientAllocatedBytesPerDecision() {
            return perDecisionMedian(
                    clientAllocatedBytes.stream().map(n -> (double) n).toList(), 1);
        }

        /** How busy the Redis process was while the case ran: its CPU time over the wall time (median). */
        double medianRedisCpusBusy() {
            List<Double> busy = new ArrayList<>();
            for (int i = 0; i < nanos.size(); i++) {
                busy.add(redisCpuMicros.get(i) * 1e3 / nanos.get(i));
            }
            return QueueResults.median(busy);
        }

        /** How busy the benchmark's JVM was while the case ran (median). */
        double medianClientCpusBusy() {
            List<Double> busy = new ArrayList<>();
            for (int i = 0; i < nanos.size(); i++) {
                busy.add((double) clientCpuNanos.get(i) / nanos.get(i));
            }
            return QueueResults.median(busy);
        }

        private double perDecisionMedian(List<Double> perRound, double scale) {
            List<Double> values = new ArrayList<>();
            for (int i = 0; i < perRound.size(); i++) {
                values.add(perRound.get(i) * scale / decisions.get(i));
            }
            return QueueResults.median(values);
        }
    }

    final Map<String, Series> series = new LinkedHashMap<>();

    static String caseId(String contender, String keySet, int inFlight) {
        return contender + "." + keySet + ".c" + inFlight;
    }

    static String groupId(String keySet, int inFlight) {
        return keySet + ".c" + inFlight;
    }

    Series series(String contender, String keySet, int keys, int inFlight) {
        String id = caseId(contender, keySet, inFlight);
        return series.computeIfAbsent(id, k -> new Series(id, contender, keySet, keys, inFlight));
    }

    boolean has(String id) {
        return series.containsKey(id) && !series.get(id).isEmpty();
    }

    Series get(String id) {
        Series s = series.get(id);
        if (s == null) {
            throw new IllegalArgumentException("no series " + id);
        }
        return s;
    }

    /** {@code top / bottom} of the medians. */
    double ratio(String top, String bottom) {
        return get(top).median() / get(bottom).median();
    }

    /** The median of the round-by-round ratios {@code top / bottom} (measured seconds apart in each round). */
    double pairedRatio(String top, String bottom) {
        return QueueResults.median(pairedRatios(top, bottom));
    }

    List<Double> pairedRatios(String top, String bottom) {
        List<Double> a = get(top).decisionsPerSecond;
        List<Double> b = get(bottom).decisionsPerSecond;
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            ratios.add(a.get(i) / b.get(i));
        }
        return ratios;
    }
}
