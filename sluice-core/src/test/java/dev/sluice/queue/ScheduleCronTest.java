package dev.sluice.queue;

import static dev.sluice.queue.ScheduleFixtures.KYIV;
import static dev.sluice.queue.ScheduleFixtures.NEW_YORK;
import static dev.sluice.queue.ScheduleFixtures.OLD_ANCHOR;
import static dev.sluice.queue.ScheduleFixtures.at;
import static dev.sluice.queue.ScheduleFixtures.local;
import static dev.sluice.queue.ScheduleFixtures.runs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Schedule#cron}: expressions, zones and daylight-saving changes. */
class ScheduleCronTest {
    // ---- properties ----

    @Property(tries = 200)
    void sixFieldExpressionWithZeroSecondsRunsWhenTheFiveFieldOneDoes(
            @ForAll("fiveFields") String fiveFields,
            @ForAll @LongRange(min = 0, max = 4_000_000_000L) long secondsAfter2000) {
        Instant after = OLD_ANCHOR.plusSeconds(secondsAfter2000);

        assertThat(Schedule.cron("0 " + fiveFields).nextAfter(after, OLD_ANCHOR))
                .isEqualTo(Schedule.cron(fiveFields).nextAfter(after, OLD_ANCHOR));
    }

    @Provide
    Arbitrary<String> fiveFields() {
        Arbitrary<String> minute = Arbitraries.of("*", "0", "5", "59", "*/15", "10-20", "1,31");
        Arbitrary<String> hour = Arbitraries.of("*", "0", "2", "23", "*/6", "9-17");
        Arbitrary<String> dayOfMonth = Arbitraries.of("*", "1", "13", "29", "31", "1-7", "*/10");
        Arbitrary<String> month = Arbitraries.of("*", "1", "2", "12", "JAN,JUL", "3-5");
        Arbitrary<String> dayOfWeek = Arbitraries.of("*", "0", "1", "5", "7", "MON-FRI", "SAT,SUN");
        return Combinators.combine(minute, hour, dayOfMonth, month, dayOfWeek)
                .as((m, h, dom, mon, dow) -> String.join(" ", m, h, dom, mon, dow));
    }

    @Property(tries = 300)
    void cronNextRunIsStrictlyLaterAndOnAWholeMinute(
            @ForAll("fiveFields") String expression,
            @ForAll @LongRange(min = 0, max = 4_000_000_000_000_000_000L) long nanosAfter2000) {
        Instant after = OLD_ANCHOR.plusNanos(nanosAfter2000);

        Optional<Instant> next = Schedule.cron(expression).nextAfter(after, OLD_ANCHOR);

        if (next.isEmpty()) {
            // the 31st of February, with any day of the week allowed, never comes
            assertThat(expression).matches("\\S+ \\S+ 31 2 \\*");
            return;
        }
        assertThat(next.get()).isAfter(after);
        assertThat(next.get().getEpochSecond() % 60).isZero();
        assertThat(next.get().getNano()).isZero();
    }

    // ---- examples ----

    @Test
    void fiveFieldExpressionRunsAtItsMinuteAndHourInUtcByDefault() {
        Schedule daily = Schedule.cron("30 2 * * *");

        assertThat(daily.kind()).isEqualTo(Schedule.Kind.CRON);
        assertThat(daily.zone()).isEqualTo(ZoneOffset.UTC);
        assertThat(runs(daily, at("2024-01-01T12:00:00Z"), 3))
                .containsExactly(at("2024-01-02T02:30:00Z"), at("2024-01-03T02:30:00Z"), at("2024-01-04T02:30:00Z"));
    }

    @Test
    void sixFieldExpressionHasSecondsFirst() {
        Schedule schedule = Schedule.cron("15 30 2 * * *");

        assertThat(schedule.nextAfter(at("2024-01-01T00:00:00Z"), OLD_ANCHOR)).contains(at("2024-01-01T02:30:15Z"));
    }

    @Test
    void sixFieldExpressionCanRunSeveralTimesAMinute() {
        Schedule everyTenSeconds = Schedule.cron("*/10 * * * * *");

        assertThat(runs(everyTenSeconds, at("2024-01-01T00:00:55Z"), 3))
                .containsExactly(at("2024-01-01T00:01:00Z"), at("2024-01-01T00:01:10Z"), at("2024-01-01T00:01:20Z"));
    }

