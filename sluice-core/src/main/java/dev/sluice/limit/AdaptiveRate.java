package dev.sluice.limit;

import dev.sluice.time.DurationText;
import java.time.Duration;

/**
 * A queue's or a group's rate that follows what the downstream can take: it runs at most at {@code ceiling}, is cut
 * when jobs report that the downstream refused them ({@link dev.sluice.queue.Result#rateLimited}) or is overloaded
 * ({@link dev.sluice.queue.Result#overloaded}), and climbs back as jobs succeed, never below {@code floor} jobs per
 * second. Set it where a queue or group takes a rate ({@link dev.sluice.queue.QueueOptions.Builder#rate}, {@link
 * dev.sluice.queue.GroupLimits.Builder#rate}, {@link dev.sluice.queue.JobQueue#setRate}); every worker of every
 * process obeys the one rate the engine keeps, and each change is told to listeners ({@link
 * dev.sluice.queue.QueueListener#onRateChanged}) with its reason. With group defaults, each group has a rate of its
 * own.
 *
 * <ul>
 *   <li>However many refusals arrive within a quarter of a second, or answer jobs that started before the last cut,
 *       the rate is cut once: to {@code cut} times itself, or straight to what the downstream delivered of late when
 *       that is less.
 *   <li>After a cut the rate climbs back to where it was within {@code climb}, stays near it, then probes beyond,
 *       slowly at first; it grows only while the jobs use most of it (a quiet queue learns nothing), and never to
 *       more than twice what the downstream delivered.
 *   <li>Processing times far above their usual (three times the lowest of late) lower the rate in proportion.
 * </ul>
 *
 * <p>The engine enforces {@code ceiling} scaled to the current rate: a token bucket's or GCRA's rate and burst, a
 * window's limit (never below one permit). Standalone limiters do not take an adaptive rate.
 *
 * @param ceiling the most the rate may be, and the policy it is enforced as; not itself adaptive
 * @param floor the least the rate may be, in jobs per second, above 0 and at most the ceiling's rate
 * @param start the rate before any signal, in jobs per second, from {@code floor} to the ceiling's rate
 * @param cut the factor of a cut, above 0 and below 1
 * @param climb how long the rate takes to climb back after a cut, while the jobs use it; 1 ms to 1 day
 */
