package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.Backoff;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.Processor;
import dev.sluice.queue.Result;
import dev.sluice.queue.UnrecoverableJobException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How every engine reads the end of an attempt from its processor (AttemptEnd.run). */
class AttemptEndTest {
    private static final JobOptions THREE_ATTEMPTS = JobOptions.builder()
            .attempts(3)
            .backoff(Backoff.fixed(Duration.ofSeconds(2)))
            .build();

    private static AttemptEnd end(Processor<String> processor, int attempt) {
        return AttemptEnd.run(processor, null, attempt, THREE_ATTEMPTS);
    }

    @Test
    void aDoneResultCompletesWithItsBytes() {
        AttemptEnd end = end(job -> Result.done("ok"), 1);

        assertThat(end)
                .isInstanceOfSatisfying(
                        AttemptEnd.Completed.class,
                        done -> assertThat(new String(done.value(), StandardCharsets.UTF_8))
                                .isEqualTo("ok"));
        assertThat(end(job -> Result.done(), 1))
                .isInstanceOfSatisfying(
                        AttemptEnd.Completed.class,
                        done -> assertThat(done.value()).isNull());
    }

    @Test
    void rateLimitedAndRunAgainResultsAreKept() {
        Result limited = Result.rateLimited(Result.Scope.GROUP, Duration.ofMillis(1500));

        assertThat(end(job -> limited, 1)).isEqualTo(new AttemptEnd.RateLimited((Result.RateLimited) limited));
        assertThat(end(job -> Result.runAgainAfter(Duration.ofSeconds(7)), 1))
                .isEqualTo(new AttemptEnd.RunAgain(Duration.ofSeconds(7)));
    }

    @Test
    void aThrownErrorIsRetriedAfterTheBackoffWhileAttemptsRemain() {
        IllegalStateException boom = new IllegalStateException("boom");

        assertThat(end(
                        job -> {
                            throw boom;
                        },
                        2))
                .isEqualTo(new AttemptEnd.Failed(boom, "boom", Duration.ofSeconds(2)));
        assertThat(end(
                        job -> {
                            throw boom;
                        },
                        3))
                .as("the last attempt fails the job")
                .isEqualTo(new AttemptEnd.Failed(boom, "boom", null));
    }

    @Test
    void anErrorWithoutAMessageIsNamedByItsClass() {
        AttemptEnd end = end(
                job -> {
                    throw new IllegalArgumentException();
                },
                1);

        assertThat(((AttemptEnd.Failed) end).reason()).isEqualTo(IllegalArgumentException.class.getName());
    }

    @Test
    void anUnrecoverableErrorFailsForGoodWhateverAttemptsRemain() {
        UnrecoverableJobException fatal = new UnrecoverableJobException("bad input");

        assertThat(end(
                        job -> {
                            throw fatal;
                        },
                        1))
                .isEqualTo(new AttemptEnd.Failed(fatal, "bad input", null));
    }

    @Test
    void aPayloadTheCodecCannotDecodeFailsForGoodWithTheCodecsError() {
        LazyPayload<String> payload =
                new LazyPayload<>("j1", new byte[] {1}, Codec.of("broken", text -> new byte[0], bytes -> {
                    throw new IllegalArgumentException("not text");
                }));

        AttemptEnd end = end(job -> Result.done(payload.get()), 1);

        assertThat(end).isInstanceOfSatisfying(AttemptEnd.Failed.class, failed -> {
            assertThat(failed.error())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("not text");
            assertThat(failed.reason()).contains("the payload of job 'j1' cannot be decoded");
            assertThat(failed.retryDelay()).isNull();
        });
    }

    @Test
    void aNullResultFailsTheJobAtOnceSayingWhatToReturn() {
        assertThat(end(job -> null, 1)).isEqualTo(new AttemptEnd.Failed(null, QueueChecks.NULL_RESULT, null));
        assertThat(QueueChecks.NULL_RESULT).contains("returned null").contains("Result.done()");
    }

    @Test
    void aTimedOutAttemptIsRetriedAfterTheBackoffWhileAttemptsRemainSayingHowLongItHad() {
        assertThat(AttemptEnd.timedOut(1, THREE_ATTEMPTS, Duration.ofMillis(1500)))
                .isEqualTo(new AttemptEnd.TimedOut("timed out after 1.5 s", Duration.ofSeconds(2)));
        assertThat(AttemptEnd.timedOut(3, THREE_ATTEMPTS, Duration.ofMillis(1500)))
                .as("the last attempt fails the job")
                .isEqualTo(new AttemptEnd.TimedOut("timed out after 1.5 s", null));
    }

    @Test
    void aBackoffThatThrowsFailsTheJobSayingSo() {
        JobOptions throwing = JobOptions.builder()
                .attempts(3)
                .backoff(Backoff.custom((attempt, error) -> {
                    throw new IllegalStateException("no delay");
                }))
                .build();

        AttemptEnd end = AttemptEnd.run(
                job -> {
                    throw new RuntimeException("first");
                },
                null,
                1,
                throwing);

        assertThat(end).isInstanceOfSatisfying(AttemptEnd.Failed.class, failed -> {
            assertThat(failed.retryDelay()).isNull();
            assertThat(failed.reason()).startsWith("first; its backoff").contains("no delay");
        });
    }
}
