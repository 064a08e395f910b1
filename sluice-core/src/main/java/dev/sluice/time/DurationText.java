package dev.sluice.time;

import java.time.Duration;

/**
 * Durations written for people, for messages and {@code toString}: {@code 2.5 s}, {@code 100 ms},
 * {@code 1 h 30 min}, not {@code PT0.0025S}.
 *
 * <p>Exact, never rounded: below a minute, the largest unit in which the amount is at least 1 ({@code ns},
 * {@code µs}, {@code ms}, {@code s}) with as many decimals as it needs; from a minute on, days, hours, minutes
 * and seconds, each part that is not zero ({@code 2 d 3 h}, {@code 1 min 0.5 s}). Negative amounts carry a
 * minus sign.
 */
public final class DurationText {
    private static final long MINUTE = 60;
    private static final long HOUR = 60 * MINUTE;
    private static final long DAY = 24 * HOUR;

    private DurationText() {}

    /**
     * {@code duration} written for people.
     *
     * @param duration any duration; null gives {@code "null"}
     * @return for example {@code "2.5 s"}, {@code "100 ms"} or {@code "1 h 30 min"}
     */
    public static String format(Duration duration) {
        if (duration == null) {
            return "null";
        }
        if (duration.isNegative()) {
            // Duration.MIN has no positive twin; a nanosecond less changes nothing a person reads
            Duration positive = duration.getSeconds() == Long.MIN_VALUE
                    ? Duration.ofSeconds(Long.MAX_VALUE, 999_999_999)
                    : duration.negated();
            return "-" + format(positive);
        }
        long seconds = duration.getSeconds();
        int nanos = duration.getNano();
        if (seconds == 0) {
            if (nanos < 1_000) {
                return nanos + " ns";
            }
            return nanos < 1_000_000 ? decimal(nanos, 1_000, "µs") : decimal(nanos, 1_000_000, "ms");
        }
        if (seconds < MINUTE) {
            return decimal(seconds, nanos, "s");
        }
        StringBuilder text = new StringBuilder();
        part(text, seconds / DAY, "d");
        part(text, seconds % DAY / HOUR, "h");
        part(text, seconds % HOUR / MINUTE, "min");
        if (seconds % MINUTE != 0 || nanos != 0) {
            text.append(' ').append(decimal(seconds % MINUTE, nanos, "s"));
        }
        return text.toString();
    }

    /**
     * {@code nanos} nanoseconds written for people, as {@link #format(Duration)} writes them.
     *
     * @param nanos any number of nanoseconds
     * @return for example {@code "2.5 s"} for {@code 2_500_000_000}
     */
    public static String formatNanos(long nanos) {
        return format(Duration.ofNanos(nanos));
    }

    /** {@code amount / unit} in {@code name}s, with the decimals it needs. */
    private static String decimal(int amount, int unit, String name) {
        return decimal(amount / unit, amount % unit, unit, name);
    }

    /** {@code whole + nanos / 1e9} seconds. */
    private static String decimal(long whole, int nanos, String name) {
        return decimal(whole, nanos, 1_000_000_000, name);
    }

    private static String decimal(long whole, int fraction, int unit, String name) {
        if (fraction == 0) {
            return whole + " " + name;
        }
        String digits = Integer.toString(unit + fraction).substring(1);
        int end = digits.length();
        while (digits.charAt(end - 1) == '0') {
            end--;
        }
        return whole + "." + digits.substring(0, end) + " " + name;
    }

    private static void part(StringBuilder text, long amount, String name) {
        if (amount != 0) {
            text.append(text.isEmpty() ? "" : " ").append(amount).append(' ').append(name);
        }
    }
}
