package dev.sluice.internal.adaptive;

/** What a controlled rate hears (see {@link RateControl}). Times are engine nanoseconds. */
public sealed interface Signal {
    /**
     * A downstream refused or failed under load: a 429 or 503 ({@link Kind#RATE_LIMITED}), a timeout or a 5xx
     * ({@link Kind#OVERLOADED}).
     *
     * @param kind which
     * @param sentAt when the attempt that met it started: a loss of an attempt that started before the last cut
     *     belongs to that cut's episode
     * @param retryAfterNanos how long the downstream asked to wait (0: it did not say)
     */
    record Loss(Kind kind, long sentAt, long retryAfterNanos) implements Signal {
        public enum Kind {
            RATE_LIMITED,
            OVERLOADED
        }

        public Loss {
            if (kind == null) {
                throw new IllegalArgumentException("a loss needs its kind (RATE_LIMITED or OVERLOADED)");
            }
            if (retryAfterNanos < 0) {
                throw new IllegalArgumentException("retryAfterNanos must be 0 or more, got " + retryAfterNanos);
            }
        }
    }

    /**
     * What one process saw since its last report (every process reports about every tenth of a second): the rule
     * adds the reports of all processes up over windows of {@link RateControl#WINDOW} and judges each whole window.
     *
     * @param started how many jobs it started under the rate
     * @param succeeded how many attempts succeeded: what the downstream delivered
     * @param refused how many the downstream refused (429, 503)
     * @param stale the signal that has gone missing or stale (the rate then holds where it is), null if none
     */
    record Report(long started, long succeeded, long refused, String stale) implements Signal {
        public Report {
            if (started < 0 || succeeded < 0 || refused < 0) {
                throw new IllegalArgumentException(
                        "a report counts 0 or more, got " + started + ", " + succeeded + " and " + refused);
            }
        }
    }

    /**
     * An attempt's processing time, as its worker measured it.
     *
     * @param nanos how long it ran
     */
    record Latency(long nanos) implements Signal {
        public Latency {
            if (nanos < 0) {
                throw new IllegalArgumentException("a latency is 0 or more nanoseconds, got " + nanos);
            }
        }
    }

    /**
     * A gauge the application supplies, with the threshold it should stay under (a pool's use, a CPU's share).
     *
     * @param name what it measures, as change events name it
     * @param value its reading
     * @param threshold the reading above which the rate goes down, in proportion
     */
    record Gauge(String name, double value, double threshold) implements Signal {
        public Gauge {
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("a gauge needs a name");
            }
            if (!(threshold > 0) || !Double.isFinite(threshold) || !Double.isFinite(value)) {
                throw new IllegalArgumentException("gauge " + name
                        + " needs a finite value and a finite threshold above 0, got " + value + " and " + threshold);
            }
        }
    }

    /**
     * What a downstream said of its quota (the IETF RateLimit fields, or a limit and window it documents): so many
     * requests remain until the window resets.
     *
     * @param remaining requests left in the window
     * @param resetNanos time until the window resets, above 0
     */
    record Quota(long remaining, long resetNanos) implements Signal {
        public Quota {
            if (remaining < 0 || resetNanos <= 0) {
                throw new IllegalArgumentException("a quota has 0 or more requests remaining and a reset above 0, got "
                        + remaining + " and " + resetNanos + " ns");
            }
        }
    }
}
