package dev.sluice.queue;

import static dev.sluice.queue.ScheduleFixtures.KYIV;
import static dev.sluice.queue.ScheduleFixtures.NEW_YORK;
import static dev.sluice.queue.ScheduleFixtures.at;
import static dev.sluice.queue.ScheduleFixtures.runs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Schedule}: fixed rates and delays, intervals, bounds, equality and arguments; cron is {@link ScheduleCronTest}. */
class ScheduleTest {
    // ---- properties (jqwik does not run inside JUnit @Nested classes) ----

    @Property(tries = 500)
    void fixedRateNextRunIsTheFirstWholePeriodFromTheAnchorStrictlyAfter(
            @ForAll @LongRange(min = 1_000_000, max = 86_400_000_000_000L) long periodNanos,
            @ForAll @LongRange(min = -1_000_000_000_000_000L, max = 4_000_000_000_000_000_000L) long afterNanos) {
        Duration period = Duration.ofNanos(periodNanos);
        Instant start = at("2010-06-15T08:00:00.000000007Z");
        Instant after = start.plusNanos(afterNanos);

        Instant next = Schedule.fixedRate(period).nextAfter(after, start).orElseThrow();

        if (after.isBefore(start)) {
            assertThat(next).isEqualTo(start);
        } else {
            assertThat(next).isAfter(after);
            assertThat(next.minus(period)).isBeforeOrEqualTo(after);
            assertThat(Duration.between(start, next).toNanos() % period.toNanos())
                    .isZero();
        }
    }

    @Nested
    class FixedRate {
        private final Instant anchor = at("2024-01-01T00:00:00.123Z");
        private final Schedule everyMinute = Schedule.fixedRate(Duration.ofMinutes(1));

        @Test
        void firstRunIsTheAnchorWhenAfterIsBeforeIt() {
            assertThat(everyMinute.nextAfter(anchor.minusNanos(1), anchor)).contains(anchor);
            assertThat(everyMinute.nextAfter(anchor.minus(Duration.ofDays(3)), anchor))
                    .contains(anchor);
        }

        @Test
        void runsAreCountedFromTheAnchorNotAlignedToTheClock() {
            assertThat(everyMinute.nextAfter(anchor, anchor)).contains(at("2024-01-01T00:01:00.123Z"));
            assertThat(everyMinute.nextAfter(at("2024-01-01T00:01:00Z"), anchor))
                    .contains(at("2024-01-01T00:01:00.123Z"));
            assertThat(everyMinute.nextAfter(at("2024-01-01T00:01:00.123Z"), anchor))
                    .as("strictly after a run time")
                    .contains(at("2024-01-01T00:02:00.123Z"));
            assertThat(everyMinute.nextAfter(at("2024-01-01T00:01:00.123000001Z"), anchor))
                    .contains(at("2024-01-01T00:02:00.123Z"));
        }

        @Test
        void aLateCallerSkipsMissedRunsRatherThanCatchingUp() {
            // after is ten and a half periods past the anchor: the next run is the 11th, not the 1st
            assertThat(everyMinute.nextAfter(anchor.plusSeconds(630), anchor)).contains(anchor.plusSeconds(660));
        }

        @Test
        void startReplacesTheAnchor() {
            Instant start = at("2024-02-01T10:00:00Z");
            Schedule schedule = everyMinute.startingAt(start);

            assertThat(schedule.nextAfter(anchor, anchor)).contains(start);
            assertThat(schedule.nextAfter(start.plusSeconds(90), anchor)).contains(start.plusSeconds(120));
        }

        @Test
        void endIsExclusive() {
            Schedule schedule = everyMinute.startingAt(anchor).endingAt(anchor.plusSeconds(180));

            assertThat(schedule.nextAfter(anchor.plusSeconds(60), anchor)).contains(anchor.plusSeconds(120));
            assertThat(schedule.nextAfter(anchor.plusSeconds(120), anchor)).isEmpty();
        }

