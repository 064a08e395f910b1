package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigInteger;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BackoffTest {
    private static final RuntimeException ERROR = new RuntimeException("boom");

    /** {@code min(cap, base * 2^(attempt-1))}, attempts below 1 counting as 1, computed without overflow. */
    private static long expectedNanos(long baseNanos, long capNanos, int failedAttempt) {
        long doublings = Math.max(0L, (long) failedAttempt - 1);
        if (doublings >= 64) {
            return capNanos; // base is at least 1 ns and the cap below 2^63
        }
        BigInteger exact = BigInteger.valueOf(baseNanos).shiftLeft((int) doublings);
        return exact.min(BigInteger.valueOf(capNanos)).longValueExact();
    }

    @Test
    void noneRetriesAtOnce() {
        assertThat(Backoff.none().delay(1, ERROR)).isZero();
        assertThat(Backoff.none().delay(Integer.MAX_VALUE, ERROR)).isZero();
        assertThat(Backoff.none()).isEqualTo(Backoff.fixed(Duration.ZERO));
    }

    @Test
    void fixedWaitsTheSameAfterEveryFailure() {
        Backoff backoff = Backoff.fixed(Duration.ofSeconds(7));

        assertThat(backoff.delay(1, ERROR)).isEqualTo(Duration.ofSeconds(7));
        assertThat(backoff.delay(2, ERROR)).isEqualTo(Duration.ofSeconds(7));
        assertThat(backoff.delay(1_000_000, null)).isEqualTo(Duration.ofSeconds(7));
        assertThat(backoff).isEqualTo(new Backoff.Fixed(Duration.ofSeconds(7)));
    }

    @Test
    void fixedRejectsNegativeNullAndTooLongWaitsNamingTheValue() {
        assertThatThrownBy(() -> Backoff.fixed(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fixed backoff must be between 0 and about 73 years, was -1 ms");
        assertThatThrownBy(() -> Backoff.fixed(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fixed backoff must be between 0 and about 73 years, was null");
        assertThatThrownBy(() -> Backoff.fixed(Durations.MAX.plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fixed backoff must be between 0 and about 73 years");
        assertThat(Backoff.fixed(Durations.MAX).delay(1, ERROR)).isEqualTo(Durations.MAX);
    }

    @ParameterizedTest(name = "attempt {0} waits {1}s")
    @CsvSource({"1, 1", "2, 2", "3, 4", "4, 8", "5, 16", "11, 1024", "12, 2048", "13, 3600", "14, 3600", "100, 3600"})
    void exponentialDoublesFromTheBaseUntilTheCap(int failedAttempt, long seconds) {
        Backoff backoff = Backoff.exponential(Duration.ofSeconds(1), Duration.ofHours(1));

        assertThat(backoff.delay(failedAttempt, ERROR)).isEqualTo(Duration.ofSeconds(seconds));
    }

    @ParameterizedTest
    @CsvSource({"0", "-1", "-2147483648"})
    void attemptsBelowOneWaitTheBase(int failedAttempt) {
        Backoff backoff = Backoff.exponential(Duration.ofMillis(250), Duration.ofMinutes(1));

        assertThat(backoff.delay(failedAttempt, ERROR)).isEqualTo(Duration.ofMillis(250));
    }

    @ParameterizedTest
    @CsvSource({"62", "63", "64", "65", "1000", "2147483647"})
    void veryLargeAttemptNumbersWaitTheCapWithoutOverflow(int failedAttempt) {
        Backoff backoff = Backoff.exponential(Duration.ofNanos(1), Durations.MAX);

        assertThat(backoff.delay(failedAttempt, ERROR)).isEqualTo(Durations.MAX);
    }

    @Test
    void oneNanosecondBaseReachesTheLargestCapExactlyAtTheLastDoubling() {
        // Durations.MAX is 2^61 - 1 ns: 2^60 still fits under it, 2^61 does not
        Backoff backoff = Backoff.exponential(Duration.ofNanos(1), Durations.MAX);

        assertThat(Durations.MAX.toNanos()).isEqualTo((1L << 61) - 1);
        assertThat(backoff.delay(61, ERROR)).isEqualTo(Duration.ofNanos(1L << 60));
        assertThat(backoff.delay(62, ERROR)).isEqualTo(Durations.MAX);
    }

    @Test
    void largestBaseAndCapNeverOverflow() {
        Backoff backoff = Backoff.exponential(Durations.MAX, Durations.MAX);

        assertThat(backoff.delay(1, ERROR)).isEqualTo(Durations.MAX);
        assertThat(backoff.delay(2, ERROR)).isEqualTo(Durations.MAX);
        assertThat(backoff.delay(Integer.MAX_VALUE, ERROR)).isEqualTo(Durations.MAX);
    }

    @Test
    void capNotAPowerOfTwoOfTheBaseIsHitExactly() {
        Backoff backoff = Backoff.exponential(Duration.ofMillis(300), Duration.ofMillis(1000));

        assertThat(backoff.delay(2, ERROR)).isEqualTo(Duration.ofMillis(600));
        assertThat(backoff.delay(3, ERROR)).isEqualTo(Duration.ofMillis(1000));
    }

    @Test
    void capEqualToTheBaseAlwaysWaitsTheBase() {
        Backoff backoff = Backoff.exponential(Duration.ofSeconds(3), Duration.ofSeconds(3));

        assertThat(backoff.delay(1, ERROR)).isEqualTo(Duration.ofSeconds(3));
        assertThat(backoff.delay(40, ERROR)).isEqualTo(Duration.ofSeconds(3));
    }

    @Property(tries = 1000)
    void exponentialIsBaseTimesTwoToTheFailedAttemptsLessOneCappedExactly(
            @ForAll @LongRange(min = 1, max = (1L << 61) - 1) long baseNanos,
            @ForAll @LongRange(min = 1, max = (1L << 61) - 1) long otherNanos,
            @ForAll @IntRange(min = -5, max = Integer.MAX_VALUE) int failedAttempt) {
        long base = Math.min(baseNanos, otherNanos);
        long cap = Math.max(baseNanos, otherNanos);
        Backoff backoff = Backoff.exponential(Duration.ofNanos(base), Duration.ofNanos(cap));

        assertThat(backoff.delay(failedAttempt, ERROR).toNanos()).isEqualTo(expectedNanos(base, cap, failedAttempt));
    }

    @Property(tries = 1000)
    void exponentialForSmallAttemptsIsBaseTimesTwoToTheFailedAttemptsLessOneCappedExactly(
            @ForAll @LongRange(min = 1, max = 10_000_000_000L) long base,
            @ForAll @LongRange(min = 0, max = 1_000_000_000_000_000L) long extra,
            @ForAll @IntRange(min = 1, max = 70) int failedAttempt) {
        long cap = base + extra;
        Backoff backoff = Backoff.exponential(Duration.ofNanos(base), Duration.ofNanos(cap));

        assertThat(backoff.delay(failedAttempt, ERROR).toNanos()).isEqualTo(expectedNanos(base, cap, failedAttempt));
    }

    @Property(tries = 1000)
    void fullJitterStaysBetweenZeroAndTheExponentialWait(
            @ForAll @LongRange(min = 1, max = 10_000_000_000L) long base,
            @ForAll @LongRange(min = 0, max = (1L << 61) - 1 - 10_000_000_000L) long extra,
            @ForAll @IntRange(min = -1, max = 80) int failedAttempt) {
        long cap = base + extra;
        Backoff jittered = Backoff.exponentialWithJitter(Duration.ofNanos(base), Duration.ofNanos(cap));

        Duration delay = jittered.delay(failedAttempt, ERROR);

        assertThat(delay.toNanos()).isBetween(0L, expectedNanos(base, cap, failedAttempt));
    }

    @Test
    void fullJitterSpreadsWaitsOverTheWholeRange() {
        Backoff jittered = Backoff.exponentialWithJitter(Duration.ofSeconds(1), Duration.ofMinutes(1));
        long ceiling = Duration.ofSeconds(8).toNanos(); // attempt 4
        Set<Long> seen = new HashSet<>();
        long below = 0;
        long above = 0;

        for (int i = 0; i < 2_000; i++) {
            long nanos = jittered.delay(4, ERROR).toNanos();
            assertThat(nanos).isBetween(0L, ceiling);
            seen.add(nanos);
            if (nanos < ceiling / 4) {
                below++;
            } else if (nanos > ceiling * 3 / 4) {
                above++;
            }
        }

        // about 500 each; fewer than 300 is vanishingly unlikely for a uniform draw
        assertThat(seen).hasSizeGreaterThan(1_900);
        assertThat(below).isGreaterThan(300);
        assertThat(above).isGreaterThan(300);
    }

    @Test
    void fullJitterOfAOneNanosecondWaitIsZeroOrOne() {
        Backoff jittered = Backoff.exponentialWithJitter(Duration.ofNanos(1), Duration.ofNanos(1));
        Set<Long> seen = new HashSet<>();

        for (int i = 0; i < 200; i++) {
            seen.add(jittered.delay(1, ERROR).toNanos());
        }

        assertThat(seen).containsExactlyInAnyOrder(0L, 1L);
    }

    @Test
    void exponentialRejectsANonPositiveBaseNamingIt() {
        assertThatThrownBy(() -> Backoff.exponential(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("exponential backoff base must be positive and at most about 73 years, was 0 ns");
        assertThatThrownBy(() -> Backoff.exponentialWithJitter(null, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("exponential backoff base must be positive")
                .hasMessageEndingWith("was null");
    }

    @Test
    void exponentialRejectsABadCapNamingIt() {
        assertThatThrownBy(() -> Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("exponential backoff cap must be positive and at most about 73 years, was -1 s");
        assertThatThrownBy(() -> Backoff.exponential(Duration.ofSeconds(1), Durations.MAX.plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("exponential backoff cap must be positive and at most about 73 years");
    }

    @Test
    void exponentialRejectsACapBelowTheBaseNamingBoth() {
        assertThatThrownBy(() -> Backoff.exponential(Duration.ofSeconds(10), Duration.ofSeconds(9)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("exponential backoff cap must be at least its base 10 s, was 9 s");
    }

    @Test
    void exponentialAndJitteredAreDifferentValues() {
        Backoff plain = Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(1));
        Backoff jittered = Backoff.exponentialWithJitter(Duration.ofSeconds(1), Duration.ofMinutes(1));

        assertThat(plain).isEqualTo(new Backoff.Exponential(Duration.ofSeconds(1), Duration.ofMinutes(1), false));
        assertThat(jittered).isEqualTo(new Backoff.Exponential(Duration.ofSeconds(1), Duration.ofMinutes(1), true));
        assertThat(plain).isNotEqualTo(jittered);
    }

    @Test
    void customPassesTheAttemptAndErrorToItsFunction() {
        AtomicInteger seenAttempt = new AtomicInteger();
        AtomicReference<Throwable> seenError = new AtomicReference<>();
        IOException error = new IOException("disk full");
        Backoff backoff = Backoff.custom((attempt, cause) -> {
            seenAttempt.set(attempt);
            seenError.set(cause);
            return cause instanceof IOException ? Duration.ofMinutes(attempt) : Duration.ZERO;
        });

        assertThat(backoff.delay(3, error)).isEqualTo(Duration.ofMinutes(3));
        assertThat(seenAttempt).hasValue(3);
        assertThat(seenError).hasValue(error);
        assertThat(backoff.delay(3, ERROR)).isZero();
    }

    @Test
    void customReturnsWhatTheFunctionReturnsEvenNullOrNegativeForTheEngineToRefuse() {
        assertThat(Backoff.custom((attempt, cause) -> null).delay(1, ERROR)).isNull();
        assertThat(Backoff.custom((attempt, cause) -> Duration.ofSeconds(-1)).delay(1, ERROR))
                .isEqualTo(Duration.ofSeconds(-1));
    }

    @Test
    void customRejectsANullFunction() {
        assertThatThrownBy(() -> Backoff.custom(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("custom backoff function must not be null");
    }

    @Test
    void toStringSaysHowTheBackoffWasMadeWithDurationsForPeople() {
        assertThat(Backoff.none()).hasToString("Backoff.none()");
        assertThat(Backoff.fixed(Duration.ofMillis(2500))).hasToString("Backoff.fixed(2.5 s)");
        assertThat(Backoff.exponential(Duration.ofMillis(100), Duration.ofMinutes(5)))
                .hasToString("Backoff.exponential(100 ms, 5 min)");
        assertThat(Backoff.exponentialWithJitter(Duration.ofSeconds(1), Duration.ofHours(1)))
                .hasToString("Backoff.exponentialWithJitter(1 s, 1 h)");
        Backoff.Function function = new Backoff.Function() {
            @Override
            public Duration delay(int failedAttempt, Throwable error) {
                return Duration.ZERO;
            }

            @Override
            public String toString() {
                return "per-error";
            }
        };
        assertThat(Backoff.custom(function)).hasToString("Backoff.custom(per-error)");
    }
}
