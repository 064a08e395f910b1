package dev.sluice.internal.adaptive;

import dev.sluice.queue.RateChange.Reason;

/**
 * A change of a controlled rate, with why it changed: what listeners hear and metrics count.
 *
 * @param reason why (as listeners hear it)
 * @param signal what moved it: {@code rate-limited}, {@code overloaded}, {@code latency}, {@code quota}, a gauge's
 *     name, or for a climb {@code climb}
 * @param value the signal's value: a retry-after in seconds (0: none given), a processing time in milliseconds, a
 *     gauge's reading, a quota's rate in jobs per second; for a climb the last good rate
 * @param from the rate before, jobs per second
 * @param to the rate after
 * @param at when, engine nanoseconds
 */
public record RateChange(Reason reason, String signal, double value, double from, double to, long at) {}
