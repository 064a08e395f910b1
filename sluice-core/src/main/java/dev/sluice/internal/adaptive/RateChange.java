package dev.sluice.internal.adaptive;

/**
 * A change of a controlled rate, with why it changed: what listeners hear and metrics count.
 *
 * @param reason why
 * @param signal what moved it: {@code rate-limited}, {@code overloaded}, {@code latency}, {@code quota}, a gauge's
 *     name, or for a climb {@code climb}
 * @param value the signal's value: a retry-after in seconds (0: none given), a processing time in milliseconds, a
 *     gauge's reading, a quota's rate in jobs per second; for a climb the last good rate
 * @param from the rate before, jobs per second
 * @param to the rate after
 * @param at when, engine nanoseconds
 */
public record RateChange(Reason reason, String signal, double value, double from, double to, long at) {
    /** Why a rate changed. */
    public enum Reason {
        /** A loss (429, 503, timeout) started a congestion episode: the rate was cut once for it. */
        CUT,
        /** Processing time or a gauge rose above what it may: the rate went down in proportion, once per episode. */
        GRADIENT,
        /** A downstream's quota allows less than the rate: the rate was set to what it allows. */
        QUOTA,
        /** The rate grew back toward the last good rate or probed beyond it (told in steps). */
        CLIMB,
        /** A signal the rate depends on went missing or stale: the rate holds where it is. */
        HELD,
        /** The stale signal is heard again: the rate may grow again. */
        RESUMED
    }
}
