package dev.sluice.redis.internal;

import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;

/**
 * A queue's or a group's rate as the queue script stores it: {@code <kind>|<span>|<limit>|<policy>}, the first
 * three as the limiter algorithms read them ({@link LimitScript#policyArgs}), the last the policy's own values, so
 * that every process reads back the policy that was set. An {@link AdaptiveRate} is stored as its ceiling, followed
 * by {@code ;A,<ceiling per second>,<floor>,<start>,<cut>,<climb in µs>} (the scripts read them: queue-adaptive.lua)
 * and {@code ,<climb in ns>}. Empty for no rate.
 */
final class RateText {
    private RateText() {}

    /** The stored form of {@code rate} (null: none). */
    static String encode(RatePolicy rate) {
        if (rate == null) {
            return "";
        }
        if (rate instanceof AdaptiveRate adaptive) {
            long climb = adaptive.climb().toNanos();
            return encode(adaptive.ceiling()) + ";A," + number(adaptive.perSecond()) + "," + number(adaptive.floor())
                    + "," + number(adaptive.start()) + "," + number(adaptive.cut()) + "," + climb / 1000 + "," + climb;
        }
        String[] args = LimitScript.policyArgs(rate);
        String policy = switch (rate) {
            case TokenBucket b ->
                "T," + b.capacity() + "," + b.refillTokens() + ","
                        + b.refillPeriod().toNanos();
            case Gcra g -> "G," + g.rate() + "," + g.period().toNanos() + "," + g.burst();
            case FixedWindow w -> "F," + w.limit() + "," + w.window().toNanos();
            case SlidingWindowCounter w -> "C," + w.limit() + "," + w.window().toNanos();
            case SlidingWindowLog w -> "L," + w.limit() + "," + w.window().toNanos();
            case AdaptiveRate a -> throw new IllegalStateException("encoded above: " + a);
        };
        return args[0] + "|" + args[1] + "|" + args[2] + "|" + policy;
    }

    /** The policy of a stored rate; null for none. */
    static RatePolicy decode(String stored) {
        if (stored == null || stored.isEmpty()) {
            return null;
        }
        int adaptive = stored.indexOf(";A,");
        if (adaptive >= 0) {
            String[] a = stored.substring(adaptive + 3).split(",");
            return new AdaptiveRate(
                    decode(stored.substring(0, adaptive)),
                    Double.parseDouble(a[1]),
                    Double.parseDouble(a[2]),
                    Double.parseDouble(a[3]),
                    Duration.ofNanos(Long.parseLong(a[5])));
        }
        String[] v = stored.substring(stored.lastIndexOf('|') + 1).split(",");
        return switch (v[0]) {
            case "T" -> TokenBucket.of(Long.parseLong(v[1]), Long.parseLong(v[2]), nanos(v[3]));
            case "G" -> Gcra.of(Long.parseLong(v[1]), nanos(v[2]), Long.parseLong(v[3]));
            case "F" -> FixedWindow.of(Long.parseLong(v[1]), nanos(v[2]));
            case "C" -> SlidingWindowCounter.of(Long.parseLong(v[1]), nanos(v[2]));
            case "L" -> SlidingWindowLog.of(Long.parseLong(v[1]), nanos(v[2]));
            default -> throw new IllegalStateException("the queue script stored an unknown rate: " + stored);
        };
    }

    /** {@code x} exactly, as Java reads it back and Lua's tonumber too. */
    private static String number(double x) {
        return Double.toString(x);
    }

    private static Duration nanos(String value) {
        return Duration.ofNanos(Long.parseLong(value));
    }
}