        @Test
        void startCenturiesBeforeAfterDoesNotOverflow() {
            // more than 292 years apart: the span no longer fits in a long of nanoseconds
            Schedule daily = Schedule.fixedRate(Duration.ofDays(1)).startingAt(Instant.EPOCH);

            assertThat(daily.nextAfter(at("2300-01-01T12:00:00Z"), Instant.EPOCH))
                    .contains(at("2300-01-02T00:00:00Z"));
        }

        @Test
        void millisecondPeriodYearsAfterTheAnchorIsExact() {
            Schedule everyMilli = Schedule.fixedRate(Duration.ofMillis(1));

            assertThat(everyMilli.nextAfter(at("2200-01-01T12:00:00.0005Z"), anchor))
                    .contains(at("2200-01-01T12:00:00.001Z"));
        }

        @Test
        void accessorsOfAFixedRate() {
            assertThat(everyMinute.kind()).isEqualTo(Schedule.Kind.FIXED_RATE);
            assertThat(everyMinute.interval()).isEqualTo(Duration.ofMinutes(1));
            assertThat(everyMinute.expression()).isNull();
            assertThat(everyMinute.zone()).isNull();
        }
    }

    @Nested
    class FixedDelay {
        private final Instant anchor = at("2024-01-01T00:00:00Z");
        private final Schedule fiveMinutes = Schedule.fixedDelay(Duration.ofMinutes(5));

        @Test
        void runsTheDelayAfterThePreviousFinish() {
            Instant finished = at("2024-01-01T03:17:42.5Z");

            assertThat(fiveMinutes.nextAfter(finished, anchor)).contains(at("2024-01-01T03:22:42.5Z"));
        }

        @Test
        void firstRunIsAtTheAnchorWhenAfterIsBeforeIt() {
            assertThat(fiveMinutes.nextAfter(anchor.minusNanos(1), anchor)).contains(anchor);
        }

        @Test
        void nextAfterTheAnchorItselfIsOneDelayLater() {
            assertThat(fiveMinutes.nextAfter(anchor, anchor)).contains(anchor.plusSeconds(300));
        }

        @Test
        void firstRunIsAtTheStartWhenOneIsSet() {
            Instant start = at("2024-05-01T00:00:00Z");

            assertThat(fiveMinutes.startingAt(start).nextAfter(anchor, anchor)).contains(start);
        }

        @Test
        void noRunAtOrAfterTheEnd() {
            Schedule schedule = fiveMinutes.endingAt(anchor.plusSeconds(600));

            assertThat(schedule.nextAfter(anchor.plusSeconds(299), anchor)).contains(anchor.plusSeconds(599));
            assertThat(schedule.nextAfter(anchor.plusSeconds(300), anchor)).isEmpty();
        }

        @Test
        void accessorsOfAFixedDelay() {
            assertThat(fiveMinutes.kind()).isEqualTo(Schedule.Kind.FIXED_DELAY);
            assertThat(fiveMinutes.interval()).isEqualTo(Duration.ofMinutes(5));
            assertThat(fiveMinutes.expression()).isNull();
            assertThat(fiveMinutes.zone()).isNull();
        }
    }

    @Nested
    class Intervals {
        @Test
        void oneMillisecondIsTheShortestInterval() {
            assertThat(Schedule.fixedRate(Duration.ofMillis(1)).interval()).isEqualTo(Duration.ofMillis(1));
            assertThat(Schedule.fixedDelay(Duration.ofMillis(1)).interval()).isEqualTo(Duration.ofMillis(1));
        }

