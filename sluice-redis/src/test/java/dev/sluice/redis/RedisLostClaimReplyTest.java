package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A claim whose reply the worker never gets (Redis ran it after the command timed out) does not hold its job until
 * the lease runs out, and counts no stall: the worker's next call gives the job back, and it runs once.
 */
class RedisLostClaimReplyTest {
    private ServerWithAdmin redis;

    @BeforeEach
    void start() {
        redis = ServerWithAdmin.start();
    }

    @AfterEach
    void stop() {
        redis.close();
    }

    @Test
    void aJobWhoseClaimReplyWasLostRunsOnceSoonAfterAndCountsNoStall() throws Exception {
        try (Sluice sluice = LostClaims.engineLosingReplies(redis.uri())) {
            JobQueue<String> queue = sluice.queue("jobs", Codec.utf8());
            queue.add(
                    "job", "a", dev.sluice.queue.JobOptions.builder().jobId("a").build());
            AtomicInteger runs = new AtomicInteger();

            // Redis holds every command for 1.5 s: the worker's first claims time out, and Redis runs them after
            redis.admin().sync().clientPause(1500);
            queue.worker(
                    ctx -> {
                        runs.incrementAndGet();
                        return Result.done();
                    },
                    LostClaims.oneSlotHeldForAMinute());

            Awaitility.await("the job completed, well before its lease would have run out")
                    .atMost(Duration.ofSeconds(15))
                    .ignoreExceptions() // while Redis holds commands, so does the lookup
                    .until(() -> queue.job("a").map(Job::state).orElse(null) == JobState.COMPLETED);
            Job<String> job = queue.job("a").orElseThrow();
            assertThat(runs).hasValue(1);
            LostClaims.assertRanOnceAfterLostClaims(job);
        }
    }
}
