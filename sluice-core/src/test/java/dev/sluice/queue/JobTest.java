package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Job.Attempt;
import dev.sluice.queue.Job.Attempt.Outcome;
import dev.sluice.queue.Job.Failure;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobTest {
    private static final Instant ADDED = Instant.parse("2026-01-01T00:00:00Z");
    private static final Instant STARTED = ADDED.plusSeconds(1);
    private static final Instant FINISHED = ADDED.plusSeconds(3);

    private static Job<String> job(
            JobState state, byte[] result, Failure failure, List<Attempt> attempts, int rateLimits, int progress) {
        return new Job<>(
                "order-17",
                "charge",
                "card 4242 4242 4242 4242",
                "tenant-a",
                state,
                JobOptions.defaults(),
                1,
                rateLimits,
                ADDED,
                null,
                STARTED,
                FINISHED,
                progress,
                result,
                failure,
                attempts);
    }

    @Test
    void toStringShowsWhatAPersonLooksForButNeitherPayloadNorResult() {
        byte[] result = "{\"charge\":\"ch_1\"}".getBytes(StandardCharsets.UTF_8);
        Attempt attempt = new Attempt(1, STARTED, FINISHED, Outcome.COMPLETED, null);

        assertThat(job(JobState.COMPLETED, result, null, List.of(attempt), 0, 100))
                .hasToString("Job{id=order-17, name=charge, group=tenant-a, state=COMPLETED, attemptsMade=1,"
                        + " progress=100, createdAt=2026-01-01T00:00:00Z, startedAt=2026-01-01T00:00:01Z,"
                        + " finishedAt=2026-01-01T00:00:03Z, result=17 bytes}");
    }

    @Test
    void toStringOfAFailedJobGivesTheReasonButNotTheStackTrace() {
        Failure failure = new Failure("card declined", "java.lang.IllegalStateException", "at Charge.run(...)");
        Job<String> failed = job(JobState.FAILED, null, failure, List.of(), 2, 0);

        assertThat(failed.toString())
                .contains("state=FAILED", "rateLimits=2", "failure=card declined")
                .doesNotContain("4242", "Charge.run");
        assertThat(failure)
                .hasToString("Failure{reason=card declined, exceptionClass=java.lang.IllegalStateException}");
    }

    @Test
    void nullAttemptsAreAnIllegalArgumentNamingTheJob() {
        List<Attempt> withNull = new ArrayList<>();
        withNull.add(null);

        assertThatThrownBy(() -> job(JobState.WAITING, null, null, null, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("attempts of job 'order-17' must be a list without nulls (List.of() for none), was null");
        assertThatThrownBy(() -> job(JobState.WAITING, null, null, withNull, 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without nulls");
    }

    @Test
    void jobsWithEqualResultBytesAreEqualAndOtherBytesAreNot() {
        Attempt attempt = new Attempt(1, STARTED, FINISHED, Outcome.COMPLETED, null);
        Job<String> one = job(JobState.COMPLETED, new byte[] {1, 2}, null, List.of(attempt), 0, 100);
        Job<String> same = job(JobState.COMPLETED, new byte[] {1, 2}, null, List.of(attempt), 0, 100);

        assertThat(one).isEqualTo(same).hasSameHashCodeAs(same);
        assertThat(one).isNotEqualTo(job(JobState.COMPLETED, new byte[] {1, 3}, null, List.of(attempt), 0, 100));
        assertThat(one).isNotEqualTo(job(JobState.COMPLETED, null, null, List.of(attempt), 0, 100));
        assertThat(one).isNotEqualTo(job(JobState.COMPLETED, new byte[] {1, 2}, null, List.of(attempt), 0, 99));
    }
}
