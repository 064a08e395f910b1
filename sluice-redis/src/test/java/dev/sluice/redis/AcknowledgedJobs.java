package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.SluiceException;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.awaitility.Awaitility;

/** Checks on the jobs whose adds were acknowledged, for the tests of outages and failovers. */
final class AcknowledgedJobs {
    private AcknowledgedJobs() {}

    /** Waits until {@code queue} holds no waiting, delayed or active job, with no help. */
    static void awaitDone(JobQueue<String> queue, Duration atMost) {
        Awaitility.await("every job in the queue done, with no help")
                .atMost(atMost)
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptionsInstanceOf(SluiceException.class)
                .until(() -> {
                    JobCounts counts = queue.counts();
                    return counts.waiting() + counts.active() + counts.delayed() == 0;
                });
    }

    /**
     * Every job of {@code acknowledged} is in {@code queue}, completed by exactly one attempt, and the queue holds
     * and has completed no other job.
     */
    static void assertEachCompletedOnce(JobQueue<String> queue, List<String> acknowledged) {
        assertThat(Set.copyOf(acknowledged)).hasSameSizeAs(acknowledged);
        for (String id : acknowledged) {
            Job<String> job = queue.job(id).orElseThrow(() -> new AssertionError("acknowledged job " + id + " lost"));
            assertThat(job.state()).as(id).isEqualTo(JobState.COMPLETED);
            assertThat(job.attempts())
                    .as("attempts of " + id)
                    .filteredOn(a -> a.outcome() == Job.Attempt.Outcome.COMPLETED)
                    .hasSize(1);
        }
        assertThat(queue.counts().completed())
                .as("no job but the acknowledged ones")
                .isEqualTo(acknowledged.size());
        assertThat(queue.stats().completed()).as("completions recorded").isEqualTo(acknowledged.size());
    }

    /** How many of {@code acknowledged} have more than one attempt (a stall, a lost ending). */
    static long withMoreThanOneAttempt(JobQueue<String> queue, List<String> acknowledged) {
        return acknowledged.stream()
                .filter(id -> queue.job(id).orElseThrow().attempts().size() > 1)
                .count();
    }
}
