package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class NewJobTest {
    @Test
    void twoArgumentFormTakesTheQueueDefaults() {
        NewJob<String> job = new NewJob<>("email", "to: ana");

        assertThat(job.name()).isEqualTo("email");
        assertThat(job.payload()).isEqualTo("to: ana");
        assertThat(job.options()).isSameAs(JobOptions.empty());
    }

    @Test
    void keepsTheGivenOptions() {
        JobOptions options = JobOptions.builder().attempts(3).build();

        assertThat(new NewJob<>("email", 42, options).options()).isSameAs(options);
    }

    @Test
    void nullPayloadIsLeftForTheCodecToJudge() {
        assertThat(new NewJob<String>("email", null).payload()).isNull();
    }

    @Test
    void nameOfOneAndOfTheMaximumLengthIsAccepted() {
        assertThat(new NewJob<>("x", "p").name()).isEqualTo("x");
        String longest = "n".repeat(JobOptions.MAX_NAME_LENGTH);
        assertThat(new NewJob<>(longest, "p").name()).isEqualTo(longest);
    }

    @Test
    void badNameIsRejectedSayingWhatWasWrongAndTheRange() {
        assertThatThrownBy(() -> new NewJob<>(null, "p"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("job name must be 1 to 512 characters, was null");
        assertThatThrownBy(() -> new NewJob<>("", "p"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("job name must be 1 to 512 characters, was empty");
        assertThatThrownBy(() -> new NewJob<>("n".repeat(513), "p"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("job name must be 1 to 512 characters, was 513 characters");
    }

    @Test
    void nullOptionsAreRejectedNamingTheJob() {
        assertThatThrownBy(() -> new NewJob<>("email", "p", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("options of job 'email' must not be null; use JobOptions.empty()");
    }

    @Test
    void equalWhenNamePayloadAndOptionsAreEqual() {
        JobOptions options = JobOptions.builder().priority(5).build();

        assertThat(new NewJob<>("a", "p", options))
                .isEqualTo(
                        new NewJob<>("a", "p", JobOptions.builder().priority(5).build()))
                .hasSameHashCodeAs(
                        new NewJob<>("a", "p", JobOptions.builder().priority(5).build()))
                .isNotEqualTo(new NewJob<>("a", "p"))
                .isNotEqualTo(new NewJob<>("b", "p", options))
                .isNotEqualTo(new NewJob<>("a", "q", options));
    }

    @Test
    void toStringShowsTheNameAndOptionsButNotThePayload() {
        NewJob<String> job = new NewJob<>(
                "email", "secret: card 4242", JobOptions.builder().attempts(3).build());

        assertThat(job).hasToString("NewJob{name=email, options=JobOptions{attempts=3}}");
    }

    @Test
    void repeatableJobToStringShowsItsScheduleButNotThePayload() {
        RepeatableJob<String> repeatable = new RepeatableJob<>(
                "nightly",
                Schedule.fixedRate(Duration.ofHours(24)),
                new NewJob<>("report", "secret payload"),
                4,
                Instant.parse("2026-01-05T03:00:00Z"));

        assertThat(repeatable)
                .hasToString("RepeatableJob{id=nightly, schedule=Schedule.fixedRate(1 d),"
                        + " template=NewJob{name=report, options=JobOptions{}}, runs=4, nextRun=2026-01-05T03:00:00Z}");
    }
}
