package dev.sluice.internal.adaptive;

import dev.sluice.limit.AdaptiveRate;
import java.time.Duration;

/**
 * How one controlled rate moves (see {@link RateControl}): rates in jobs per second, times as durations.
 *
 * @param floor the lowest rate the controller sets, above 0
 * @param ceiling the highest, at least {@code floor}
 * @param start the rate before any signal, between the two
 * @param cut what a rate is multiplied by at a congestion episode's cut, above 0 and below 1
 * @param episode how long after a cut further loss signals count as the same episode (the cut's cooldown: the rate
 *     does not grow in it either); losses of attempts that started before the cut count as its episode however late
 *     they come
 * @param climb how long utilised time takes to climb from a cut back to the rate cut from (the last good rate);
 *     beyond it the rate probes upward, slowly at first
 * @param appLimited the share of the rate that must be used over a window of reports for the rate to grow (0 to
 *     1): a queue that starts fewer jobs than its rate allows learns nothing about the downstream's capacity
 * @param latencyTolerance how far a job's recent processing time may rise above its baseline, the lowest of late (a
 *     factor above 1), before the rise counts as congestion
 */
public record ControlSettings(
        double floor,
        double ceiling,
        double start,
        double cut,
        Duration episode,
        Duration climb,
        double appLimited,
        double latencyTolerance) {

    /**
     * Cut to 85% of the rate (CUBIC and the AWS SDK's adaptive mode cut to 70%: with a cut bounded by what the
     * downstream delivered, a gentler one reaches a drop as fast and loses less at each probe).
     */
    public static final double DEFAULT_CUT = 0.85;

    public static final Duration DEFAULT_EPISODE = Duration.ofMillis(250);

    public static final Duration DEFAULT_CLIMB = Duration.ofSeconds(3);

    public static final double DEFAULT_APP_LIMITED = 0.8;

    public static final double DEFAULT_LATENCY_TOLERANCE = 3.0;

    public ControlSettings {
        if (!(floor > 0) || !Double.isFinite(floor)) {
            throw new IllegalArgumentException("floor must be a finite rate above 0 jobs per second, got " + floor);
        }
        if (!(ceiling >= floor) || !Double.isFinite(ceiling)) {
            throw new IllegalArgumentException(
                    "ceiling must be a finite rate at least the floor (" + floor + "), got " + ceiling);
        }
        if (!(start >= floor && start <= ceiling)) {
            throw new IllegalArgumentException(
                    "start must lie between the floor (" + floor + ") and the ceiling (" + ceiling + "), got " + start);
        }
        if (!(cut > 0 && cut < 1)) {
            throw new IllegalArgumentException("cut must lie above 0 and below 1 (0.85: 85% of the rate), got " + cut);
        }
        requirePositive("episode", episode, true);
        requirePositive("climb", climb, false);
        if (!(appLimited >= 0 && appLimited <= 1)) {
            throw new IllegalArgumentException("appLimited must lie between 0 and 1, got " + appLimited);
        }
        if (!(latencyTolerance > 1) || !Double.isFinite(latencyTolerance)) {
            throw new IllegalArgumentException(
                    "latencyTolerance must be a finite factor above 1 (3: three times the baseline), got "
                            + latencyTolerance);
        }
    }

    /**
     * Settings with the defaults: start at the ceiling, cut to 85%, episodes of 250 ms, a climb of 3 s, growth only
     * while 80% of the rate is used, latency up to three times its baseline.
     *
     * @param floor the lowest rate, jobs per second
     * @param ceiling the highest
     * @return the settings
     */
    public static ControlSettings between(double floor, double ceiling) {
        return new ControlSettings(
                floor,
                ceiling,
                ceiling,
                DEFAULT_CUT,
                DEFAULT_EPISODE,
                DEFAULT_CLIMB,
                DEFAULT_APP_LIMITED,
                DEFAULT_LATENCY_TOLERANCE);
    }

    /** The settings of {@code rate}: its bounds, start, cut and climb, and the defaults of the rest. */
    public static ControlSettings of(AdaptiveRate rate) {
        return new ControlSettings(
                rate.floor(),
                rate.perSecond(),
                rate.start(),
                rate.cut(),
                DEFAULT_EPISODE,
                rate.climb(),
                DEFAULT_APP_LIMITED,
                DEFAULT_LATENCY_TOLERANCE);
    }

    /** These settings starting at {@code start} jobs per second. */
    public ControlSettings startingAt(double start) {
        return new ControlSettings(floor, ceiling, start, cut, episode, climb, appLimited, latencyTolerance);
    }

    /** The rate {@code rate} held between the floor and the ceiling. */
    double clamp(double rate) {
        return Math.max(floor, Math.min(ceiling, rate));
    }

    long episodeNanos() {
        return episode.toNanos();
    }

    long climbNanos() {
        return climb.toNanos();
    }

    private static void requirePositive(String name, Duration value, boolean zeroAllowed) {
        if (value == null || value.isNegative() || (!zeroAllowed && value.isZero())) {
            throw new IllegalArgumentException(
                    name + " must be a duration " + (zeroAllowed ? "of 0 or more" : "above 0") + ", got " + value);
        }
    }
}
