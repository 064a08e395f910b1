package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.Job;
import dev.sluice.queue.Job.Attempt;
import dev.sluice.queue.Job.Attempt.Outcome;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/** Assertions on jobs' attempts and on measured durations, for the queue contract suites and engines' own tests. */
public final class JobAssertions {
    private JobAssertions() {}

    /**
     * Asserts the attempt history of {@code job}: number, start, end and outcome exactly; the error contains
     * the expected one's error (and is null where that is null).
     *
     * @param job the job snapshot to check
     * @param expected the attempts it must have, oldest first; an error of {@link #ANY_ERROR} matches any
     */
    public static void assertAttempts(Job<?> job, Attempt... expected) {
        List<Attempt> actual = job.attempts();
        assertThat(actual).as("attempts of %s", job.id()).hasSize(expected.length);
        for (int i = 0; i < expected.length; i++) {
            Attempt want = expected[i];
            Attempt got = actual.get(i);
            String what = "attempt " + (i + 1) + " of " + job.id() + ": " + got;
            assertThat(got.number()).as(what).isEqualTo(want.number());
            assertThat(got.startedAt()).as(what).isEqualTo(want.startedAt());
            assertThat(got.finishedAt()).as(what).isEqualTo(want.finishedAt());
            assertThat(got.outcome()).as(what).isEqualTo(want.outcome());
            if (ANY_ERROR.equals(want.error())) {
                continue;
            } else if (want.error() == null) {
                assertThat(got.error()).as(what).isNull();
            } else {
                assertThat(got.error()).as(what).contains(want.error());
            }
        }
    }

    /** An expected error for {@link #assertAttempts} that matches any error, or none. */
    public static final String ANY_ERROR = "<any error>";

    /**
     * An expected attempt for {@link #assertAttempts}, times in milliseconds after {@link QueueContractSupport#START}.
     *
     * @param number the attempt's number, from 1
     * @param startMillis when it started, in milliseconds after the start
     * @param endMillis when it finished, in milliseconds after the start
     * @param outcome how it ended
     * @param error a text the error must contain, {@code null} for no error, or {@link #ANY_ERROR}
     * @return the expected attempt
     */
    public static Attempt attempt(int number, long startMillis, long endMillis, Outcome outcome, String error) {
        return new Attempt(
                number,
                QueueContractSupport.atMillis(startMillis),
                QueueContractSupport.atMillis(endMillis),
                outcome,
                error);
    }

    /**
     * Asserts that {@code actual} is the percentile {@code p} (0 to 1) of {@code samples} as a histogram with
     * 3% precision reports it: within 3% of the nearest-rank sample or one of its neighbours (percentile
     * definitions differ by one rank).
     *
     * @param actual the reported percentile
     * @param samples the durations that were recorded
     * @param p the percentile, from 0 to 1
     * @param what what the percentile is of, for the assertion message
     */
    public static void assertPercentile(Duration actual, List<Duration> samples, double p, String what) {
        long[] sorted = samples.stream().mapToLong(Duration::toNanos).sorted().toArray();
        int rank = Math.max(1, (int) Math.ceil(p * sorted.length));
        long low = sorted[Math.max(0, rank - 2)];
        long high = sorted[Math.min(sorted.length - 1, rank)];
        assertThat(actual)
                .as("%s: p%s of %s", what, p * 100, Arrays.toString(sorted))
                .isNotNull()
                .isBetween(Duration.ofNanos((long) Math.floor(low * 0.97)), Duration.ofNanos((long)
                        Math.ceil(high * 1.03)));
    }

    /**
     * Asserts that {@code actual} is {@code expected} within a histogram's 3% precision.
     *
     * @param actual the reported duration
     * @param expected the exact duration
     * @param what what the duration is, for the assertion message
     */
    public static void assertNear(Duration actual, Duration expected, String what) {
        long nanos = expected.toNanos();
        assertThat(actual)
                .as("%s, expected about %s", what, expected)
                .isNotNull()
                .isBetween(Duration.ofNanos((long) Math.floor(nanos * 0.97)), Duration.ofNanos((long)
                        Math.ceil(nanos * 1.03)));
    }
}
