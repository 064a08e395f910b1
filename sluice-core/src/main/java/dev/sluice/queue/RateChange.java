package dev.sluice.queue;

import dev.sluice.limit.AdaptiveRate;
import java.time.Instant;

/**
 * A change of an {@link AdaptiveRate}, told to listeners ({@link QueueListener#onRateChanged}) in every process; the
 * last one is in the statistics ({@link QueueStats.Rate#lastChange}).
 *
 * @param scope {@link Result.Scope#QUEUE} for the queue's rate, {@link Result.Scope#GROUP} for a group's
 * @param group the group whose rate changed; {@code null} for the queue's rate or the ungrouped jobs' rate
 * @param reason why it changed
 * @param signal what was heard: {@code rate-limited}, {@code overloaded}, {@code latency}, {@code quota}, {@code climb}
 * @param value the signal's value: the retry-after in seconds of a refusal, the processing time in milliseconds, the
 *     rate a quota allows, the rate a climb returns to
 * @param from the rate before, in jobs per second
 * @param to the rate after, in jobs per second
 * @param at when it changed
 */
public record RateChange(
        Result.Scope scope,
        String group,
        Reason reason,
        String signal,
        double value,
        double from,
        double to,
        Instant at) {

    /** Why a rate changed. */
    public enum Reason {
        /** A refusal or an overload cut it, once for its congestion episode. */
        CUT,
        /** Processing times above their usual lowered it in proportion. */
        GRADIENT,
        /** A quota the downstream announced set it. */
        QUOTA,
        /** It climbed after a cut, by a tenth or more, or back to the last good rate, or to the ceiling. */
        CLIMB,
        /** A signal went missing: the rate holds where it is. */
        HELD,
        /** The missing signal came back: the rate moves again. */
        RESUMED
    }

    /**
     * The change for people.
     *
     * @return for example {@code RateChange{GROUP acme: CUT on rate-limited (1.0), 200.0 -> 170.0 /s at ...}}
     */
    @Override
    public String toString() {
        return "RateChange{" + scope + (group == null ? "" : " " + group) + ": " + reason + " on " + signal + " ("
                + value + "), " + from + " -> " + to + " /s at " + at + "}";
    }
}
