package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.Decision;

/** Steps of the algorithm tests on literal times, each asserting what it relies on. */
final class AlgorithmSteps {
    private AlgorithmSteps() {}

    /** Takes {@code permits} at {@code now}, which must be allowed. */
    static Decision granted(Algorithm algorithm, KeyState state, long now, long permits) {
        Decision granted = algorithm.acquire(state, now, permits, true);
        assertThat(granted.allowed()).as("%d permits at %d", permits, now).isTrue();
        return granted;
    }

    /** What one more permit would leave at {@code now}, taking nothing; one more must be allowed. */
    static long leftAfterOne(Algorithm algorithm, KeyState state, long now) {
        Decision peek = algorithm.acquire(state, now, 1, false);
        assertThat(peek.allowed()).as("one permit at %d", now).isTrue();
        return peek.remaining();
    }

    /** Asserts that {@code state} is idle from {@code instant} on, not a nanosecond before. */
    static void assertIdleFrom(Algorithm algorithm, KeyState state, long instant) {
        assertThat(algorithm.isIdle(state, instant - 1))
                .as("idle a nanosecond before")
                .isFalse();
        assertThat(algorithm.isIdle(state, instant)).as("idle at %d", instant).isTrue();
    }
}
