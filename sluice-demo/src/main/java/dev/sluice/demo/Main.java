package dev.sluice.demo;

import java.time.Duration;

/** The command line of {@code ./sluice}. */
public final class Main {
    /** Seconds of traffic by default; the drain after it takes a few more. */
    private static final long DEFAULT_SECONDS = 15;

    private Main() {}

    /** Runs a command: {@code demo [--seconds N]}. */
    public static void main(String[] args) throws InterruptedException {
        if (args.length == 0 || !args[0].equals("demo")) {
            usage();
            return;
        }
        long seconds = DEFAULT_SECONDS;
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--seconds") && i + 1 < args.length) {
                seconds = parseSeconds(args[++i]);
            } else {
                usage();
                return;
            }
        }
        new QueueDemo(Duration.ofSeconds(seconds), System.out).run();
    }

    private static long parseSeconds(String value) {
        try {
            long seconds = Long.parseLong(value);
            if (seconds >= 1 && seconds <= 3600) {
                return seconds;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        System.err.println("--seconds must be a whole number from 1 to 3600, was '" + value + "'");
        System.exit(2);
        return 0;
    }

    private static void usage() {
        System.err.println("usage: ./sluice demo [--seconds N]   (N seconds of traffic, 1 to 3600, default "
                + DEFAULT_SECONDS + "; the queue then drains for a few seconds)");
        System.exit(2);
    }
}
