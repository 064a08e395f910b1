package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JobOptionsTest {
    /** Every getter, so a property can compare options value by value. */
    private static final List<Function<JobOptions, Object>> GETTERS = List.of(
            JobOptions::jobId,
            JobOptions::group,
            JobOptions::delay,
            JobOptions::attempts,
            JobOptions::backoff,
            JobOptions::priority,
            JobOptions::timeout,
            JobOptions::keepCompleted,
            JobOptions::keepFailed,
            JobOptions::deduplicateFor,
            JobOptions::maxRateLimits);

    private static JobOptions everythingSet() {
        return JobOptions.builder()
                .jobId("order-17")
                .group("tenant-a")
                .delay(Duration.ofSeconds(30))
                .attempts(5)
                .backoff(Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(5)))
                .priority(-3)
                .timeout(Duration.ofMinutes(2))
                .keepCompleted(Retention.keepLast(10))
                .keepFailed(Retention.keepFor(Duration.ofDays(7)))
                .deduplicateFor(Duration.ofHours(1))
                .maxRateLimits(0)
                .build();
    }

    @Test
    void emptyHasNothingSet() {
        JobOptions empty = JobOptions.empty();

        for (Function<JobOptions, Object> getter : GETTERS) {
            assertThat(getter.apply(empty)).isNull();
        }
        assertThat(JobOptions.builder().build()).isEqualTo(empty);
    }

    @Test
    void defaultsAreTheOnesTheJavadocLists() {
        JobOptions defaults = JobOptions.defaults();

        assertThat(defaults.jobId()).as("no id").isNull();
        assertThat(defaults.group()).as("no group").isNull();
        assertThat(defaults.delay()).as("no delay").isEqualTo(Duration.ZERO);
        assertThat(defaults.attempts()).as("1 attempt").isEqualTo(1);
        assertThat(defaults.backoff()).isEqualTo(Backoff.none());
        assertThat(defaults.priority()).isEqualTo(0);
        assertThat(defaults.timeout()).as("no timeout").isNull();
        assertThat(defaults.keepCompleted()).isEqualTo(new Retention(1_000, null));
        assertThat(defaults.keepFailed()).isEqualTo(new Retention(10_000, null));
        assertThat(defaults.deduplicateFor())
                .as("no de-duplication after removal")
                .isNull();
        assertThat(defaults.maxRateLimits()).isEqualTo(100);
    }

    @Test
    void builderKeepsEveryValue() {
        JobOptions options = everythingSet();

        assertThat(options.jobId()).isEqualTo("order-17");
        assertThat(options.group()).isEqualTo("tenant-a");
        assertThat(options.delay()).isEqualTo(Duration.ofSeconds(30));
        assertThat(options.attempts()).isEqualTo(5);
        assertThat(options.backoff()).isEqualTo(Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(5)));
        assertThat(options.priority()).isEqualTo(-3);
        assertThat(options.timeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(options.keepCompleted()).isEqualTo(Retention.keepLast(10));
        assertThat(options.keepFailed()).isEqualTo(Retention.keepFor(Duration.ofDays(7)));
        assertThat(options.deduplicateFor()).isEqualTo(Duration.ofHours(1));
        assertThat(options.maxRateLimits()).isEqualTo(0);
    }

    @Test
    void toBuilderRoundTripsAndLeavesTheOriginalUnchanged() {
        JobOptions original = everythingSet();

        JobOptions copy = original.toBuilder().build();
        JobOptions changed = original.toBuilder().attempts(9).build();

        assertThat(copy).isEqualTo(original).hasSameHashCodeAs(original);
        assertThat(changed.attempts()).isEqualTo(9);
        assertThat(original.attempts()).isEqualTo(5);
    }

    @Test
    void orElseFillsOnlyUnsetValues() {
        JobOptions partial = JobOptions.builder()
                .attempts(3)
                .priority(7)
                .keepFailed(Retention.keepNone())
                .build();

        JobOptions resolved = partial.orElse(JobOptions.defaults());

        assertThat(resolved.attempts()).isEqualTo(3);
        assertThat(resolved.priority()).isEqualTo(7);
        assertThat(resolved.keepFailed()).isEqualTo(Retention.keepNone());
        assertThat(resolved.delay()).isEqualTo(Duration.ZERO);
        assertThat(resolved.backoff()).isEqualTo(Backoff.none());
        assertThat(resolved.keepCompleted()).isEqualTo(Retention.keepLast(1_000));
        assertThat(resolved.maxRateLimits()).isEqualTo(100);
        assertThat(resolved.timeout()).isNull();
        assertThat(partial.delay()).as("the receiver is unchanged").isNull();
    }

    @Test
    void orElseKeepsEverySetValueEvenWhenTheDefaultDiffers() {
        JobOptions options = everythingSet();

        assertThat(options.orElse(JobOptions.defaults())).isEqualTo(options);
    }

    @Test
    void emptyOrElseIsTheDefaults() {
        assertThat(JobOptions.empty().orElse(everythingSet())).isEqualTo(everythingSet());
        assertThat(JobOptions.empty().orElse(JobOptions.defaults())).isEqualTo(JobOptions.defaults());
    }

    @Property(tries = 500)
    void orElseTakesEachValueFromTheOptionsIfSetElseFromTheDefaults(
            @ForAll("someOptions") JobOptions options, @ForAll("someOptions") JobOptions defaults) {
        JobOptions resolved = options.orElse(defaults);

        for (Function<JobOptions, Object> getter : GETTERS) {
            Object own = getter.apply(options);
            assertThat(getter.apply(resolved)).isEqualTo(own != null ? own : getter.apply(defaults));
        }
        assertThat(resolved.orElse(defaults)).as("idempotent").isEqualTo(resolved);
        assertThat(options.orElse(JobOptions.empty()))
                .as("empty defaults change nothing")
                .isEqualTo(options);
    }

    @Property(tries = 300)
    void equalOptionsHaveEqualHashCodesAndEqualityIsValueByValue(
            @ForAll("someOptions") JobOptions a, @ForAll("someOptions") JobOptions b) {
        boolean sameValues = GETTERS.stream().allMatch(g -> Objects.equals(g.apply(a), g.apply(b)));

        assertThat(a.equals(b)).isEqualTo(sameValues);
        assertThat(a.toBuilder().build()).isEqualTo(a).hasSameHashCodeAs(a);
    }

    /** Options with each value set or not, drawn from few values so that equal pairs come up too. */
    @Provide
    Arbitrary<JobOptions> someOptions() {
        Arbitrary<String> jobId = Arbitraries.of("a", "b").injectNull(0.5);
        Arbitrary<String> group = Arbitraries.of("g1", "g2").injectNull(0.5);
        Arbitrary<Duration> delay =
                Arbitraries.of(Duration.ZERO, Duration.ofSeconds(5)).injectNull(0.5);
        Arbitrary<Integer> attempts = Arbitraries.of(1, 4).injectNull(0.5);
        Arbitrary<Backoff> backoff = Arbitraries.of(Backoff.none(), Backoff.fixed(Duration.ofSeconds(2)))
                .injectNull(0.5);
        Arbitrary<Integer> priority = Arbitraries.of(-1, 0, 9).injectNull(0.5);
        Arbitrary<Duration> timeout =
                Arbitraries.of(Duration.ofSeconds(1), Duration.ofMinutes(1)).injectNull(0.5);
        Arbitrary<Retention> keepCompleted =
                Arbitraries.of(Retention.keepAll(), Retention.keepLast(3)).injectNull(0.5);
        Arbitrary<Retention> keepFailed =
                Arbitraries.of(Retention.keepNone(), Retention.keepLast(3)).injectNull(0.5);
        Arbitrary<Duration> deduplicateFor =
                Arbitraries.of(Duration.ofHours(1), Duration.ofDays(1)).injectNull(0.5);
        Arbitrary<Integer> maxRateLimits = Arbitraries.of(0, 100).injectNull(0.5);
        Arbitrary<JobOptions> first = Combinators.combine(jobId, group, delay, attempts, backoff, priority)
                .as((id, g, d, a, b, p) -> {
                    JobOptions.Builder builder = JobOptions.builder();
                    if (id != null) {
                        builder.jobId(id);
                    }
                    if (g != null) {
                        builder.group(g);
                    }
                    if (d != null) {
                        builder.delay(d);
                    }
                    if (a != null) {
                        builder.attempts(a);
                    }
                    if (b != null) {
                        builder.backoff(b);
                    }
                    if (p != null) {
                        builder.priority(p);
                    }
                    return builder.build();
                });
        return Combinators.combine(first, timeout, keepCompleted, keepFailed, deduplicateFor, maxRateLimits)
                .as((options, t, kc, kf, dd, m) -> {
                    JobOptions.Builder builder = options.toBuilder();
                    if (t != null) {
                        builder.timeout(t);
                    }
                    if (kc != null) {
                        builder.keepCompleted(kc);
                    }
                    if (kf != null) {
                        builder.keepFailed(kf);
                    }
                    if (dd != null) {
                        builder.deduplicateFor(dd);
                    }
                    if (m != null) {
                        builder.maxRateLimits(m);
                    }
                    return builder.build();
                });
    }

    @Test
    void everyValueTakesPartInEquality() {
        JobOptions base = everythingSet();

        assertThat(base)
                .isNotEqualTo(base.toBuilder().jobId("other").build())
                .isNotEqualTo(base.toBuilder().group("other").build())
                .isNotEqualTo(base.toBuilder().delay(Duration.ofSeconds(31)).build())
                .isNotEqualTo(base.toBuilder().attempts(6).build())
                .isNotEqualTo(base.toBuilder().backoff(Backoff.none()).build())
                .isNotEqualTo(base.toBuilder().priority(0).build())
                .isNotEqualTo(base.toBuilder().timeout(Duration.ofMinutes(3)).build())
                .isNotEqualTo(
                        base.toBuilder().keepCompleted(Retention.keepAll()).build())
                .isNotEqualTo(base.toBuilder().keepFailed(Retention.keepAll()).build())
                .isNotEqualTo(
                        base.toBuilder().deduplicateFor(Duration.ofHours(2)).build())
                .isNotEqualTo(base.toBuilder().maxRateLimits(1).build())
                .isNotEqualTo(null);
    }

    @Test
    void toStringNamesEveryValueWithDurationsForPeople() {
        assertThat(everythingSet())
                .hasToString("JobOptions{jobId=order-17, group=tenant-a, delay=30 s, attempts=5,"
                        + " backoff=Backoff.exponential(1 s, 5 min), priority=-3, timeout=2 min,"
                        + " keepCompleted=Retention.keepLast(10), keepFailed=Retention.keepFor(7 d),"
                        + " deduplicateFor=1 h, maxRateLimits=0}");
    }

    @Test
    void toStringLeavesOutWhatIsUnset() {
        assertThat(JobOptions.empty()).hasToString("JobOptions{}");
        assertThat(JobOptions.builder()
                        .attempts(3)
                        .delay(Duration.ofMillis(2500))
                        .build())
                .hasToString("JobOptions{delay=2.5 s, attempts=3}");
    }

    @Test
    void orElseRefusesNullDefaultsNamingTheFallback() {
        assertThatThrownBy(() -> everythingSet().orElse(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("defaults must not be null; use JobOptions.defaults()");
    }

    // ---- validation ----

    @Test
    void namesOfOneAndOfTheMaximumLengthAreAccepted() {
        String longest = "i".repeat(JobOptions.MAX_NAME_LENGTH);

        assertThat(JobOptions.builder().jobId(longest).group("g").build())
                .extracting(JobOptions::jobId, JobOptions::group)
                .containsExactly(longest, "g");
    }

    @Test
    void badJobIdIsRejectedSayingWhatWasWrongAndTheRange() {
        JobOptions.Builder builder = JobOptions.builder();

        assertThatThrownBy(() -> builder.jobId(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("job id must be 1 to 512 characters, was null");
        assertThatThrownBy(() -> builder.jobId(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("job id must be 1 to 512 characters, was empty");
        assertThatThrownBy(() -> builder.jobId("i".repeat(513)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("job id must be 1 to 512 characters, was 513 characters");
    }

    @Test
    void badGroupIsRejectedSayingWhatWasWrongAndTheRange() {
        assertThatThrownBy(() -> JobOptions.builder().group(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("group must be 1 to 512 characters, was empty");
        assertThatThrownBy(() -> JobOptions.builder().group("g".repeat(10_000)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("group must be 1 to 512 characters, was 10000 characters");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 1_000_001, Integer.MAX_VALUE})
    void attemptsOutsideOneToAMillionAreRejectedNamingTheValueAndRange(int attempts) {
        assertThatThrownBy(() -> JobOptions.builder().attempts(attempts))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("attempts must be between 1 and 1000000, was " + attempts);
    }

    @Test
    void attemptsAtTheBoundsAreAccepted() {
        assertThat(JobOptions.builder().attempts(1).build().attempts()).isEqualTo(1);
        assertThat(JobOptions.builder()
                        .attempts(JobOptions.MAX_ATTEMPTS)
                        .build()
                        .attempts())
                .isEqualTo(1_000_000);
    }

    @Test
    void negativeDelayIsRejectedNamingTheValueAndRange() {
        assertThatThrownBy(() -> JobOptions.builder().delay(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delay must be between 0 and about 73 years, was -1 s");
        assertThatThrownBy(() -> JobOptions.builder().delay(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delay must be between 0 and about 73 years, was null");
    }

    @Test
    void timeoutMustBePositive() {
        assertThatThrownBy(() -> JobOptions.builder().timeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeout must be positive and at most about 73 years, was 0 ns");
        assertThat(JobOptions.builder().timeout(Duration.ofNanos(1)).build().timeout())
                .isEqualTo(Duration.ofNanos(1));
    }

    @Test
    void deduplicateForMustBePositive() {
        assertThatThrownBy(() -> JobOptions.builder().deduplicateFor(Duration.ofMinutes(-5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("deduplicateFor must be positive and at most about 73 years, was -5 min");
        assertThatThrownBy(() -> JobOptions.builder().deduplicateFor(Durations.MAX.plusSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("deduplicateFor must be positive and at most about 73 years");
    }

    @Test
    void negativeMaxRateLimitsIsRejectedNamingTheValueAndRange() {
        assertThatThrownBy(() -> JobOptions.builder().maxRateLimits(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxRateLimits must be between 0 and 2147483647, was -1");
        assertThat(JobOptions.builder().maxRateLimits(Integer.MAX_VALUE).build().maxRateLimits())
                .isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void nullBackoffAndRetentionsAreRejectedWithAHint() {
        assertThatThrownBy(() -> JobOptions.builder().backoff(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("backoff must not be null; use Backoff.none()");
        assertThatThrownBy(() -> JobOptions.builder().keepCompleted(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keepCompleted must not be null; use Retention.keepAll()");
        assertThatThrownBy(() -> JobOptions.builder().keepFailed(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keepFailed must not be null; use Retention.keepAll()");
    }

    @Test
    void anyPriorityIsAccepted() {
        assertThat(JobOptions.builder().priority(Integer.MIN_VALUE).build().priority())
                .isEqualTo(Integer.MIN_VALUE);
        assertThat(JobOptions.builder().priority(Integer.MAX_VALUE).build().priority())
                .isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void aRejectedValueLeavesTheBuilderAsItWas() {
        JobOptions.Builder builder = JobOptions.builder().attempts(4);

        assertThatThrownBy(() -> builder.attempts(0)).isInstanceOf(IllegalArgumentException.class);

        assertThat(builder.build().attempts()).isEqualTo(4);
    }
}