    @Test
    void dayOfWeekSevenAndZeroAreBothSundayInBothForms() {
        // 2024-01-01 is a Monday; the next Sunday is 2024-01-07
        Instant monday = at("2024-01-01T00:00:00Z");
        Instant sunday = at("2024-01-07T00:00:00Z");

        assertThat(Schedule.cron("0 0 * * 0").nextAfter(monday, OLD_ANCHOR)).contains(sunday);
        assertThat(Schedule.cron("0 0 * * 7").nextAfter(monday, OLD_ANCHOR)).contains(sunday);
        assertThat(Schedule.cron("0 0 * * SUN").nextAfter(monday, OLD_ANCHOR)).contains(sunday);
        assertThat(Schedule.cron("0 0 0 * * 0").nextAfter(monday, OLD_ANCHOR)).contains(sunday);
        assertThat(Schedule.cron("0 0 0 * * 7").nextAfter(monday, OLD_ANCHOR)).contains(sunday);
    }

    @Test
    void restrictedDayOfMonthAndDayOfWeekMatchEitherAsInUnixCron() {
        // "the 13th, or any Friday": 2024-01-05 is the first Friday after 2024-01-01
        Instant from = at("2024-01-01T00:00:00Z");

        assertThat(Schedule.cron("0 0 13 * 5").nextAfter(from, OLD_ANCHOR)).contains(at("2024-01-05T00:00:00Z"));
    }

    @Test
    void sixFieldFormIsTheFiveFieldFormWithSecondsSoDayFieldsAlsoMatchEither() {
        // with cron-utils' Spring definition this was "Friday the 13th" (2024-09-13): a different schedule
        Instant from = at("2024-01-01T00:00:00Z");

        assertThat(Schedule.cron("0 0 0 13 * 5").nextAfter(from, OLD_ANCHOR)).contains(at("2024-01-05T00:00:00Z"));
    }

    @Test
    void runsAtTheWallClockTimeOfItsZoneInWinterAndSummer() {
        Schedule nineInKyiv = Schedule.cron("0 9 * * *", KYIV);

        // EET (+02:00) in January, EEST (+03:00) in July
        assertThat(nineInKyiv.nextAfter(at("2024-01-15T00:00:00Z"), OLD_ANCHOR)).contains(at("2024-01-15T07:00:00Z"));
        assertThat(nineInKyiv.nextAfter(at("2024-07-15T00:00:00Z"), OLD_ANCHOR)).contains(at("2024-07-15T06:00:00Z"));
    }

    @Test
    void dailyJobInTheSpringForwardGapIsSkippedThatDay() {
        // New York jumps from 02:00 EST to 03:00 EDT on 2024-03-10: 02:30 does not exist that day.
        // cron-utils 9.2.1 does not shift the run to 03:30; it skips 2024-03-10 altogether.
        Schedule daily = Schedule.cron("30 2 * * *", NEW_YORK);

        assertThat(runs(daily, local(NEW_YORK, "2024-03-09T12:00"), 2))
                .as("02:30 EDT on 2024-03-11 and 2024-03-12")
                .containsExactly(at("2024-03-11T06:30:00Z"), at("2024-03-12T06:30:00Z"));
    }

    @Test
    void dailyJobInKyivsSpringForwardGapIsSkippedButAnEarlierHourIsNot() {
        // Kyiv jumps from 03:00 EET to 04:00 EEST on 2024-03-31: 03:30 is in the gap, 02:30 is not
        assertThat(Schedule.cron("30 3 * * *", KYIV).nextAfter(local(KYIV, "2024-03-30T12:00"), OLD_ANCHOR))
                .contains(at("2024-04-01T00:30:00Z"));
        assertThat(Schedule.cron("30 2 * * *", KYIV).nextAfter(local(KYIV, "2024-03-30T12:00"), OLD_ANCHOR))
                .contains(at("2024-03-31T00:30:00Z"));
    }

    @Test
    void hourlyJobHasNoRunInTheSpringForwardGap() {
        Schedule hourly = Schedule.cron("0 * * * *", NEW_YORK);

        // 01:00 EST, then 03:00 EDT: one real hour later
        assertThat(runs(hourly, at("2024-03-10T05:30:00Z"), 3))
                .containsExactly(at("2024-03-10T06:00:00Z"), at("2024-03-10T07:00:00Z"), at("2024-03-10T08:00:00Z"));
    }