        @Test
        void subMillisecondIntervalIsRejectedNamingTheValue() {
            assertThatThrownBy(() -> Schedule.fixedRate(Duration.ofNanos(999_999)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("fixed rate period must be at least 1 ms, was 999.999 µs");
            assertThatThrownBy(() -> Schedule.fixedDelay(Duration.ofNanos(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("fixed delay must be at least 1 ms, was 1 ns");
        }

        @Test
        void zeroNegativeOrNullIntervalIsRejectedNamingTheValueAndRange() {
            assertThatThrownBy(() -> Schedule.fixedRate(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("fixed rate period must be positive and at most about 73 years, was 0 ns");
            assertThatThrownBy(() -> Schedule.fixedDelay(Duration.ofSeconds(-5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("fixed delay must be positive and at most about 73 years, was -5 s");
            assertThatThrownBy(() -> Schedule.fixedRate(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageEndingWith("was null");
        }

        @Test
        void intervalLongerThanTheMaximumIsRejected() {
            assertThat(Schedule.fixedRate(Durations.MAX).interval()).isEqualTo(Durations.MAX);
            assertThatThrownBy(() -> Schedule.fixedRate(Durations.MAX.plusNanos(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at most about 73 years");
        }
    }

    @Nested
    class Bounds {
        private final Instant monday = at("2024-01-01T00:00:00Z");
        private final Instant tuesday = at("2024-01-02T00:00:00Z");

        @Test
        void startAndEndAndLimitAreKeptThroughChaining() {
            Schedule schedule = Schedule.cron("0 * * * *")
                    .startingAt(monday)
                    .endingAt(tuesday)
                    .maxRuns(5);

            assertThat(schedule.start()).isEqualTo(monday);
            assertThat(schedule.end()).isEqualTo(tuesday);
            assertThat(schedule.maxRuns()).isEqualTo(5);
            assertThat(schedule.expression()).isEqualTo("0 * * * *");
            assertThat(schedule.maxRuns(7).startingAt(monday.minusSeconds(1)))
                    .extracting(Schedule::start, Schedule::end, Schedule::maxRuns)
                    .containsExactly(monday.minusSeconds(1), tuesday, 7);
        }

        @Test
        void boundingReturnsANewScheduleAndLeavesTheOriginalUnchanged() {
            Schedule original = Schedule.fixedRate(Duration.ofSeconds(1));

            Schedule bounded = original.startingAt(monday).endingAt(tuesday).maxRuns(3);

            assertThat(bounded).isNotSameAs(original);
            assertThat(original.start()).isNull();
            assertThat(original.end()).isNull();
            assertThat(original.maxRuns()).isEqualTo(Integer.MAX_VALUE);
        }

        @Test
        void startAtOrAfterTheEndIsRejectedNamingBoth() {
            Schedule ending = Schedule.fixedRate(Duration.ofSeconds(1)).endingAt(monday);

            assertThatThrownBy(() -> ending.startingAt(monday))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("schedule start " + monday + " must be before its end " + monday);
            assertThatThrownBy(() -> ending.startingAt(tuesday))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("schedule start " + tuesday + " must be before its end " + monday);
        }

        @Test
        void endAtOrBeforeTheStartIsRejectedNamingBoth() {
            Schedule starting = Schedule.fixedRate(Duration.ofSeconds(1)).startingAt(tuesday);

            assertThatThrownBy(() -> starting.endingAt(tuesday))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("schedule end " + tuesday + " must be after its start " + tuesday);
            assertThatThrownBy(() -> starting.endingAt(monday))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("schedule end " + monday + " must be after its start " + tuesday);
        }

        @Test
        void startOneNanosecondBeforeTheEndIsAccepted() {
            Schedule schedule =
                    Schedule.fixedRate(Duration.ofSeconds(1)).endingAt(tuesday).startingAt(tuesday.minusNanos(1));

            assertThat(schedule.start()).isEqualTo(tuesday.minusNanos(1));
        }

        @Test
        void nullStartOrEndIsRejected() {
            Schedule schedule = Schedule.fixedRate(Duration.ofSeconds(1));

            assertThatThrownBy(() -> schedule.startingAt(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("schedule start must not be null");
            assertThatThrownBy(() -> schedule.endingAt(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("schedule end must not be null");
        }

        @ParameterizedTest
        @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
        void limitBelowOneIsRejectedNamingTheValueAndRange(int runs) {
            assertThatThrownBy(() -> Schedule.cron("0 * * * *").maxRuns(runs))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("schedule maxRuns must be between 1 and 2147483647, was " + runs);
        }

        @Test
        void limitOfOneAndOfIntMaxAreAccepted() {
            assertThat(Schedule.cron("0 * * * *").maxRuns(1).maxRuns()).isEqualTo(1);
            assertThat(Schedule.cron("0 * * * *").maxRuns(Integer.MAX_VALUE).maxRuns())
                    .isEqualTo(Integer.MAX_VALUE);
        }

        @Test
        void limitIsNotAppliedByNextAfter() {
            Schedule once =
                    Schedule.fixedRate(Duration.ofSeconds(1)).startingAt(monday).maxRuns(1);

            assertThat(once.nextAfter(monday.plusSeconds(10), monday)).contains(monday.plusSeconds(11));
        }
    }

    @Nested
    class Equality {
        @Test
        void sameDefinitionIsEqualWithEqualHashCode() {
            Instant start = at("2024-01-01T00:00:00Z");
            Schedule a = Schedule.cron("0 9 * * *", KYIV)
                    .startingAt(start)
                    .endingAt(start.plusSeconds(86_400))
                    .maxRuns(3);
            Schedule b = Schedule.cron("0 9 * * *", ZoneId.of("Europe/Kyiv"))
                    .startingAt(start)
                    .endingAt(start.plusSeconds(86_400))
                    .maxRuns(3);

            assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
            assertThat(Schedule.fixedRate(Duration.ofSeconds(60)))
                    .isEqualTo(Schedule.fixedRate(Duration.ofMinutes(1)))
                    .hasSameHashCodeAs(Schedule.fixedRate(Duration.ofMinutes(1)));
        }

        @Test
        void anyDifferingPartMakesSchedulesUnequal() {
            Instant start = at("2024-01-01T00:00:00Z");
            Schedule base = Schedule.cron("0 9 * * *", KYIV);

            assertThat(base)
                    .isNotEqualTo(Schedule.cron("0 10 * * *", KYIV))
                    .isNotEqualTo(Schedule.cron("0 9 * * *", NEW_YORK))
                    .isNotEqualTo(base.startingAt(start))
                    .isNotEqualTo(base.endingAt(start))
                    .isNotEqualTo(base.maxRuns(1))
                    .isNotEqualTo(null)
                    .isNotEqualTo("0 9 * * *");
            assertThat(Schedule.fixedRate(Duration.ofSeconds(1)))
                    .isNotEqualTo(Schedule.fixedDelay(Duration.ofSeconds(1)))
                    .isNotEqualTo(Schedule.fixedRate(Duration.ofSeconds(2)));
        }

        @Test
        void toStringDescribesTheSchedule() {
            Schedule schedule = Schedule.cron("0 9 * * *", KYIV)
                    .startingAt(at("2024-01-01T00:00:00Z"))
                    .endingAt(at("2024-02-01T00:00:00Z"))
                    .maxRuns(3);

            assertThat(schedule)
                    .hasToString("Schedule.cron(\"0 9 * * *\", Europe/Kyiv).startingAt(2024-01-01T00:00:00Z)"
                            + ".endingAt(2024-02-01T00:00:00Z).maxRuns(3)");
            assertThat(Schedule.fixedDelay(Duration.ofSeconds(5))).hasToString("Schedule.fixedDelay(5 s)");
            assertThat(Schedule.fixedRate(Duration.ofMillis(90_500))).hasToString("Schedule.fixedRate(1 min 30.5 s)");
        }
    }

    @Nested
    class NextAfterArguments {
        @Test
        void nullInstantsAreRejectedNamingTheArgument() {
            Schedule everyMinute = Schedule.fixedRate(Duration.ofMinutes(1));
            Instant now = at("2024-01-01T00:00:00Z");

            assertThatThrownBy(() -> everyMinute.nextAfter(null, now))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("nextAfter: after must be an instant, was null");
            assertThatThrownBy(() -> Schedule.cron("0 9 * * *").nextAfter(now, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("nextAfter: anchor must be an instant, was null");
        }
    }
}
