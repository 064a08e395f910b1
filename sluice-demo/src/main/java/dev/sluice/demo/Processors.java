package dev.sluice.demo;

import dev.sluice.queue.Processor;
import dev.sluice.queue.Result;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The processors {@code ./sluice worker --processor} offers, for trying a queue out and for black-box tests:
 * {@code noop}, {@code sleep:MS}, {@code fail:P} and {@code ratelimit:P:MS}.
 */
final class Processors {
    /** What {@code --processor} allows, for messages. */
    static final String ALLOWED = "noop, sleep:MS, fail:P or ratelimit:P:MS"
            + " (P a probability from 0 to 1, MS milliseconds from 0 to 3600000)";

    /** The longest sleep or rate-limit pause, in milliseconds: an hour. */
    private static final long MAX_MILLIS = 3_600_000;

    private Processors() {}

    /** An attempt that {@code fail:P} failed on purpose. */
    static final class FailedOnPurpose extends Exception {
        private static final long serialVersionUID = 1L;

        FailedOnPurpose(String processor) {
            super("failed on purpose (--processor " + processor + ")");
        }
    }

    /**
     * The processor {@code spec} names.
     *
     * @return the processor: {@code noop} completes each job at once; {@code sleep:MS} completes it after MS
     *     milliseconds; {@code fail:P} fails the attempt with probability P (retried while the job's attempts
     *     last) and completes it otherwise; {@code ratelimit:P:MS} returns {@code Result.rateLimited(GROUP, MS ms)}
     *     with probability P and completes the job otherwise
     * @throws IllegalArgumentException if {@code spec} is none of them
     */
    static Processor<String> parse(String spec) {
        String[] parts = spec.split(":", -1);
        switch (parts[0]) {
            case "noop" -> {
                if (parts.length == 1) {
                    return job -> Result.done();
                }
            }
            case "sleep" -> {
                if (parts.length == 2) {
                    Duration sleep = Duration.ofMillis(millis(parts[1]));
                    return job -> {
                        Thread.sleep(sleep);
                        return Result.done();
                    };
                }
            }
            case "fail" -> {
                if (parts.length == 2) {
                    double p = probability(parts[1]);
                    return job -> {
                        if (happens(p)) {
                            throw new FailedOnPurpose(spec);
                        }
                        return Result.done();
                    };
                }
            }
            case "ratelimit" -> {
                if (parts.length == 3) {
                    double p = probability(parts[1]);
                    Duration pause = Duration.ofMillis(millis(parts[2]));
                    return job -> happens(p) ? Result.rateLimited(Result.Scope.GROUP, pause) : Result.done();
                }
            }
            default -> {
                // said below
            }
        }
        throw new IllegalArgumentException(spec);
    }

    private static boolean happens(double probability) {
        return ThreadLocalRandom.current().nextDouble() < probability;
    }

    private static double probability(String text) {
        return number(text, false, 1);
    }

    private static long millis(String text) {
        return (long) number(text, true, MAX_MILLIS);
    }

    /** {@code text} as a number from 0 to {@code max}, a whole one if {@code whole}. */
    private static double number(String text, boolean whole, double max) {
        try {
            double number = whole ? Long.parseLong(text) : Double.parseDouble(text);
            if (number >= 0 && number <= max) {
                return number;
            }
        } catch (NumberFormatException notANumber) {
            // said below
        }
        throw new IllegalArgumentException(text);
    }
}