public record AdaptiveRate(RatePolicy ceiling, double floor, double start, double cut, Duration climb)
        implements RatePolicy {
    /** The default {@link #cut}: 85% of the rate, as CUBIC cuts. */
    public static final double DEFAULT_CUT = 0.85;

    /** The default {@link #climb}: three seconds. */
    public static final Duration DEFAULT_CLIMB = Duration.ofSeconds(3);

    private static final Duration LONGEST_CLIMB = Duration.ofDays(1);

    /**
     * Validates every value.
     *
     * @throws IllegalArgumentException naming the first bad value and the allowed ones
     */
    public AdaptiveRate {
        if (ceiling == null || ceiling instanceof AdaptiveRate) {
            throw new IllegalArgumentException("the ceiling of an adaptive rate must be a TokenBucket, Gcra,"
                    + " FixedWindow, SlidingWindowCounter or SlidingWindowLog, was " + ceiling);
        }
        double most = ceiling.perSecond();
        if (!(floor > 0) || floor > most) {
            throw new IllegalArgumentException(
                    "floor must be above 0 and at most the ceiling's rate (" + most + " per second), was " + floor);
        }
        if (!(start >= floor && start <= most)) {
            throw new IllegalArgumentException("start must lie between the floor (" + floor
                    + " per second) and the ceiling's rate (" + most + " per second), was " + start);
        }
        if (!(cut > 0 && cut < 1)) {
            throw new IllegalArgumentException(
                    "cut must lie above 0 and below 1 (0.85: to 85% of the rate), was " + cut);
        }
        if (climb == null || climb.compareTo(Duration.ofMillis(1)) < 0 || climb.compareTo(LONGEST_CLIMB) > 0) {
            throw new IllegalArgumentException(
                    "climb must be from 1 ms to 1 day, was " + (climb == null ? "null" : DurationText.format(climb)));
        }
    }

    /**
     * An adaptive rate of at most {@code ceiling}, starting there, with a floor of a hundredth of it, the default cut
     * and climb.
     *
     * @param ceiling the most the rate may be, and the policy it is enforced as
     * @return the rate
     * @throws IllegalArgumentException if {@code ceiling} is null or adaptive
     */
    public static AdaptiveRate of(RatePolicy ceiling) {
        if (ceiling == null || ceiling instanceof AdaptiveRate) {
            return new AdaptiveRate(ceiling, 1, 1, DEFAULT_CUT, DEFAULT_CLIMB); // throws, naming the ceiling
        }
        double most = ceiling.perSecond();
        return new AdaptiveRate(ceiling, most / 100, most, DEFAULT_CUT, DEFAULT_CLIMB);
    }

    /**
     * This rate with another floor; a start below it moves up to it.
     *
     * @param perSecond the least the rate may be, in jobs per second
     * @return the rate
     * @throws IllegalArgumentException if it is not above 0 or above the ceiling's rate
     */
    public AdaptiveRate withFloor(double perSecond) {
        return new AdaptiveRate(ceiling, perSecond, Math.max(start, perSecond), cut, climb);
    }

    /**
     * This rate starting at {@code perSecond} until signals move it (for a downstream known to take less than the
     * ceiling at first).
     *
     * @param perSecond the first rate, in jobs per second
     * @return the rate
     * @throws IllegalArgumentException if it lies outside the floor and the ceiling's rate
     */
    public AdaptiveRate withStart(double perSecond) {
        return new AdaptiveRate(ceiling, floor, perSecond, cut, climb);
    }

    /**
     * This rate with another cut.
     *
     * @param factor what a cut leaves of the rate, above 0 and below 1
     * @return the rate
     * @throws IllegalArgumentException if it is out of range
     */
    public AdaptiveRate withCut(double factor) {
        return new AdaptiveRate(ceiling, floor, start, factor, climb);
    }

    /**
     * This rate with another climb time.
     *
     * @param climb how long the rate takes to climb back after a cut, 1 ms to 1 day
     * @return the rate
     * @throws IllegalArgumentException if it is null or out of range
     */
    public AdaptiveRate withClimb(Duration climb) {
        return new AdaptiveRate(ceiling, floor, start, cut, climb);
    }

    /**
     * What the engine enforces while the rate is {@code perSecond}: the ceiling with its rate (and a bucket's burst, a
     * window's limit) scaled down in proportion, never below one permit.
     *
     * @param perSecond the rate, at most the ceiling's (more is taken as the ceiling)
     * @return the policy enforced
     */
    public RatePolicy scaledTo(double perSecond) {
        double share = Math.min(1, perSecond / ceiling.perSecond());
        if (share >= 1) {
            return ceiling;
        }
        return switch (ceiling) {
            case TokenBucket b ->
                new TokenBucket(part(b.capacity(), share), b.refillTokens(), stretch(b.refillPeriod(), share));
            case Gcra g -> new Gcra(g.rate(), stretch(g.period(), share), part(g.burst(), share));
            case FixedWindow w -> new FixedWindow(part(w.limit(), share), w.window());
            case SlidingWindowCounter w -> new SlidingWindowCounter(part(w.limit(), share), w.window());
            case SlidingWindowLog w -> new SlidingWindowLog(part(w.limit(), share), w.window());
            case AdaptiveRate a -> throw new IllegalStateException("an adaptive ceiling was refused when made: " + a);
        };
    }

    /**
     * The most permits one key can hold at once: the ceiling's.
     *
     * @return the ceiling's limit
     */
    @Override
    public long limit() {
        return ceiling.limit();
    }

    /**
     * The rate as the calls that make it would be written.
     *
     * @return for example {@code AdaptiveRate.of(Gcra.of(200, 1 s, 10)).withFloor(2.0)}
     */
    @Override
    public String toString() {
        StringBuilder text =
                new StringBuilder("AdaptiveRate.of(").append(ceiling).append(')');
        double most = ceiling.perSecond();
        if (floor != most / 100) {
            text.append(".withFloor(").append(floor).append(')');
        }
        if (start != most) {
            text.append(".withStart(").append(start).append(')');
        }
        if (cut != DEFAULT_CUT) {
            text.append(".withCut(").append(cut).append(')');
        }
        if (!climb.equals(DEFAULT_CLIMB)) {
            text.append(".withClimb(").append(DurationText.format(climb)).append(')');
        }
        return text.toString();
    }

    private static long part(long permits, double share) {
        // a share worked out from rates may come a rounding error short of the whole number of permits it means
        return Math.max(1, (long) Math.floor(permits * share * (1 + 1e-12)));
    }

    private static Duration stretch(Duration period, double share) {
        return Duration.ofNanos((long) Math.ceil(period.toNanos() / share));
    }
}
