package dev.sluice.demo;

import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/** What happened to one tenant's requests, counted as it happens. Thread-safe. */
final class Tally {
    final String tenant;
    /** Requests its clients sent to ingress. */
    final LongAdder sent = new LongAdder();
    /** Refused at ingress because the client went past its own limit. */
    final LongAdder rejectedClient = new LongAdder();
    /** Refused at ingress because the tenant already had its most jobs in the queue. */
    final LongAdder rejectedBacklog = new LongAdder();
    /** Refused because the whole queue was full (should not happen: backlogs are bounded per tenant). */
    final LongAdder rejectedFull = new LongAdder();
    /** Added to the queue. */
    final LongAdder admitted = new LongAdder();
    /** Completed. */
    final LongAdder done = new LongAdder();
    /** Attempts that failed (a 503) and were scheduled again. */
    final LongAdder retried = new LongAdder();
    /** Times the API answered 429 for this tenant's calls, which paused only this tenant. */
    final LongAdder rateLimited = new LongAdder();
    /** 429s from the API's global limit, which paused the whole queue. */
    final LongAdder rateLimitedGlobal = new LongAdder();
    /** Failed for good. */
    final LongAdder failed = new LongAdder();
    /** From admitted to its first start, in nanoseconds. */
    final Samples wait = new Samples();
    /** From admitted to done, in nanoseconds. */
    final Samples endToEnd = new Samples();

    Tally(String tenant) {
        this.tenant = tenant;
    }

    /** Refused at ingress, for any reason. */
    long refused() {
        return rejectedClient.sum() + rejectedBacklog.sum() + rejectedFull.sum();
    }

    /** A growing list of durations with nearest-rank percentiles. Thread-safe. */
    static final class Samples {
        private long[] values = new long[256];
        private int size;

        synchronized void add(long nanos) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = nanos;
        }

        synchronized int count() {
            return size;
        }

        /** The {@code p}-th percentile (0 &lt; p &le; 100), or -1 with no samples. */
        synchronized long percentile(double p) {
            if (size == 0) {
                return -1;
            }
            long[] sorted = Arrays.copyOf(values, size);
            Arrays.sort(sorted);
            int rank = (int) Math.ceil(p / 100 * size);
            return sorted[Math.max(0, Math.min(size, rank) - 1)];
        }
    }
}
