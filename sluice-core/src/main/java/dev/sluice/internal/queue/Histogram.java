package dev.sluice.internal.queue;

import dev.sluice.queue.QueueStats;
import java.time.Duration;

/**
 * Durations in log-linear buckets: 32 per power of two, so a reported percentile is within about 3% of the
 * true one. Octaves are allocated when first used, so a group whose latencies span a few octaves costs a
 * few hundred bytes. Not thread-safe: the queue's lock guards it. The Redis engine keeps the same buckets in Redis,
 * numbered by {@link #bucket}.
 */
public final class Histogram {
    private static final int SUB_BITS = 5;
    private static final int SUB = 1 << SUB_BITS;
    /** Octave 0 holds 0 to 31 exactly; octave k from 1 the values whose highest bit is bit k + 4, up to bit 62. */
    private static final int OCTAVES = 64 - SUB_BITS;

    private final int[][] counts = new int[OCTAVES][];
    private long count;
    private long max;

    void record(long nanos) {
        long value = Math.max(0, nanos);
        int bucket = bucket(value);
        int octave = bucket >>> SUB_BITS;
        int[] row = counts[octave];
        if (row == null) {
            row = counts[octave] = new int[SUB];
        }
        row[bucket & (SUB - 1)]++;
        count++;
        max = Math.max(max, value);
    }

    /**
     * The number of the bucket that holds {@code nanos} (negative counts as 0): octave times 32 plus the
     * sub-bucket.
     *
     * @param nanos a duration in nanoseconds
     * @return the bucket's number, 0 to 1,919
     */
    public static int bucket(long nanos) {
        long value = Math.max(0, nanos);
        if (value < SUB) {
            return (int) value;
        }
        int bits = 63 - Long.numberOfLeadingZeros(value);
        int octave = bits - SUB_BITS + 1;
        return octave * SUB + ((int) (value >>> (bits - SUB_BITS)) & (SUB - 1));
    }

    /** The smallest bucket bound at or below which {@code fraction} of the samples lie. */
    long percentile(double fraction) {
        if (count == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(fraction * count));
        long seen = 0;
        // ends at a bucket: the rank is at most the count, which the buckets add up to
        for (int octave = 0; ; octave++) {
            int[] row = counts[octave];
            if (row == null) {
                continue;
            }
            for (int sub = 0; sub < SUB; sub++) {
                seen += row[sub];
                if (seen >= rank) {
                    return Math.min(max, upperBound(octave, sub));
                }
            }
        }
    }

    private static long upperBound(int octave, int sub) {
        if (octave == 0) {
            return sub;
        }
        int shift = octave - 1;
        return (((long) (SUB + sub + 1)) << shift) - 1;
    }

    QueueStats.Latency summary() {
        return new QueueStats.Latency(
                count,
                Duration.ofNanos(percentile(0.50)),
                Duration.ofNanos(percentile(0.90)),
                Duration.ofNanos(percentile(0.99)),
                Duration.ofNanos(max));
    }
}
