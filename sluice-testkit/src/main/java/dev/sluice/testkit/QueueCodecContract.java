package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Added;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.Job.Attempt.Outcome;
import dev.sluice.queue.JobCounts;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Codecs: a queue knows its codec by {@link Codec#name()}; payloads the codec cannot decode (issue 9: such a job
 * jammed the queue) fail the job for good, when its processor asks for the payload, with a reason naming the
 * codec, the job and the cause; its bytes stay readable; nothing else is disturbed.
 */
public abstract class QueueCodecContract extends QueueContractSupport {
    /** For subclasses, one per engine. */
    protected QueueCodecContract() {}

    /** UTF-8, except that it cannot decode a payload starting with "bad". */
    private static final class PickyCodec implements Codec<String> {
        @Override
        public byte[] encode(String payload) {
            return payload.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
            String text = new String(bytes, StandardCharsets.UTF_8);
            if (text.startsWith("bad")) {
                throw new IllegalStateException("no schema for " + text);
            }
            return text;
        }

        @Override
        public String toString() {
            return "PickyCodec";
        }
    }

    private JobQueue<String> pickyQueue() {
        return engine.queue(QUEUE, new PickyCodec());
    }

    private static void assertDecodeFailure(Job<String> job) {
        assertThat(job.state()).isEqualTo(JobState.FAILED);
        assertThat(job.payload()).isNull();
        assertThat(job.attemptsMade()).isEqualTo(1);
        assertThat(job.failure().reason())
                .contains("PickyCodec")
                .contains("'" + job.id() + "'")
                .contains("no schema for bad");
        assertThat(job.failure().exceptionClass()).isEqualTo(IllegalStateException.class.getName());
        assertThat(job.attempts())
                .singleElement()
                .satisfies(a -> assertThat(a.outcome()).isEqualTo(Outcome.FAILED));
    }

    @Test
    void addingAnUndecodablePayloadWithAListenerKeepsTheJobAndThrowsNothing() {
        JobQueue<String> queue = pickyQueue();
        Events events = new Events();
        queue.addListener(events);

        Added<String> added = queue.add("n", "bad-1", withId("b"));

        assertThat(added.job().payload()).isEqualTo("bad-1");
        told(queue);
        assertThat(events.log).containsExactly("added b");
        assertThat(events.snapshotOf("added b").payload()).isEqualTo("bad-1");
        Job<String> read = job(queue, "b");
        assertThat(read.state()).isEqualTo(JobState.WAITING);
        assertThat(read.payload())
                .as("a payload the codec cannot decode reads as null")
                .isNull();
        assertThat(queue.payloadBytes("b"))
                .hasValueSatisfying(bytes -> assertThat(bytes).isEqualTo("bad-1".getBytes(StandardCharsets.UTF_8)));
        assertThat(queue.payloadBytes("unknown")).isEmpty();
    }

