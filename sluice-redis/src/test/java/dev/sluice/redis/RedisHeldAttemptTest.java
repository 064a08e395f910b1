package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import dev.sluice.queue.Retention;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.ManualClock;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * In a plain queue (its jobs kept by none) a claim writes no record: the attempt it starts is the job's entry in
 * {@code B:j} (field {@code \255<id>}), and the record reads as it did while the job waited until the attempt ends
 * (Active jobs in queue-state.lua); in a queue that keeps its jobs the claim writes the record active. Either way
 * every reader sees the job active, the claiming process's snapshot and the engine's agree, and the attempt fences
 * its ending: an ending whose token the entry no longer holds is refused, though that ending reads no record.
 */
class RedisHeldAttemptTest {
    private static final String READ_STATE =
            "local r = redis.call('HGET', KEYS[1], ARGV[1]) return r and cmsgpack.unpack(r)[3] or 'none'";

    /** A running job, its processor held until {@link #go} counts down. */
    private static final class Running implements AutoCloseable {
        final Sluice sluice;
        final JobQueue<String> queue;
        final String base;
        final CountDownLatch go = new CountDownLatch(1);
        final AtomicReference<Job<String>> seen = new AtomicReference<>();
        final Thread worker;

        Running(boolean kept) throws InterruptedException {
            String prefix = TestEngines.newPrefix();
            sluice = TestEngines.on(new ManualClock(Instant.parse("2026-01-01T00:00:00Z")), prefix);
            queue = sluice.queue("held", Codec.utf8());
            base = prefix + ":queue:{held}";
            Retention retention = kept ? Retention.keepAll() : Retention.keepNone();
            queue.add(
                    "n",
                    "p",
                    JobOptions.builder().jobId("j").keepCompleted(retention).build());
            CountDownLatch started = new CountDownLatch(1);
            Worker<String> w = queue.worker(
                    ctx -> {
                        seen.set(ctx.job());
                        started.countDown();
                        go.await();
                        return Result.done("r");
                    },
                    WorkerOptions.manual());
            worker = Thread.ofVirtual().start(w::runDue);
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        }

        String eval(String script, String key, String... args) {
            return TestEngines.commands().eval(script, ScriptOutputType.VALUE, new String[] {key}, args);
        }

        /** Whether the job's attempt is a field of B:j of its own. */
        boolean hasAttempt() {
            return TestEngines.hasAttempt(base, "j");
        }

        void finish() throws InterruptedException {
            go.countDown();
            worker.join(10_000);
            assertThat(worker.isAlive()).isFalse();
        }

        @Override
        public void close() {
            go.countDown();
            sluice.close();
        }
    }

    @ParameterizedTest(name = "kept: {0}")
    @ValueSource(booleans = {false, true})
    void anActiveJobReadsActiveWhileItsRecordStaysAsItWaited(boolean kept) throws Exception {
        try (Running running = new Running(kept)) {
            assertThat(running.eval(READ_STATE, running.base + ":j", "j")).isEqualTo(kept ? "a" : "w");
            assertThat(running.hasAttempt()).as("its attempt").isEqualTo(!kept);

            Job<String> read = running.queue.job("j").orElseThrow();
            Job<String> seen = running.seen.get();
            assertThat(read.state()).isEqualTo(JobState.ACTIVE);
            assertThat(seen.state()).isEqualTo(JobState.ACTIVE);
            assertThat(read.attempts()).hasSize(1).isEqualTo(seen.attempts());
            assertThat(read.attempts().get(0).startedAt()).isEqualTo(read.startedAt());
            assertThat(seen.startedAt()).isEqualTo(read.startedAt());
            assertThat(seen.progress()).isEqualTo(read.progress()).isZero();

            running.finish();
            assertThat(running.hasAttempt()).isFalse();
            assertThat(running.eval(READ_STATE, running.base + ":j", "j")).isEqualTo(kept ? "c" : "none");
        }
    }

    /**
     * The claiming process makes the job it tells its listeners of from the claim's reply (JobRecord.activated), the
     * engine from the record and the attempt (held.attach): both show the same job, earlier attempts included.
     */
    @ParameterizedTest(name = "kept: {0}")
    @ValueSource(booleans = {false, true})
    void theClaimingProcessTellsItsListenersTheJobAsTheEngineReadsIt(boolean kept) throws Exception {
        try (Sluice sluice = TestEngines.on(new ManualClock(Instant.parse("2026-01-01T00:00:00Z")))) {
            JobQueue<String> queue = sluice.queue("told", Codec.utf8());
            List<Job<String>> heard = new CopyOnWriteArrayList<>();
            queue.addListener(new QueueListener<>() {
                @Override
                public void onActive(Job<String> job) {
                    heard.add(job);
                }
            });
            Retention retention = kept ? Retention.keepAll() : Retention.keepNone();
            queue.add(
                    "n",
                    "p",
                    JobOptions.builder()
                            .jobId("j")
                            .attempts(2)
                            .keepCompleted(retention)
                            .build());
            List<Job<String>> read = new CopyOnWriteArrayList<>();
            Worker<String> worker = queue.worker(
                    ctx -> {
                        read.add(queue.job("j").orElseThrow());
                        if (ctx.attempt() == 1) {
                            throw new IllegalStateException("first");
                        }
                        return Result.done();
                    },
                    WorkerOptions.manual());
            while (read.size() < 2 && worker.runDue() > 0) {
                // runs the first attempt, then its retry
            }
            assertThat(queue.awaitListeners(Duration.ofSeconds(10))).isTrue();

            assertThat(read).hasSize(2);
            assertThat(heard).hasSize(2);
            for (int i = 0; i < 2; i++) {
                Job<String> told = heard.get(i);
                Job<String> engine = read.get(i);
                assertThat(told.state()).isEqualTo(engine.state()).isEqualTo(JobState.ACTIVE);
                assertThat(told.attempts()).isEqualTo(engine.attempts()).hasSize(i + 1);
                assertThat(told.startedAt()).isEqualTo(engine.startedAt());
                assertThat(told.attemptsMade()).isEqualTo(engine.attemptsMade()).isEqualTo(i);
                assertThat(told.options()).isEqualTo(engine.options());
                assertThat(told.payload()).isEqualTo(engine.payload()).isEqualTo("p");
            }
            assertThat(heard.get(1).attempts().get(0).outcome()).isEqualTo(Job.Attempt.Outcome.FAILED);
        }
    }

    @Test
    void anEndingWhoseTokenTheAttemptNoLongerHoldsIsRefused() throws Exception {
        try (Running running = new Running(false)) {
            String token = running.eval(
                    "local a = redis.call('HGET', KEYS[1], '\\255' .. ARGV[1])"
                            + " local token = struct.unpack('>d', a) + 1"
                            + " redis.call('HSET', KEYS[1], '\\255' .. ARGV[1], struct.pack('>d', token) .. a:sub(9))"
                            + " return string.format('%d', token)",
                    running.base + ":j", "j");
            assertThat(Long.parseLong(token))
                    .as("the attempt's token, moved on")
                    .isGreaterThan(1);

            running.finish();

            assertThat(running.queue.job("j"))
                    .as("the ending of the attempt whose token is gone was refused")
                    .hasValueSatisfying(job -> assertThat(job.state()).isEqualTo(JobState.ACTIVE));
        }
    }
}
