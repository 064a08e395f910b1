package dev.sluice.demo;

import dev.sluice.Sluice;
import dev.sluice.redis.RedisSluice;
import java.io.PrintStream;
import java.time.Duration;

/** The command line of {@code ./sluice}. */
public final class Main {
    /** Seconds of traffic by default; the drain after it takes a few more. */
    static final long DEFAULT_SECONDS = 15;

    /** The exit status of a command line that cannot be run as given. */
    static final int USAGE_ERROR = 2;

    static final String USAGE = """
            usage: ./sluice <command>

            commands:
              demo [--seconds N] [--redis URL]
                                   tenants, a job queue and a rate-limited API on the in-memory engine
                                   (or through the Redis at URL, redis://host:port): N seconds of traffic
                                   (1 to 3600, default %d), then the queue drains
              help                 prints this text (also --help, -h)
            """.formatted(DEFAULT_SECONDS);

    private Main() {}

    /** What {@code demo} runs: the demo for the given seconds of traffic, in memory or on the Redis at a URL. */
    @FunctionalInterface
    interface Demo {
        /**
         * Runs the demo.
         *
         * @param redisUrl the Redis to run it through, or null for the in-memory engine
         */
        void run(long seconds, String redisUrl) throws InterruptedException;
    }

    /**
     * Runs a command line and exits with its status when it is not 0.
     *
     * @param args the command and its options, as {@link #USAGE} lists them
     * @throws InterruptedException if the demo is interrupted
     */
    public static void main(String[] args) throws InterruptedException {
        int status = run(
                args,
                System.out,
                System.err,
                (seconds, redisUrl) -> new QueueDemo(
                                Duration.ofSeconds(seconds),
                                System.out,
                                () -> redisUrl == null ? Sluice.inMemory() : onRedis(redisUrl),
                                redisUrl == null ? "the in-memory engine" : "Redis at " + redisUrl)
                        .run());
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * Runs a command line: usage on {@code out} for help, the demo for {@code demo}, and otherwise a line on
     * {@code err} naming what was wrong, then the usage.
     *
     * @return the exit status: 0, or {@link #USAGE_ERROR}
     */
    static int run(String[] args, PrintStream out, PrintStream err, Demo demo) throws InterruptedException {
        if (args.length == 0) {
            err.print(USAGE);
            return USAGE_ERROR;
        }
        switch (args[0]) {
            case "help", "--help", "-h" -> {
                out.print(USAGE);
                return 0;
            }
            case "demo" -> {
                return demo(args, out, err, demo);
            }
            default -> {
                return fail(err, "unknown command '" + args[0] + "' (commands: demo, help)");
            }
        }
    }

    /** An engine on the Redis at {@code url}, under a key prefix of its own, so that no earlier run's state counts. */
    private static Sluice onRedis(String url) {
        return RedisSluice.builder()
                .url(url)
                .keyPrefix("sluice-demo-" + ProcessHandle.current().pid() + "-" + System.currentTimeMillis())
                .build();
    }

    private static int demo(String[] args, PrintStream out, PrintStream err, Demo demo) throws InterruptedException {
        long seconds = DEFAULT_SECONDS;
        String redisUrl = null;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--help", "-h" -> {
                    out.print(USAGE);
                    return 0;
                }
                case "--seconds" -> {
                    if (i + 1 == args.length) {
                        return fail(err, "--seconds needs a value: a whole number from 1 to 3600");
                    }
                    String value = args[++i];
                    seconds = parseSeconds(value);
                    if (seconds == 0) {
                        return fail(err, "--seconds must be a whole number from 1 to 3600, was '" + value + "'");
                    }
                }
                case "--redis" -> {
                    if (i + 1 == args.length) {
                        return fail(err, "--redis needs a value: a Redis URL such as redis://localhost:6379");
                    }
                    redisUrl = args[++i];
                }
                default -> {
                    return fail(err, "unknown option '" + args[i] + "' for demo (options: --seconds N, --redis URL)");
                }
            }
        }
        demo.run(seconds, redisUrl);
        return 0;
    }

    /** {@code value} as seconds from 1 to 3600, or 0 if it is not one. */
    private static long parseSeconds(String value) {
        try {
            long seconds = Long.parseLong(value);
            return seconds >= 1 && seconds <= 3600 ? seconds : 0;
        } catch (NumberFormatException notANumber) {
            return 0;
        }
    }

    private static int fail(PrintStream err, String problem) {
        err.println("sluice: " + problem);
        err.println();
        err.print(USAGE);
        return USAGE_ERROR;
    }
}