    @Test
    void aManualWorkerFailsTheUndecodableJobWithoutRunningItAndRunsTheOthers() {
        JobQueue<String> queue = pickyQueue();
        Events events = new Events();
        queue.addListener(events);
        List<String> ran = new CopyOnWriteArrayList<>();
        Worker<String> worker = manualWorker(queue, ctx -> {
            ran.add(ctx.payload());
            return Result.done();
        });
        queue.add("n", "good-1", withId("g1"));
        queue.add("n", "bad-1", withId("b"));
        queue.add("n", "good-2", withId("g2"));

        assertThat(worker.runDue()).isEqualTo(3);

        assertThat(ran).containsExactly("good-1", "good-2");
        assertDecodeFailure(job(queue, "b"));
        assertThat(ids(queue.jobs(JobState.FAILED, 0, 10))).containsExactly("b");
        assertThat(queue.counts()).isEqualTo(counts(0, 0, 0, 2, 1));
        told(queue);
        assertThat(events.log).contains("active b", "failed b", "drained");
        assertThat(queue.payloadBytes("b")).hasValue("bad-1".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aStartedWorkerSlotSurvivesAnUndecodableJobAndRunsTheNextOne() {
        JobQueue<String> queue = pickyQueue();
        queue.addListener(new Events());
        List<String> ran = new CopyOnWriteArrayList<>();
        startedWorker(
                queue,
                ctx -> {
                    ran.add(ctx.payload());
                    return Result.done();
                },
                1);

        queue.add("n", "bad-1", withId("b"));
        eventually().until(() -> stateOf(queue, "b") == JobState.FAILED);
        queue.add("n", "good-1", withId("g"));

        eventually().until(() -> stateOf(queue, "g") == JobState.COMPLETED);
        assertThat(ran).containsExactly("good-1");
        assertDecodeFailure(job(queue, "b"));
    }

    @Test
    void aProcessorThatNeverReadsThePayloadCompletesTheJob() {
        JobQueue<String> queue = pickyQueue();
        queue.add("n", "bad-1", withId("b"));

        assertThat(manualWorker(queue, completing()).runDue()).isEqualTo(1);

        assertThat(stateOf(queue, "b")).isEqualTo(JobState.COMPLETED);
    }

    @Test
    void anUndecodableJobIsNotRetriedWhateverAttemptsRemain() {
        JobQueue<String> queue = pickyQueue();
        queue.add(
                "n",
                "bad-1",
                dev.sluice.queue.JobOptions.builder().jobId("b").attempts(5).build());
        Worker<String> worker = manualWorker(queue, ctx -> Result.done(ctx.payload()));

        assertThat(worker.runDue()).isEqualTo(1);

        assertDecodeFailure(job(queue, "b"));
    }

    /** Strings as UTF-8, in a class with neither equals nor toString: instances differ in both. */
    static final class PlainCodec implements Codec<String> {
        @Override
        public byte[] encode(String payload) {
            return payload.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    @Test
    void aQueueReopensWithAnotherInstanceOfItsCodecsClassAndIsRefusedACodecOfAnotherName() {
        // regression: a codec's identity was its toString(), an identity hash for a class without one
        JobQueue<String> queue = engine.queue(QUEUE, new PlainCodec());
        queue.add("n", "p");

        JobQueue<String> again = engine.queue(QUEUE, new PlainCodec());
        assertThat(again.job(again.add("m", "q").job().id()).orElseThrow().payload())
                .isEqualTo("q");
        assertThatThrownBy(() -> engine.queue(QUEUE, Codec.utf8()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + PlainCodec.class.getName() + "'")
                .hasMessageContaining("'utf8'");

        Codec<String> v1 = Codec.of("point-v1", p -> p.getBytes(StandardCharsets.UTF_8), String::new);
        engine.queue("named", v1).add("n", "p");
        assertThat(engine.queue("named", Codec.of("point-v1", String::getBytes, String::new))
                        .counts()
                        .total())
                .isEqualTo(1);
        assertThatThrownBy(() -> engine.queue("named", Codec.of("point-v2", String::getBytes, String::new)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'point-v1'")
                .hasMessageContaining("'point-v2'");
    }

    @Test
    void aDecodeThatTakesLongHoldsUpNoOtherCallOfTheQueue() throws Exception {
        CountDownLatch decoding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Codec<String> slow = Codec.of("slow-on-demand", p -> p.getBytes(StandardCharsets.UTF_8), bytes -> {
            String payload = new String(bytes, StandardCharsets.UTF_8);
            if (payload.equals("slow")) {
                decoding.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return payload;
        });
        JobQueue<String> queue = engine.queue(QUEUE, slow);
        queue.add(
                "n",
                "slow",
                JobOptions.builder().jobId("s").delay(Duration.ofHours(1)).build());
        List<String> ran = new CopyOnWriteArrayList<>();
        Worker<String> worker = manualWorker(queue, recording(ran));
        try {
            Async<Optional<Job<String>>> read = async(() -> queue.job("s"));
            assertThat(decoding.await(10, TimeUnit.SECONDS))
                    .as("the read decodes")
                    .isTrue();

            CompletableFuture<JobCounts> others = CompletableFuture.supplyAsync(() -> {
                queue.add("n", "fast", withId("f"));
                assertThat(queue.job("f").orElseThrow().payload()).isEqualTo("fast");
                worker.runDue();
                return queue.counts();
            });

            assertThat(others.get(10, TimeUnit.SECONDS).completed())
                    .as("calls made while another call's decode runs")
                    .isEqualTo(1);
            assertThat(ran).containsExactly("f");
            release.countDown();
            assertThat(read.future().get(10, TimeUnit.SECONDS).orElseThrow().payload())
                    .isEqualTo("slow");
        } finally {
            release.countDown();
        }
    }
}
