package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.ManualClock;
import io.lettuce.core.ScriptOutputType;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.RepeatedTest;

/**
 * The queue library reuses the decoded records of active jobs it wrote in an earlier call only while Redis holds
 * the very bytes it wrote: a record changed by anything else in between (here a script that moves the job's token
 * on, as another owner would) is read afresh, and the running attempt's ending is refused.
 */
class RedisRecordReuseTest {
    /** The job record's R_TOKEN (queue-state.lua). */
    private static final int TOKEN = 22;

    @RepeatedTest(3)
    void aRecordChangedBehindTheLibrarysBackIsReadAfresh() throws Exception {
        String prefix = TestEngines.newPrefix();
        try (Sluice sluice = TestEngines.on(new ManualClock(Instant.parse("2026-01-01T00:00:00Z")), prefix)) {
            JobQueue<String> queue = sluice.queue("reuse", Codec.utf8());
            queue.add("n", "p", JobOptions.builder().jobId("j").build());
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch go = new CountDownLatch(1);
            Worker<String> worker = queue.worker(
                    ctx -> {
                        started.countDown();
                        go.await();
                        return Result.done("late");
                    },
                    WorkerOptions.manual());
            Thread running = Thread.ofVirtual().start(worker::runDue);
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

            String records = prefix + ":queue:{reuse}:j";
            long token = TestEngines.commands()
                    .eval(
                            "local r = cmsgpack.unpack(redis.call('HGET', KEYS[1], ARGV[1]))"
                                    + " r[" + TOKEN + "] = r[" + TOKEN + "] + 1"
                                    + " redis.call('HSET', KEYS[1], ARGV[1], cmsgpack.pack(r))"
                                    + " return r[" + TOKEN + "]",
                            ScriptOutputType.INTEGER,
                            new String[] {records},
                            "j");
            assertThat(token).as("the job's token, moved on").isEqualTo(2);
            go.countDown();
            running.join(10_000);

            assertThat(running.isAlive()).isFalse();
            assertThat(queue.job("j"))
                    .as("the ending of the attempt whose token is gone was refused")
                    .hasValueSatisfying(job -> assertThat(job.state()).isEqualTo(JobState.ACTIVE));
        }
    }
}
