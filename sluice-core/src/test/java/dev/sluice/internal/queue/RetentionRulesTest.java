package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.Retention;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetentionRulesTest {
    private static final long FINISHED = 5_000_000_000L;

    @Test
    void aJobKeptForAnAgeExpiresWhenItReachesIt() {
        long expiresAt = RetentionRules.expiresAt(Retention.keepFor(Duration.ofSeconds(10)), FINISHED);

        assertThat(expiresAt).isEqualTo(15_000_000_000L);
        assertThat(RetentionRules.isExpired(expiresAt, 14_999_999_999L)).isFalse();
        assertThat(RetentionRules.isExpired(expiresAt, 15_000_000_000L)).isTrue();
    }

    @Test
    void aRetentionWithoutAnAgeNeverExpires() {
        assertThat(RetentionRules.expiresAt(Retention.keepLast(5), FINISHED)).isEqualTo(RetentionRules.NEVER);
        assertThat(RetentionRules.expiresAt(Retention.keepFor(Duration.ofDays(365L * 70)), Long.MAX_VALUE - 1))
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aFinishEvictsTheOldestBeyondTheCount() {
        assertThat(RetentionRules.evictions(Retention.keepLast(3), 3)).isZero();
        assertThat(RetentionRules.evictions(Retention.keepLast(3), 4)).isEqualTo(1);
        assertThat(RetentionRules.evictions(Retention.keepNone(), 1)).isEqualTo(1);
        assertThat(RetentionRules.evictions(Retention.keepAll(), Integer.MAX_VALUE))
                .isZero();
    }

    @Test
    void cleanRemovesJobsAtLeastThatOld() {
        long cutoff = RetentionRules.cleanCutoff(Duration.ofSeconds(10), 20_000_000_000L);

        assertThat(cutoff).isEqualTo(10_000_000_000L);
        assertThat(RetentionRules.cleanCutoff(Duration.ZERO, 7)).isEqualTo(7);
        assertThat(RetentionRules.cleanCutoff(Duration.ofDays(365L * 1000), 7))
                .as("an age older than any clock reading cleans nothing that finished after the epoch")
                .isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void anIdIsRememberedUntilTheWindowEndsAndFreeAtThatInstant() {
        long until = RetentionRules.rememberUntil(Duration.ofSeconds(60), FINISHED);

        assertThat(until).isEqualTo(65_000_000_000L);
        assertThat(RetentionRules.isRemembered(until, 64_999_999_999L)).isTrue();
        assertThat(RetentionRules.isRemembered(until, 65_000_000_000L)).isFalse();
    }

    @Test
    void withoutAWindowAnIdIsNotRemembered() {
        long until = RetentionRules.rememberUntil(null, FINISHED);

        assertThat(RetentionRules.isRemembered(until, FINISHED)).isFalse();
        assertThat(RetentionRules.isRemembered(until, Long.MIN_VALUE)).isFalse();
    }
}
