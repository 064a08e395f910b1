package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.Job.Attempt.Outcome;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Results of any type: {@link Result#done(Object, Codec)} stores the value as the codec encodes it, {@link
 * Job#result(Codec)} decodes it, and {@link Result#done(String)} is the UTF-8 case that {@link Job#result()}
 * reads. A value the codec cannot encode fails the attempt with the codec's reason.
 */
public abstract class QueueResultCodecContract extends QueueContractSupport {

    /** For subclasses, one per engine. */
    protected QueueResultCodecContract() {}

    /** A receipt, stored as its amount in cents (8 bytes) and its currency (UTF-8). */
    record Receipt(long cents, String currency) {}

    static final Codec<Receipt> RECEIPTS = new Codec<>() {
        @Override
        public byte[] encode(Receipt r) {
            if (r.currency().length() != 3) {
                throw new IllegalArgumentException("currency must be 3 letters, was " + r.currency());
            }
            return ByteBuffer.allocate(11)
                    .putLong(r.cents())
                    .put(r.currency().getBytes(java.nio.charset.StandardCharsets.US_ASCII))
                    .array();
        }

        @Override
        public Receipt decode(byte[] bytes) {
            if (bytes.length != 11) {
                throw new IllegalArgumentException("a receipt is 11 bytes, was " + bytes.length);
            }
            ByteBuffer b = ByteBuffer.wrap(bytes);
            long cents = b.getLong();
            byte[] currency = new byte[3];
            b.get(currency);
            return new Receipt(cents, new String(currency, java.nio.charset.StandardCharsets.US_ASCII));
        }

        @Override
        public String toString() {
            return "receipts";
        }
    };

    @Test
    void aResultOfAnyTypeIsStoredByItsCodecAndReadBack() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));

        manualWorker(queue, ctx -> Result.done(new Receipt(4_250, "EUR"), RECEIPTS))
                .runDue();

        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.COMPLETED);
        assertThat(job.result(RECEIPTS)).isEqualTo(new Receipt(4_250, "EUR"));
        assertThat(job.encodedResult()).hasSize(11);
    }

    @Test
    void aTextResultIsUtf8ReadByEitherAccessor() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));

        manualWorker(queue, ctx -> Result.done("größe: 🐘")).runDue();

        Job<String> job = job(queue, "j");
        assertThat(job.result()).isEqualTo("größe: 🐘");
        assertThat(job.result(Codec.utf8())).isEqualTo("größe: 🐘");
        assertThat(job.encodedResult()).isEqualTo("größe: 🐘".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void aJobWithoutAResultReadsNullWithAnyCodec() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("none"));
        queue.add("n", "p", withId("null-text"));

        manualWorker(queue, ctx -> ctx.job().id().equals("none") ? Result.done() : Result.done((String) null))
                .runDue();

        for (String id : List.of("none", "null-text")) {
            Job<String> job = job(queue, id);
            assertThat(job.state()).isEqualTo(JobState.COMPLETED);
            assertThat(job.result()).isNull();
            assertThat(job.result(RECEIPTS)).isNull();
            assertThat(job.encodedResult()).isNull();
        }
    }

    @Test
    void aResultTheCodecCannotEncodeFailsTheAttemptWithTheCodecsReason() {
        JobQueue<String> queue = newQueue(JobOptions.builder().attempts(2));
        queue.add("n", "p", withId("j"));

        manualWorker(
                        queue,
                        ctx -> ctx.attempt() == 1
                                ? Result.done(new Receipt(1, "EURO"), RECEIPTS)
                                : Result.done(new Receipt(1, "EUR"), RECEIPTS))
                .runDue();

        Job<String> job = job(queue, "j");
        assertThat(job.state()).isEqualTo(JobState.COMPLETED);
        assertThat(job.attempts()).extracting(Job.Attempt::outcome).containsExactly(Outcome.FAILED, Outcome.COMPLETED);
        assertThat(job.attempts().get(0).error()).contains("receipts").contains("currency must be 3 letters");
        assertThat(job.result(RECEIPTS)).isEqualTo(new Receipt(1, "EUR"));
    }

    @Test
    void readingAResultWithACodecThatCannotDecodeItNamesTheJob() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        manualWorker(queue, ctx -> Result.done("not a receipt")).runDue();

        assertRejected(() -> job(queue, "j").result(RECEIPTS), "'j'", "receipts", "11 bytes");
        assertRejected(() -> job(queue, "j").result(null), "codec");
    }

    @Test
    void aSnapshotsResultCannotBeChangedThroughItsBytes() {
        JobQueue<String> queue = newQueue();
        queue.add("n", "p", withId("j"));
        byte[] returned = {1, 2, 3};
        manualWorker(queue, ctx -> Result.done(returned, Codec.bytes())).runDue();
        returned[0] = 9;

        Job<String> job = job(queue, "j");
        job.encodedResult()[1] = 9;

        assertThat(job.result(Codec.bytes())).containsExactly(1, 2, 3);
        assertThat(job(queue, "j").encodedResult()).containsExactly(1, 2, 3);
    }

    @Test
    void theCompletedEventCarriesTheResult() {
        JobQueue<String> queue = newQueue();
        Events events = new Events();
        queue.addListener(events);
        queue.add("n", "p", withId("j"));

        manualWorker(queue, ctx -> Result.done(new Receipt(7, "USD"), RECEIPTS)).runDue();

        told(queue);
        assertThat(events.snapshotOf("completed j").result(RECEIPTS)).isEqualTo(new Receipt(7, "USD"));
    }

    @Test
    void doneRefusesANullCodecOrACodecThatReturnsNull() {
        assertRejected(() -> Result.done("x", null), "codec");
        Codec<String> broken = new Codec<>() {
            @Override
            public byte[] encode(String payload) {
                return null;
            }

            @Override
            public String decode(byte[] bytes) {
                return "";
            }
        };
        assertRejected(() -> Result.done("x", broken), "returned null");
    }
}
