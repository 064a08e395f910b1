package dev.sluice.redis.internal;

import java.util.Arrays;
import java.util.List;

/**
 * Counting grants in windows of time, exactly: the checks of {@link ManyProcessesTest}. Every method takes
 * epoch-nanosecond times sorted ascending, and runs in one pass (two pointers).
 */
final class ManyProcessesWindows {
    private ManyProcessesWindows() {}

    /** The most times within any closed span {@code [t, t + length]}. */
    static int maxInClosedSpan(long[] sorted, long length) {
        int best = 0;
        int end = 0;
        for (int start = 0; start < sorted.length; start++) {
            end = Math.max(end, start);
            while (end < sorted.length && sorted[end] - sorted[start] <= length) {
                end++;
            }
            best = Math.max(best, end - start);
        }
        return best;
    }

    /**
     * The most times within any half-open span {@code [t, t + length)}: a grant made at {@code t} counts against
     * every instant before {@code t + length} and no other.
     */
    static int maxInHalfOpenSpan(long[] sorted, long length) {
        int best = 0;
        int end = 0;
        for (int start = 0; start < sorted.length; start++) {
            end = Math.max(end, start);
            while (end < sorted.length && sorted[end] - sorted[start] < length) {
                end++;
            }
            best = Math.max(best, end - start);
        }
        return best;
    }

    /** The most times within one window {@code [k × length, (k + 1) × length)}, windows aligned to the epoch. */
    static int maxInAlignedWindow(long[] sorted, long length) {
        int best = 0;
        int start = 0;
        for (int i = 0; i <= sorted.length; i++) {
            if (i == sorted.length || Math.floorDiv(sorted[i], length) != Math.floorDiv(sorted[start], length)) {
                best = Math.max(best, i - start);
                start = i;
            }
        }
        return best;
    }

    /**
     * The most intervals {@code [from, to]} that overlap at one instant. Where one ends at the instant another
     * starts, they are not counted together: the times are those of calls to Redis known to have been made while
     * the lease was held, and the release after {@code to} and the next acquire at the same reading may have run
     * in either order.
     */
    static int maxOverlap(List<long[]> intervals) {
        List<long[]> known =
                intervals.stream().filter(interval -> interval[1] > interval[0]).toList();
        long[] starts =
                known.stream().mapToLong(interval -> interval[0]).sorted().toArray();
        long[] ends = known.stream().mapToLong(interval -> interval[1]).sorted().toArray();
        int best = 0;
        int open = 0;
        int e = 0;
        for (long start : starts) {
            while (e < ends.length && ends[e] <= start) {
                open--;
                e++;
            }
            open++;
            best = Math.max(best, open);
        }
        return best;
    }

    /** {@code times} sorted, as a new array. */
    static long[] sorted(long[] times) {
        long[] copy = times.clone();
        Arrays.sort(copy);
        return copy;
    }
}