    @Test
    void dailyJobInTheRepeatedFallBackHourRunsOnceAtTheFirstOccurrence() {
        // New York goes from 02:00 EDT back to 01:00 EST on 2024-11-03: 01:30 happens twice.
        // cron-utils 9.2.1 runs a fixed-hour job once, at the first (EDT, -04:00) 01:30.
        Schedule daily = Schedule.cron("30 1 * * *", NEW_YORK);

        assertThat(runs(daily, local(NEW_YORK, "2024-11-02T12:00"), 2))
                .containsExactly(at("2024-11-03T05:30:00Z"), at("2024-11-04T06:30:00Z"));
        assertThat(daily.nextAfter(at("2024-11-03T05:30:00Z"), OLD_ANCHOR))
                .as("no second run at 01:30 EST (06:30Z)")
                .contains(at("2024-11-04T06:30:00Z"));
    }

    @Test
    void dailyJobInKyivsRepeatedFallBackHourRunsOnceAtTheFirstOccurrence() {
        // Kyiv goes from 04:00 EEST back to 03:00 EET on 2024-10-27: 03:30 happens at 00:30Z and 01:30Z
        Schedule daily = Schedule.cron("30 3 * * *", KYIV);

        assertThat(runs(daily, local(KYIV, "2024-10-26T12:00"), 2))
                .containsExactly(at("2024-10-27T00:30:00Z"), at("2024-10-28T01:30:00Z"));
    }

    @Test
    void wildcardHourJobRunsInBothPassesOfTheFallBackHour() {
        // unlike a fixed hour, "every hour" and "every 15 minutes" run in both the EDT and the EST 01:xx
        assertThat(runs(Schedule.cron("0 * * * *", NEW_YORK), at("2024-11-03T04:30:00Z"), 3))
                .containsExactly(at("2024-11-03T05:00:00Z"), at("2024-11-03T06:00:00Z"), at("2024-11-03T07:00:00Z"));
        assertThat(runs(Schedule.cron("*/15 * * * *", NEW_YORK), at("2024-11-03T05:40:00Z"), 3))
                .containsExactly(at("2024-11-03T05:45:00Z"), at("2024-11-03T06:00:00Z"), at("2024-11-03T06:15:00Z"));
    }

    @Test
    void nextAfterIsStrictlyAfterARunTime() {
        Schedule everyMinute = Schedule.cron("* * * * *");

        assertThat(everyMinute.nextAfter(at("2024-01-01T00:00:00Z"), OLD_ANCHOR))
                .contains(at("2024-01-01T00:01:00Z"));
        assertThat(everyMinute.nextAfter(at("2024-01-01T00:00:00.000000001Z"), OLD_ANCHOR))
                .contains(at("2024-01-01T00:01:00Z"));
        assertThat(everyMinute.nextAfter(at("2024-01-01T00:00:59.999999999Z"), OLD_ANCHOR))
                .contains(at("2024-01-01T00:01:00Z"));
    }

    @Test
    void nextAfterIsStrictlyAfterARunTimeWithSeconds() {
        Schedule everyTenSeconds = Schedule.cron("*/10 * * * * *");

        assertThat(everyTenSeconds.nextAfter(at("2024-01-01T00:00:10Z"), OLD_ANCHOR))
                .contains(at("2024-01-01T00:00:20Z"));
        assertThat(everyTenSeconds.nextAfter(at("2024-01-01T00:00:09.999999999Z"), OLD_ANCHOR))
                .contains(at("2024-01-01T00:00:10Z"));
        assertThat(everyTenSeconds.nextAfter(at("2024-01-01T00:00:10.5Z"), OLD_ANCHOR))
                .contains(at("2024-01-01T00:00:20Z"));
    }

    @Test
    void startIsInclusiveWhenItIsARunTime() {
        Schedule schedule = Schedule.cron("* * * * *").startingAt(at("2024-01-01T00:05:00Z"));

        assertThat(schedule.nextAfter(at("2024-01-01T00:00:00Z"), OLD_ANCHOR)).contains(at("2024-01-01T00:05:00Z"));
    }

    @Test
    void startOneNanosecondPastARunTimeSkipsThatRun() {
        Schedule schedule = Schedule.cron("* * * * *").startingAt(at("2024-01-01T00:05:00.000000001Z"));

        assertThat(schedule.nextAfter(at("2024-01-01T00:00:00Z"), OLD_ANCHOR)).contains(at("2024-01-01T00:06:00Z"));
    }

    @Test
    void startDoesNotMatterOnceAfterIsPastIt() {
        Schedule schedule = Schedule.cron("0 * * * *").startingAt(at("2024-01-01T00:00:00Z"));

        assertThat(schedule.nextAfter(at("2024-06-01T10:20:00Z"), OLD_ANCHOR)).contains(at("2024-06-01T11:00:00Z"));
    }

