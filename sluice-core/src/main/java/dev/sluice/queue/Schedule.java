package dev.sluice.queue;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import dev.sluice.time.Arguments;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.Optional;

/**
 * When a repeatable job runs: on a cron expression in a time zone, at a fixed rate, or a fixed delay after
 * the previous run finished (so a slow run never overlaps the next). Optionally bounded by a start, an end
 * and a number of runs. Immutable.
 */
public final class Schedule {
    /** How the run times are found. */
    public enum Kind {
        /** A cron expression in a time zone. */
        CRON,
        /** Every {@link #interval()}, counted from the start, whether or not the previous run finished. */
        FIXED_RATE,
        /** {@link #interval()} after the previous run finished (completed, or failed for good). */
        FIXED_DELAY
    }

    private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    /** The five Unix fields with seconds first; Spring's definition would AND day-of-month and day-of-week. */
    private static final CronParser WITH_SECONDS = new CronParser(CronDefinitionBuilder.defineCron()
            .withSeconds()
            .withStrictRange()
            .and()
            .withMinutes()
            .withStrictRange()
            .and()
            .withHours()
            .withStrictRange()
            .and()
            .withDayOfMonth()
            .withStrictRange()
            .and()
            .withMonth()
            .withStrictRange()
            .and()
            .withDayOfWeek()
            .withValidRange(0, 7)
            .withMondayDoWValue(1)
            .withIntMapping(7, 0)
            .withStrictRange()
            .and()
            .instance());

    private final Kind kind;
    private final String expression;
    private final ZoneId zone;
    private final ExecutionTime cron;
    private final Duration interval;
    private final Instant start;
    private final Instant end;
    private final int maxRuns;

    private Schedule(
            Kind kind,
            String expression,
            ZoneId zone,
            ExecutionTime cron,
            Duration interval,
            Instant start,
            Instant end,
            int maxRuns) {
        this.kind = kind;
        this.expression = expression;
        this.zone = zone;
        this.cron = cron;
        this.interval = interval;
        this.start = start;
        this.end = end;
        this.maxRuns = maxRuns;
    }

    /**
     * Runs at the times a cron expression names, in {@code zone}'s local time. Across daylight-saving changes
     * a local time that does not exist that day (spring forward) is skipped, and one that occurs twice (fall
     * back) runs once, at its first occurrence; wildcard hours run in both passes of a repeated hour.
     *
     * @param expression five fields (minute hour day-of-month month day-of-week), or six with seconds first
     * @param zone the time zone the fields are read in, such as {@code ZoneId.of("Europe/Paris")}
     * @return the schedule, with no start, end or bound on its runs
     * @throws IllegalArgumentException if the expression or the zone is null, or the expression does not
     *     parse; the message says why
     */
    public static Schedule cron(String expression, ZoneId zone) {
        if (expression == null) {
            throw new IllegalArgumentException("cron expression must not be null");
        }
        if (zone == null) {
            throw new IllegalArgumentException("cron time zone must not be null; use ZoneOffset.UTC");
        }
        String trimmed = expression.trim();
        int fields = trimmed.isEmpty() ? 0 : trimmed.split("\\s+").length;
        if (fields != 5 && fields != 6) {
            throw new IllegalArgumentException("cron expression must have 5 fields (minute hour day-of-month month"
                    + " day-of-week) or 6 with seconds first, was '" + expression + "' (" + fields + " fields)");
        }
        ExecutionTime times;
        try {
            times = ExecutionTime.forCron((fields == 5 ? UNIX : WITH_SECONDS).parse(trimmed));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("cron expression '" + expression + "' is invalid: " + e.getMessage(), e);
        }
        return new Schedule(Kind.CRON, trimmed, zone, times, null, null, null, Integer.MAX_VALUE);
    }

    /**
     * A cron expression in UTC: {@link #cron(String, ZoneId) cron(expression, ZoneOffset.UTC)}.
     *
     * @param expression as {@link #cron(String, ZoneId)}
     * @return the schedule, with no start, end or bound on its runs
     * @throws IllegalArgumentException if the expression is null or does not parse
     */
    public static Schedule cron(String expression) {
        return cron(expression, ZoneOffset.UTC);
    }

    /**
     * Runs every {@code period}, counted from the start.
     *
     * @param period 1 ms to about 73 years
     * @return the schedule, with no start, end or bound on its runs
     * @throws IllegalArgumentException if {@code period} is null, shorter or longer
     */
    public static Schedule fixedRate(Duration period) {
        return new Schedule(
                Kind.FIXED_RATE,
                null,
                null,
                null,
                checkInterval("fixed rate period", period),
                null,
                null,
                Integer.MAX_VALUE);
    }

    /**
     * Runs {@code delay} after the previous run finished; the first run at the start.
     *
     * @param delay 1 ms to about 73 years
     * @return the schedule, with no start, end or bound on its runs
     * @throws IllegalArgumentException if {@code delay} is null, shorter or longer
     */
    public static Schedule fixedDelay(Duration delay) {
        return new Schedule(
                Kind.FIXED_DELAY, null, null, null, checkInterval("fixed delay", delay), null, null, Integer.MAX_VALUE);
    }

    private static Duration checkInterval(String what, Duration value) {
        Durations.positive(what, value);
        if (value.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException(what + " must be at least 1 ms, was " + Durations.text(value));
        }
        return value;
    }

