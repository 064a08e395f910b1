package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.QueueStats;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class HistogramTest {

    @Test
    void anEmptyHistogramReportsZeroes() {
        Histogram h = new Histogram();

        assertThat(h.percentile(0.5)).isZero();
        assertThat(h.summary())
                .isEqualTo(new QueueStats.Latency(0, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO));
    }

    @Test
    void valuesBelowThirtyTwoAreCountedExactly() {
        Histogram h = new Histogram();
        for (long v : new long[] {1, 2, 3, 4, 5}) {
            h.record(v);
        }

        assertThat(h.percentile(0.2)).isEqualTo(1);
        assertThat(h.percentile(0.4))
                .as("the rank is reached exactly at the second sample")
                .isEqualTo(2);
        assertThat(h.percentile(0.5)).isEqualTo(3);
        assertThat(h.percentile(1.0)).isEqualTo(5);
    }

    @Test
    void thirtyTwoIsTheFirstValueOfTheSecondOctave() {
        Histogram h = new Histogram();
        h.record(31);
        h.record(32);
        h.record(33);

        assertThat(h.percentile(0.34)).isEqualTo(32);
        assertThat(h.percentile(0.3)).isEqualTo(31);
        assertThat(h.percentile(1.0)).isEqualTo(33);
    }

    @Test
    void aPercentileIsTheUpperBoundOfItsBucketUnlessThatIsAboveTheMaximum() {
        Histogram h = new Histogram();
        h.record(40); // octave 1: buckets of one value, 32 to 63
        h.record(100); // octave 2: buckets of two values, 64 to 127; 100 is in 100..101
        h.record(1_000); // octave 5: buckets of 16 values; 1000 is in 992..1007
        h.record(5_000);

        assertThat(h.percentile(0.25)).isEqualTo(40);
        assertThat(h.percentile(0.5)).isEqualTo(101);
        assertThat(h.percentile(0.75)).isEqualTo(1_007);
        assertThat(h.percentile(1.0))
                .as("the bucket 4992..5119 is capped at the maximum")
                .isEqualTo(5_000);
    }

    @Test
    void negativeDurationsCountAsZeroAndTheLargestLongFits() {
        Histogram h = new Histogram();
        h.record(-7);
        h.record(Long.MAX_VALUE);

        assertThat(h.percentile(0.5)).isZero();
        assertThat(h.percentile(1.0)).isEqualTo(Long.MAX_VALUE);
        assertThat(h.summary())
                .isEqualTo(new QueueStats.Latency(
                        2,
                        Duration.ZERO,
                        Duration.ofNanos(Long.MAX_VALUE),
                        Duration.ofNanos(Long.MAX_VALUE),
                        Duration.ofNanos(Long.MAX_VALUE)));
    }

    @Test
    void theSummaryReportsTheMedianTheNinetiethAndNinetyNinthPercentilesAndTheMaximum() {
        Histogram h = new Histogram();
        for (long v = 1; v <= 100; v++) {
            h.record(v * 1_000);
        }

        QueueStats.Latency summary = h.summary();

        assertThat(summary.count()).isEqualTo(100);
        assertThat(summary.p50()).isEqualTo(Duration.ofNanos(50_175)); // 50,000 is in 49,152..50,175
        assertThat(summary.p90()).isEqualTo(Duration.ofNanos(90_111)); // 90,000 is in 88,064..90,111
        assertThat(summary.p99()).isEqualTo(Duration.ofNanos(100_000)); // 98,304..100,351, capped
        assertThat(summary.max()).isEqualTo(Duration.ofNanos(100_000));
    }
}
