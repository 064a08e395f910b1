package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.internal.queue.AttemptRules.Next;
import dev.sluice.queue.Backoff;
import dev.sluice.queue.Result;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AttemptRulesTest {
    private static final long NOW = 1_000_000_000L;

    @Test
    void aFailureWithAttemptsLeftIsRetriedAfterItsDelay() {
        assertThat(AttemptRules.afterFailure(1, 3, Duration.ofMillis(250), "boom", NOW))
                .isEqualTo(new Next(Next.Kind.RETRY, 1_250_000_000L, null));
        assertThat(AttemptRules.afterFailure(2, 3, Duration.ZERO, "boom", NOW))
                .as("no backoff: ready at once")
                .isEqualTo(new Next(Next.Kind.RETRY, NOW, null));
    }

    @Test
    void theLastAttemptOrANullDelayFailsForGood() {
        assertThat(AttemptRules.afterFailure(3, 3, Duration.ofSeconds(1), "boom", NOW))
                .isEqualTo(Next.fail("boom"));
        assertThat(AttemptRules.afterFailure(1, 3, null, "unrecoverable", NOW)).isEqualTo(Next.fail("unrecoverable"));
    }

    @Test
    void aRetryFarInTheFutureSaturatesInsteadOfOverflowing() {
        assertThat(AttemptRules.afterFailure(1, 2, Duration.ofDays(365L * 300), "boom", Long.MAX_VALUE - 10)
                        .at())
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aRateLimitPausesUntilNowPlusRetryAfterUntilMaxRateLimitsIsExceeded() {
        Result.RateLimited limited = new Result.RateLimited(Result.Scope.GROUP, Duration.ofSeconds(2));

        assertThat(AttemptRules.afterRateLimit(0, 2, limited.retryAfter(), NOW))
                .isEqualTo(new Next(Next.Kind.RATE_LIMITED, 3_000_000_000L, null));
        assertThat(AttemptRules.afterRateLimit(1, 2, limited.retryAfter(), NOW).kind())
                .isEqualTo(Next.Kind.RATE_LIMITED);
        assertThat(AttemptRules.afterRateLimit(2, 2, limited.retryAfter(), NOW))
                .isEqualTo(Next.fail("rate limited 3 times, more than maxRateLimits 2"));
        assertThat(AttemptRules.afterRateLimit(0, 0, limited.retryAfter(), NOW))
                .isEqualTo(Next.fail("rate limited 1 times, more than maxRateLimits 0"));
    }

    @Test
    void theBackoffIsAskedOnlyWhileAttemptsRemain() {
        int[] asked = {0};
        Backoff counting = Backoff.custom((attempt, error) -> {
            asked[0]++;
            return Duration.ofMillis(100L * attempt);
        });

        assertThat(AttemptRules.backoff(2, 3, counting, null, "e"))
                .isEqualTo(new AttemptRules.Retry(Duration.ofMillis(200), "e"));
        assertThat(AttemptRules.backoff(3, 3, counting, null, "e")).isEqualTo(new AttemptRules.Retry(null, "e"));
        assertThat(asked[0]).isEqualTo(1);
    }

    @Test
    void aBackoffThatThrowsOrAnswersNullOrNegativeFailsTheJobSayingSo() {
        Backoff throwing = Backoff.custom((attempt, error) -> {
            throw new IllegalStateException("bad backoff");
        });
        Backoff nulls = Backoff.custom((attempt, error) -> null);
        Backoff negative = Backoff.custom((attempt, error) -> Duration.ofSeconds(-1));

        assertThat(AttemptRules.backoff(1, 2, throwing, null, "e").reason())
                .startsWith("e; its backoff ")
                .contains("threw java.lang.IllegalStateException: bad backoff");
        assertThat(AttemptRules.backoff(1, 2, nulls, null, "e").reason()).contains("returned null for attempt 1");
        assertThat(AttemptRules.backoff(1, 2, negative, null, "e"))
                .satisfies(r -> assertThat(r.delay()).isNull())
                .satisfies(r -> assertThat(r.reason()).contains("returned -1 s for attempt 1"));
    }

    @Test
    void aDelayedJobIsDueAtItsInstant() {
        assertThat(AttemptRules.isDue(NOW, NOW - 1)).isFalse();
        assertThat(AttemptRules.isDue(NOW, NOW)).isTrue();
        assertThat(AttemptRules.isDue(NOW, NOW + 1)).isTrue();
    }

    @Test
    void aSaturatedSumIsThePlainSumWhereItFitsAndTheLargestLongWhereItOverflows() {
        assertThat(AttemptRules.saturatedAdd(5, -3)).isEqualTo(2);
        assertThat(AttemptRules.saturatedAdd(-5, 3)).isEqualTo(-2);
        assertThat(AttemptRules.saturatedAdd(Long.MAX_VALUE - 1, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(AttemptRules.saturatedAdd(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(AttemptRules.saturatedAdd(1, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aDurationTooLongForNanosecondsCountsAsTheLargestLong() {
        assertThat(AttemptRules.nanos(Duration.ofNanos(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
        assertThat(AttemptRules.nanos(Duration.ofNanos(Long.MAX_VALUE).plusNanos(1)))
                .isEqualTo(Long.MAX_VALUE);
        assertThat(AttemptRules.nanos(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
        assertThat(AttemptRules.nanos(Duration.ofMillis(1500))).isEqualTo(1_500_000_000L);
    }

    @Test
    void anOverloadedJobsWaitIsSpreadOverAFifthMoreFixedByItsIdAndRefusals() {
        Duration ten = Duration.ofSeconds(10);
        Duration a = AttemptRules.spread(ten, "a", 0);
        assertThat(a).isBetween(ten, Duration.ofSeconds(12)).isEqualTo(AttemptRules.spread(ten, "a", 0));
        assertThat(AttemptRules.spread(ten, "a", 1)).isNotEqualTo(a);
        assertThat(AttemptRules.spread(ten, "b", 0)).isNotEqualTo(a);
        assertThat(AttemptRules.spread(Duration.ZERO, "a", 0)).isZero();
        java.util.Set<Long> tenths = new java.util.HashSet<>();
        for (int i = 0; i < 1_000; i++) {
            Duration d = AttemptRules.spread(ten, "job-" + i, 0);
            assertThat(d).isGreaterThanOrEqualTo(ten).isLessThan(Duration.ofSeconds(12));
            tenths.add(d.toMillis() / 200);
        }
        assertThat(tenths)
                .as("every tenth of the extra fifth is used")
                .containsExactlyInAnyOrder(50L, 51L, 52L, 53L, 54L, 55L, 56L, 57L, 58L, 59L);
    }
}