    /**
     * This schedule, making no run before {@code start}.
     *
     * @param start the first instant a run may have; a fixed rate counts its periods from it
     * @return the new schedule
     * @throws IllegalArgumentException if {@code start} is null, or not before this schedule's end
     */
    public Schedule startingAt(Instant start) {
        if (start == null) {
            throw new IllegalArgumentException("schedule start must not be null");
        }
        if (end != null && !start.isBefore(end)) {
            throw new IllegalArgumentException("schedule start " + start + " must be before its end " + end);
        }
        return new Schedule(kind, expression, zone, cron, interval, start, end, maxRuns);
    }

    /**
     * This schedule, making no run at or after {@code end}.
     *
     * @param end the first instant no run may have
     * @return the new schedule
     * @throws IllegalArgumentException if {@code end} is null, or not after this schedule's start
     */
    public Schedule endingAt(Instant end) {
        if (end == null) {
            throw new IllegalArgumentException("schedule end must not be null");
        }
        if (start != null && !start.isBefore(end)) {
            throw new IllegalArgumentException("schedule end " + end + " must be after its start " + start);
        }
        return new Schedule(kind, expression, zone, cron, interval, start, end, maxRuns);
    }

    /**
     * This schedule, making at most {@code runs} runs in all.
     *
     * @param runs 1 to {@link Integer#MAX_VALUE} (no bound)
     * @return the new schedule
     * @throws IllegalArgumentException if {@code runs} is below 1
     */
    public Schedule maxRuns(int runs) {
        Arguments.inRange("schedule maxRuns", runs, 1, Integer.MAX_VALUE);
        return new Schedule(kind, expression, zone, cron, interval, start, end, runs);
    }

    /**
     * The first run time strictly after {@code after} that a cron or fixed-rate schedule names, with {@code
     * anchor} as the start of a fixed rate that has no start of its own; a fixed delay runs {@link
     * #interval()} after {@code after} (the previous run's finish). Empty once the schedule has ended; the run
     * the bound on runs is the caller's to count.
     *
     * @param after the instant to look after: now, the previous run's time, or (fixed delay) its finish
     * @param anchor when the schedule was registered
     * @return the next run time; empty once the schedule has ended
     * @throws IllegalArgumentException if {@code after} or {@code anchor} is null
     */
    public Optional<Instant> nextAfter(Instant after, Instant anchor) {
        if (after == null) {
            throw new IllegalArgumentException("nextAfter: after must be an instant, was null");
        }
        if (anchor == null) {
            throw new IllegalArgumentException("nextAfter: anchor must be an instant, was null");
        }
        Instant first = start != null ? start : anchor;
        Instant next;
        switch (kind) {
            case CRON -> {
                Instant from = after.isBefore(first) ? first.minusNanos(1) : after;
                Optional<ZonedDateTime> time = cron.nextExecution(from.atZone(zone));
                if (time.isEmpty()) {
                    return Optional.empty();
                }
                next = time.get().toInstant();
            }
            case FIXED_RATE -> {
                if (after.isBefore(first)) {
                    next = first;
                } else {
                    long periods = Duration.between(first, after).dividedBy(interval) + 1;
                    next = first.plus(interval.multipliedBy(periods));
                }
            }
            default -> next = after.isBefore(first) ? first : after.plus(interval);
        }
        return end != null && !next.isBefore(end) ? Optional.empty() : Optional.of(next);
    }

    /**
     * How the run times are found.
     *
     * @return the kind
     */
    public Kind kind() {
        return kind;
    }

    /**
     * The cron expression.
     *
     * @return the expression, trimmed; {@code null} for the other kinds
     */
    public String expression() {
        return expression;
    }

    /**
     * The cron time zone.
     *
     * @return the zone; {@code null} for the other kinds
     */
    public ZoneId zone() {
        return zone;
    }

    /**
     * The period or delay.
     *
     * @return the interval; {@code null} for cron
     */
    public Duration interval() {
        return interval;
    }

    /**
     * No run before this.
     *
     * @return the start; {@code null}: from when the schedule was registered
     */
    public Instant start() {
        return start;
    }

    /**
     * No run at or after this.
     *
     * @return the end; {@code null} for none
     */
    public Instant end() {
        return end;
    }

    /**
     * The most runs the schedule makes in all.
     *
     * @return the bound; {@link Integer#MAX_VALUE} for none
     */
    public int maxRuns() {
        return maxRuns;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Schedule s
                && kind == s.kind
                && Objects.equals(expression, s.expression)
                && Objects.equals(zone, s.zone)
                && Objects.equals(interval, s.interval)
                && Objects.equals(start, s.start)
                && Objects.equals(end, s.end)
                && maxRuns == s.maxRuns;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, expression, zone, interval, start, end, maxRuns);
    }

    /**
     * The schedule for people, as the factories would make it.
     *
     * @return for example {@code Schedule.cron("0 9 * * 1-5", Europe/Paris)} or {@code
     *     Schedule.fixedRate(15 min).startingAt(2026-01-01T00:00:00Z).maxRuns(10)}
     */
    @Override
    public String toString() {
        String made = switch (kind) {
            case CRON -> "Schedule.cron(\"" + expression + "\", " + zone + ")";
            case FIXED_RATE -> "Schedule.fixedRate(" + Durations.text(interval) + ")";
            case FIXED_DELAY -> "Schedule.fixedDelay(" + Durations.text(interval) + ")";
        };
        return made
                + (start != null ? ".startingAt(" + start + ")" : "")
                + (end != null ? ".endingAt(" + end + ")" : "")
                + (maxRuns != Integer.MAX_VALUE ? ".maxRuns(" + maxRuns + ")" : "");
    }
}
