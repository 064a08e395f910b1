package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class JobCountsTest {
    private final JobCounts counts = new JobCounts(1, 20, 300, 4_000, 50_000);

    @Test
    void ofReturnsTheCountOfEachState() {
        assertThat(counts.of(JobState.WAITING)).isEqualTo(1);
        assertThat(counts.of(JobState.DELAYED)).isEqualTo(20);
        assertThat(counts.of(JobState.ACTIVE)).isEqualTo(300);
        assertThat(counts.of(JobState.COMPLETED)).isEqualTo(4_000);
        assertThat(counts.of(JobState.FAILED)).isEqualTo(50_000);
    }

    @Test
    void totalAddsEveryState() {
        assertThat(counts.total()).isEqualTo(54_321);
        assertThat(new JobCounts(0, 0, 0, 0, 0).total()).isZero();
    }

    @Property(tries = 200)
    void totalIsTheSumOfTheCountOfEveryState(
            @ForAll @LongRange(max = 1_000_000_000_000L) long waiting,
            @ForAll @LongRange(max = 1_000_000_000_000L) long delayed,
            @ForAll @LongRange(max = 1_000_000_000_000L) long active,
            @ForAll @LongRange(max = 1_000_000_000_000L) long completed,
            @ForAll @LongRange(max = 1_000_000_000_000L) long failed) {
        JobCounts random = new JobCounts(waiting, delayed, active, completed, failed);

        long sum = Arrays.stream(JobState.values()).mapToLong(random::of).sum();

        assertThat(random.total()).isEqualTo(sum).isEqualTo(waiting + delayed + active + completed + failed);
    }

    @Test
    void ofNullIsAnIllegalArgumentNamingTheStates() {
        assertThatThrownBy(() -> counts.of(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("state must be one of [WAITING, DELAYED, ACTIVE, COMPLETED, FAILED], was null");
    }
}
