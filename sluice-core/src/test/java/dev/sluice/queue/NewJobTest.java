package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
}
