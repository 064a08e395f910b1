package dev.sluice.bench.adaptive.live;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The figures of a live run ({@link LiveRun}): goodput per phase as a share of the capacity (demand is always above
 * it), 429s as a share of calls outside the first second of the drop, the time to safety after the drop (the first
 * second from which 429s stay under 1% of calls for five seconds), the time back to 90% of the capacity after its
 * return, throughput after the kill against before it, and the table of seconds.
 */
final class LiveReport {
    private final List<LiveRun.Second> seconds;

    LiveReport(List<LiveRun.Second> seconds) {
        this.seconds = seconds;
    }

    /** Accepted calls over the capacity's calls in seconds [from, to). */
    double goodput(int from, int to) {
        double accepted = 0;
        double allowed = 0;
        int end = Math.min(to, seconds.size());
        for (LiveRun.Second s : from < end ? seconds.subList(from, end) : List.<LiveRun.Second>of()) {
            accepted += s.accepted();
            allowed += s.capacity();
        }
        return allowed == 0 ? Double.NaN : accepted / allowed;
    }

    /** 429s over calls, every second but the first of the drop. */
    double refusedShare() {
        long refused = 0;
        long calls = 0;
        for (LiveRun.Second s : seconds) {
            if (s.second() != LiveRun.DROP_AT) {
                refused += s.refused();
                calls += s.accepted() + s.refused();
            }
        }
        return calls == 0 ? Double.NaN : (double) refused / calls;
    }

    /** Seconds after the drop until 429s stay under 1% of calls for five seconds; -1 if never. */
    int safeAfter() {
        for (int s = LiveRun.DROP_AT; s + 5 <= LiveRun.BACK_AT; s++) {
            boolean safe = true;
            for (int k = s; k < s + 5; k++) {
                LiveRun.Second second = seconds.get(k);
                long calls = second.accepted() + second.refused();
                safe &= calls == 0 || second.refused() < 0.01 * calls;
            }
            if (safe) {
                return s - LiveRun.DROP_AT;
            }
        }
        return -1;
    }

    /** Seconds after the capacity's return until a second accepts 90% of it; -1 if never. */
    int backAfter() {
        for (int s = LiveRun.BACK_AT; s < seconds.size(); s++) {
            if (seconds.get(s).accepted() >= 0.9 * LiveRun.HIGH) {
                return s - LiveRun.BACK_AT;
            }
        }
        return -1;
    }

    String summary() {
        return String.format(
                Locale.ROOT,
                "goodput before the drop %.3f, during it %.3f, after the return %.3f (before the kill %.3f, after it %.3f);"
                        + " 429s %.2f%% of calls outside the drop's first second; safe %d s after the drop; back to 90%%"
                        + " %d s after the return",
                goodput(2, LiveRun.DROP_AT),
                goodput(LiveRun.DROP_AT, LiveRun.BACK_AT),
                goodput(LiveRun.BACK_AT, LiveRun.LENGTH),
                goodput(LiveRun.BACK_AT + Math.max(0, backAfter()), LiveRun.KILL_AT),
                goodput(LiveRun.KILL_AT + 1, LiveRun.LENGTH),
                100 * refusedShare(),
                safeAfter(),
                backAfter());
    }

    String json() {
        String rows = seconds.stream()
                .map(s -> String.format(
                        Locale.ROOT,
                        "    {\"second\": %d, \"capacity\": %.0f, \"accepted\": %d, \"refused\": %d, \"rate\": %.2f,"
                                + " \"perProcess\": %s}",
                        s.second(),
                        s.capacity(),
                        s.accepted(),
                        s.refused(),
                        s.rate(),
                        s.perProcess()))
                .collect(Collectors.joining(",\n"));
        return String.format(
                Locale.ROOT,
                "{\n  \"workers\": %d,\n  \"concurrencyEach\": %d,\n  \"rate\": \"%s\",\n  \"capacity\": {\"high\": %.0f,"
                        + " \"low\": %.0f, \"dropAt\": %d, \"backAt\": %d},\n  \"killAt\": %d,\n"
                        + "  \"goodputBeforeDrop\": %.4f,\n  \"goodputDuringDrop\": %.4f,\n  \"goodputAfterReturn\": %.4f,\n"
                        + "  \"goodputAfterKill\": %.4f,\n  \"refusedShare\": %.5f,\n  \"safeAfterSeconds\": %d,\n"
                        + "  \"backAfterSeconds\": %d,\n  \"seconds\": [\n%s\n  ]\n}\n",
                LiveRun.WORKERS,
                LiveRun.CONCURRENCY,
                LiveRun.RATE,
                LiveRun.HIGH,
                LiveRun.LOW,
                LiveRun.DROP_AT,
                LiveRun.BACK_AT,
                LiveRun.KILL_AT,
                goodput(2, LiveRun.DROP_AT),
                goodput(LiveRun.DROP_AT, LiveRun.BACK_AT),
                goodput(LiveRun.BACK_AT, LiveRun.LENGTH),
                goodput(LiveRun.KILL_AT + 1, LiveRun.LENGTH),
                refusedShare(),
                safeAfter(),
                backAfter(),
                rows);
    }

    String markdown() {
        StringBuilder md = new StringBuilder("# Adaptive rates with real processes on Redis\n\n");
        md.append(String.format(
                Locale.ROOT,
                "Written by `bench/run-adaptive-redis.sh`: %d worker JVMs (concurrency %d each) share one queue with"
                        + " `%s`; a local HTTP downstream takes %.0f calls a second, %.0f from second %d to %d, then"
                        + " %.0f again; at second %d one worker is killed with SIGKILL. Demand stays above capacity.%n%n",
                LiveRun.WORKERS,
                LiveRun.CONCURRENCY,
                LiveRun.RATE,
                LiveRun.HIGH,
                LiveRun.LOW,
                LiveRun.DROP_AT,
                LiveRun.BACK_AT,
                LiveRun.HIGH,
                LiveRun.KILL_AT));
        md.append(summary()).append(".\n\n");
        md.append("| second | capacity | accepted | 429 | rate in force | accepted per process |\n");
        md.append("|---:|---:|---:|---:|---:|---|\n");
        for (LiveRun.Second s : seconds) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %d | %.0f | %d | %d | %.1f | %s |%n",
                    s.second(),
                    s.capacity(),
                    s.accepted(),
                    s.refused(),
                    s.rate(),
                    s.perProcess()));
        }
        return md.toString();
    }
}