    @Test
    void anchorActsAsTheStartWhenTheScheduleHasNone() {
        Schedule hourly = Schedule.cron("0 * * * *");
        Instant anchor = at("2024-01-01T05:00:00Z");

        assertThat(hourly.nextAfter(at("2024-01-01T00:00:00Z"), anchor)).contains(anchor);
        assertThat(hourly.nextAfter(at("2024-01-01T00:00:00Z"), anchor.plusSeconds(1)))
                .contains(at("2024-01-01T06:00:00Z"));
    }

    @Test
    void endIsExclusive() {
        Schedule schedule = Schedule.cron("0 * * * *").endingAt(at("2024-01-01T02:00:00Z"));

        assertThat(schedule.nextAfter(at("2024-01-01T00:30:00Z"), OLD_ANCHOR)).contains(at("2024-01-01T01:00:00Z"));
        assertThat(schedule.nextAfter(at("2024-01-01T01:00:00Z"), OLD_ANCHOR)).isEmpty();
        assertThat(schedule.nextAfter(at("2024-03-01T00:00:00Z"), OLD_ANCHOR)).isEmpty();
    }

    @Test
    void endOneNanosecondAfterARunKeepsThatRun() {
        Schedule schedule = Schedule.cron("0 * * * *").endingAt(at("2024-01-01T01:00:00.000000001Z"));

        assertThat(schedule.nextAfter(at("2024-01-01T00:30:00Z"), OLD_ANCHOR)).contains(at("2024-01-01T01:00:00Z"));
    }

    @Test
    void expressionThatNeverMatchesADateHasNoNextRun() {
        // 30 February parses field by field, but no date has it: no run, and no hang
        assertThat(Schedule.cron("0 0 30 2 *").nextAfter(at("2024-01-01T00:00:00Z"), OLD_ANCHOR))
                .isEmpty();
    }

    @Test
    void surroundingWhitespaceIsTrimmedFromTheExpression() {
        Schedule padded = Schedule.cron("  0 12 * * *  ");

        assertThat(padded.expression()).isEqualTo("0 12 * * *");
        assertThat(padded).isEqualTo(Schedule.cron("0 12 * * *"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "60 * * * *",
                "* 24 * * *",
                "* * 32 * *",
                "* * * 13 *",
                "* * * * 8",
                "60 * * * * *",
                "5-2 * * * *",
                "*/0 * * * *",
                "0 0 L * *",
                "0 0 ? * MON",
                "0 0 0 ? * MON",
                "x y z * *"
            })
    void unparseableExpressionIsRejectedWithAMessageNamingIt(String expression) {
        assertThatThrownBy(() -> Schedule.cron(expression))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cron expression '" + expression + "' is invalid")
                .cause()
                .isNotNull();
    }

    @Test
    void outOfRangeValueMessageSaysWhy() {
        assertThatThrownBy(() -> Schedule.cron("61 * * * *"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'61 * * * *'")
                .hasMessageContaining("61");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "@daily", "* * * *", "0 0 0 * * * *", "0 0 0 1 1 ? 2030"})
    void wrongNumberOfFieldsIsRejectedWithAMessageNamingTheExpressionAndCount(String expression) {
        int fields = expression.isBlank() ? 0 : expression.trim().split("\\s+").length;

        assertThatThrownBy(() -> Schedule.cron(expression))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must have 5 fields")
                .hasMessageContaining("or 6 with seconds first")
                .hasMessageContaining("was '" + expression + "' (" + fields + " fields)");
    }

    @Test
    void nullExpressionIsRejected() {
        assertThatThrownBy(() -> Schedule.cron(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cron expression must not be null");
    }

    @Test
    void nullZoneIsRejectedWithAHint() {
        assertThatThrownBy(() -> Schedule.cron("0 0 * * *", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("time zone must not be null")
                .hasMessageContaining("ZoneOffset.UTC");
    }

    @Test
    void accessorsOfACronSchedule() {
        Schedule schedule = Schedule.cron("0 9 * * MON-FRI", KYIV);

        assertThat(schedule.expression()).isEqualTo("0 9 * * MON-FRI");
        assertThat(schedule.zone()).isEqualTo(KYIV);
        assertThat(schedule.interval()).isNull();
        assertThat(schedule.start()).isNull();
        assertThat(schedule.end()).isNull();
        assertThat(schedule.maxRuns()).isEqualTo(Integer.MAX_VALUE);
    }
}
