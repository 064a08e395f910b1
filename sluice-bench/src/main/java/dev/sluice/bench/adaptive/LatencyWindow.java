package dev.sluice.bench.adaptive;

import java.util.Arrays;

/** Latencies heard since the window was last cleared, and their 99th percentile. */
final class LatencyWindow {
    private long[] values = new long[1024];
    private int size;

    void add(long latency) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = latency;
    }

    /** The 99th percentile (nearest rank), 0 if none was heard. */
    double p99() {
        if (size == 0) {
            return 0;
        }
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        return sorted[(int) Math.ceil(0.99 * size) - 1];
    }

    void clear() {
        size = 0;
    }
}
