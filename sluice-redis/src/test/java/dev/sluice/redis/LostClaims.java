package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.Job;

/** What a job whose claims' replies were lost shows once it ran: those claims, given back, and one run. */
public final class LostClaims {
    private LostClaims() {}

    /** Asserts that {@code job} completed in one attempt, after one or more claims whose replies were lost. */
    public static void assertRanOnceAfterLostClaims(Job<?> job) {
        assertThat(job.attemptsMade()).isEqualTo(1);
        assertThat(job.attempts()).as("a lost claim, then the run").hasSizeGreaterThanOrEqualTo(2);
        assertThat(job.attempts().get(job.attempts().size() - 1).outcome()).isEqualTo(Job.Attempt.Outcome.COMPLETED);
        assertThat(job.attempts().subList(0, job.attempts().size() - 1))
                .as("claims whose replies were lost")
                .allSatisfy(attempt -> {
                    assertThat(attempt.outcome()).isEqualTo(Job.Attempt.Outcome.INTERRUPTED);
                    assertThat(attempt.error()).contains("lost the reply");
                });
    }
}
