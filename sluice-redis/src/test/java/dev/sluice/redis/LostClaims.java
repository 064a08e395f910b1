package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Job;
import dev.sluice.queue.WorkerOptions;
import java.time.Duration;

/** What a job whose claims' replies were lost shows once it ran: those claims, given back, and one run. */
public final class LostClaims {
    private LostClaims() {}

    /**
     * An engine on {@code uri} whose commands time out after 300 ms and which tries again every 200 ms: a client
     * pause of Redis longer than that loses the replies of the calls it holds, and Redis runs them after.
     */
    public static Sluice engineLosingReplies(String uri) {
        return RedisSluice.builder()
                .url(uri)
                .commandTimeout(Duration.ofMillis(300))
                .retryInterval(Duration.ofMillis(200))
                .build();
    }

    /**
     * One slot, whose claims a lost reply would hold for a minute were they left to their leases, and then fail (no
     * stall allowed): a job that runs soon after, once, was given back.
     */
    public static WorkerOptions oneSlotHeldForAMinute() {
        return WorkerOptions.builder()
                .concurrency(1)
                .leaseTime(Duration.ofMinutes(1))
                .maxStalls(0)
                .build();
    }

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
