package dev.sluice.demo;

import dev.sluice.Sluice;
import dev.sluice.demo.Options.Option;
import dev.sluice.demo.Options.Positional;
import dev.sluice.demo.Options.UsageException;
import dev.sluice.redis.RedisSluice;
import dev.sluice.server.SluiceApiServlet;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/** The command line of {@code ./sluice}. */
public final class Main {
    /** Seconds of traffic by default; the drain after it takes a few more. */
    static final long DEFAULT_SECONDS = 15;

    /** The exit status of a command line that cannot be run as given. */
    static final int USAGE_ERROR = 2;

    /** The exit status of a command that could not do its work: Redis unreachable, say. */
    static final int FAILURE = 1;

    static final String USAGE = """
            usage: ./sluice <command>

            commands:
              demo [--seconds N] [--redis URL] [--serve [--port P]]
                                   tenants, a job queue and a rate-limited API on the in-memory engine
                                   (or through the Redis at URL, redis://host:port): N seconds of traffic
                                   (1 to 3600, default %d), then the queue drains. --serve: the dashboard
                                   and the API over the demo's engine on 127.0.0.1 port P (default %d; 0
                                   picks a free one) while it plays, and after it until SIGTERM or Ctrl-C
              produce --redis URL --queue NAME --count N [--group G | --groups K] [--delay-ms D]
                      [--attempts A] [--payload-bytes B] [--id-prefix P]
                                   adds N jobs to queue NAME (%d per bulk add) and prints a JSON line:
                                   added, duplicates, seconds. --groups K spreads them round-robin over
                                   groups g0 to g(K-1); without --group(s) they have no group. --id-prefix P
                                   names them P0 to P(N-1), so that adding them again adds only duplicates.
                                   B bytes of payload (default 100); A attempts; D ms of delay
              worker --redis URL --queue NAME [--concurrency C] [--processor noop|sleep:MS|fail:P|ratelimit:P:MS]
                     [--echo] [--rate N/DURATION] [--group-rate N/DURATION] [--group-concurrency K]
                     [--lease-ms L]
                                   runs a worker (C jobs at once, default 1) until SIGTERM or Ctrl-C, then
                                   gives running jobs %d s and sends the rest back to waiting. The processor
                                   completes each job (noop, the default), after MS ms (sleep), fails it
                                   with probability P (fail), or returns rateLimited(GROUP, MS ms) with
                                   probability P (ratelimit). --echo prints a JSON line per job once Redis
                                   recorded its completion: id, group, attempt, worker (host:pid),
                                   startedAt, finishedAt (epoch ms). --rate and --group-rate (at most N
                                   starts in any DURATION, such as 10/1s, 500/1m, 50/250ms) and
                                   --group-concurrency set the queue's rate and its groups' defaults in
                                   Redis, for every process. L: the lease in ms (default 30000)
              serve [--port P] [--redis URL] [--config FILE]
                                   serves Sluice's HTTP API (JSON, /api/v1/queues, /api/v1/limiters,
                                   /health/live, /health/ready) over the in-memory engine, or over every
                                   queue of the Redis at URL, on 127.0.0.1 port P (default %d; 0 picks a
                                   free one) until SIGTERM or Ctrl-C. FILE (YAML, see
                                   sluice-demo/sluice.example.yaml) declares the server, Redis, tokens,
                                   queues, limiters and chains; --port and --redis win over it
              stats --redis URL --queue NAME
                                   prints a JSON object: whether the queue is paused; counts by state now
                                   (waiting, delayed, active, completed, failed), totals since the queue was
                                   created (added, completed, failed), completedPerSecond (over the last
                                   minute), waitTime and processingTime (count, p50Ms, p90Ms, p99Ms, maxMs),
                                   for the queue, its ungrouped jobs and each group
              queues --redis URL   prints a JSON line per queue: name, paused, counts by state, workers
                                   (attached) and busy (the jobs they run)
              jobs --redis URL --queue NAME --state STATE [--group G] [--offset K] [--limit N]
                                   prints a JSON line per job in STATE (waiting, delayed, active, completed or
                                   failed), at most N (1 to %d, default %d) after the first K: id, name,
                                   group, state, attemptsMade, createdAt, runAt, startedAt, finishedAt,
                                   failureReason. --group G keeps G's jobs only (K and N count those), reading
                                   the state's jobs %d at a time
              job --redis URL --queue NAME ID
                                   prints job ID as a JSON object: the fields of jobs, then options, progress,
                                   rateLimits, attempts, failure, result and payload (UTF-8 text, or base64
                                   where they are not UTF-8: resultEncoding, payloadEncoding)
              retry --redis URL --queue NAME (ID [--completed] | --all-failed)
                                   sends failed job ID (completed job ID, with --completed) or every failed
                                   job back to waiting, with fresh attempts
              remove --redis URL --queue NAME ID
                                   removes job ID, unless it is running
              promote --redis URL --queue NAME ID
                                   makes delayed job ID ready to run now
              pause --redis URL --queue NAME [--group G]
                                   stops the queue's jobs (group G's) from starting; running ones go on
              resume --redis URL --queue NAME [--group G]
                                   lets them start again, and prints wasPaused
              clean --redis URL --queue NAME --state completed|failed [--older-than DURATION]
                                   removes the completed (failed) jobs that finished DURATION ago or earlier:
                                   ms, s, m, h or d, such as 10s, 5m, 2h, 1d (default 0: all of them)
              drain --redis URL --queue NAME [--delayed]
                                   removes every waiting job, and with --delayed every delayed one
              obliterate --redis URL --queue NAME [--force]
                                   removes the queue and everything it holds; refused while workers are
                                   attached, unless --force
              groups --redis URL --queue NAME [--prefix P] [--after G] [--limit N]
                                   prints a JSON line per group, in name order: at most N (1 to %d, default
                                   %d), those whose names start with P, after group G: name, waiting,
                                   delayed, active, paused, pausedUntil, limits (concurrency, maxQueued,
                                   rate), ownLimits
              workers --redis URL --queue NAME
                                   prints a JSON line per worker attached: id, host, pid, concurrency, busy,
                                   running (job ids), startedAt, lastSeen, leaseEnds
              help                 prints this text (also --help, -h)

            Only produce and worker create a queue: the other commands fail on a queue that does not exist, and
            write nothing for it. A job ID that begins with - goes after --: job ... -- -42. Errors are one line on standard error: exit status 2 for a command line that
            cannot run as given, 1 when the command could not do its work (Redis unreachable, no such queue or
            job, a job in another state).
            """.formatted(
                    DEFAULT_SECONDS,
                    ServeCommand.DEFAULT_PORT,
                    Produce.BATCH,
                    WorkerCommand.CLOSE_DEADLINE.toSeconds(),
                    ServeCommand.DEFAULT_PORT,
                    AdminCommands.MAX_LIMIT,
                    AdminCommands.DEFAULT_LIMIT,
                    AdminCommands.PAGE,
                    AdminCommands.MAX_LIMIT,
                    AdminCommands.DEFAULT_LIMIT);

    private Main() {}

    /**
     * What {@code demo} runs: the demo for the given seconds of traffic, in memory or on the Redis at a URL, served
     * or not.
     */
    @FunctionalInterface
    interface Demo {
        /**
         * Runs the demo.
         *
         * @param redisUrl the Redis to run it through, or null for the in-memory engine
         * @param servePort the port to serve the dashboard and the API on (0: a free one), or empty for none
         */
        void run(long seconds, String redisUrl, OptionalInt servePort) throws InterruptedException;
    }

    /** What a long-running command started (a worker, a server), which it stops gracefully. */
    @FunctionalInterface
    interface Running {
        /** Stops it gracefully; a second call does nothing. */
        void stop();
    }

    /** Starts what a {@code worker} or {@code serve} command line runs. */
    @FunctionalInterface
    interface WorkerStart {
        /** Connects and starts it. */
        Running start();
    }

    /** What {@code worker} and {@code serve} do: start, keep running until told to stop, then stop. */
    @FunctionalInterface
    interface Lifetime {
        /** Starts with {@code start}, runs until it is to stop, and stops. */
        void runUntilStopped(WorkerStart start) throws InterruptedException;
    }

    /**
     * Runs a command line and exits with its status when it is not 0. A worker runs until the JVM is told to
     * stop (SIGTERM, SIGINT): a shutdown hook closes it, and the JVM exits as it was told (status 143 after
     * SIGTERM, 130 after SIGINT).
     *
     * @param args the command and its options, as {@link #USAGE} lists them
     * @throws InterruptedException if the demo is interrupted
     */
    public static void main(String[] args) throws InterruptedException {
        int status = run(args, System.out, System.err, demo(System.out, Main::untilShutdown), Main::untilShutdown);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * The demo, reporting on {@code out}. Served, it prints the dashboard's URL before it plays, and once it has
     * played keeps serving for {@code lifetime}, whose stop stops the server and closes the engine.
     */
    static Demo demo(PrintStream out, Lifetime lifetime) {
        return (seconds, redisUrl, servePort) -> {
            QueueDemo demo = new QueueDemo(
                    Duration.ofSeconds(seconds),
                    out,
                    redisUrl == null ? "the in-memory engine" : "Redis at " + redisUrl);
            Sluice sluice = redisUrl == null ? Sluice.inMemory() : onRedis(redisUrl);
            if (servePort.isEmpty()) {
                try (sluice) {
                    demo.run(sluice);
                }
                return;
            }
            ServeCommand.Served served;
            try {
                served = ServeCommand.serve(sluice, SluiceApiServlet.builder(sluice), null, servePort.getAsInt(), null);
            } catch (RuntimeException e) {
                sluice.close();
                throw e;
            }
            Running stop = once(() -> {
                served.close();
                sluice.close();
                out.println("sluice demo: the dashboard stopped");
                out.flush();
            });
            String dashboard = served.server().uri() + "dashboard/";
            out.println("sluice demo: the dashboard is at " + dashboard + " (the API at "
                    + served.server().uri() + "api/v1/queues; no tokens, so loopback only)");
            out.flush();
            try {
                demo.run(sluice);
            } catch (InterruptedException | RuntimeException e) {
                stop.stop();
                throw e;
            }
            out.println();
            out.println("sluice demo: the demo has ended; the dashboard stays at " + dashboard
                    + " until SIGTERM or Ctrl-C");
            out.flush();
            lifetime.runUntilStopped(() -> stop);
        };
    }

    /** {@code stop}, done on the first call only. */
    private static Running once(Running stop) {
        AtomicBoolean stopped = new AtomicBoolean();
        return () -> {
            if (stopped.compareAndSet(false, true)) {
                stop.stop();
            }
        };
    }

    /**
     * Starts the worker and keeps it running until the JVM shuts down. The shutdown hook that stops it is in place
     * before it starts, and a shutdown during the start waits for the start to end, so that no job the worker
     * claimed is left to its lease.
     */
    private static void untilShutdown(WorkerStart start) throws InterruptedException {
        Object lock = new Object();
        Running[] running = new Running[1];
        boolean[] stopping = new boolean[1];
        Thread stop = new Thread(
                () -> {
                    synchronized (lock) {
                        stopping[0] = true;
                        if (running[0] != null) {
                            running[0].stop();
                        }
                    }
                },
                "sluice-worker-stop");
        Runtime.getRuntime().addShutdownHook(stop);
        synchronized (lock) {
            if (stopping[0]) {
                return;
            }
            running[0] = start.start();
        }
        new CountDownLatch(1).await(); // the JVM exits once the hook has stopped the worker
    }

    /**
     * Runs a command line: usage on {@code out} for help, the command otherwise; a problem is one line on {@code
     * err}.
     *
     * @return the exit status: 0, {@link #USAGE_ERROR} or {@link #FAILURE}
     */
    static int run(String[] args, PrintStream out, PrintStream err, Demo demo, Lifetime lifetime)
            throws InterruptedException {
        if (args.length == 0) {
            err.print(USAGE);
            return USAGE_ERROR;
        }
        try {
            switch (args[0]) {
                case "help", "--help", "-h" -> out.print(USAGE);
                case "demo" ->
                    command(args, DEMO_OPTIONS, out, options -> {
                        if (options.has("--port") && !options.has("--serve")) {
                            throw new UsageException("--port is the port of --serve, which is not given");
                        }
                        OptionalInt port = options.has("--serve")
                                ? OptionalInt.of((int) options.wholeNumber("--port", ServeCommand.DEFAULT_PORT))
                                : OptionalInt.empty();
                        demo.run(options.wholeNumber("--seconds", DEFAULT_SECONDS), options.text("--redis"), port);
                    });
                case "produce" ->
                    command(
                            args,
                            Produce.OPTIONS,
                            out,
                            options -> Produce.of(options).run(out));
                case "worker" ->
                    command(args, WorkerCommand.OPTIONS, out, options -> {
                        WorkerCommand worker = WorkerCommand.of(options);
                        lifetime.runUntilStopped(() -> worker.start(out, err));
                    });
                case "serve" ->
                    command(args, ServeCommand.OPTIONS, out, options -> {
                        ServeCommand serve = ServeCommand.of(options);
                        lifetime.runUntilStopped(() -> serve.start(out));
                    });
                case "stats" ->
                    command(
                            args,
                            Stats.OPTIONS,
                            out,
                            options -> Stats.of(options).run(out));
                default -> {
                    AdminCommands.Command admin = AdminCommands.named(args[0]);
                    if (admin == null) {
                        throw new UsageException("unknown command '" + args[0] + "' (commands: demo, produce, worker,"
                                + " serve, stats, " + String.join(", ", AdminCommands.names()) + ", help)");
                    }
                    command(
                            args,
                            admin.options(),
                            admin.positional(),
                            out,
                            options -> AdminCommands.run(admin, options, out));
                }
            }
            return 0;
        } catch (UsageException | IllegalArgumentException e) {
            // an option the command line got wrong, or a value the engine refused: a bad queue name, a bad URL
            return fail(err, USAGE_ERROR, e.getMessage());
        } catch (RuntimeException e) {
            // Redis unreachable or refusing (SluiceException), or anything else that kept the command from its work
            return fail(err, FAILURE, e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    /** What a command does with its options. */
    @FunctionalInterface
    private interface Body {
        void run(Options options) throws UsageException, InterruptedException;
    }

    /** Command {@code args[0]} with the options {@code args} give it: the usage for {@code --help}, else {@code body}. */
    private static void command(String[] args, List<Option> allowed, PrintStream out, Body body)
            throws UsageException, InterruptedException {
        command(args, allowed, null, out, body);
    }

    /** As above, for a command that takes {@code positional} (null: none). */
    private static void command(String[] args, List<Option> allowed, Positional positional, PrintStream out, Body body)
            throws UsageException, InterruptedException {
        Options options = Options.parse(args[0], allowed, positional, args, 1);
        if (options.helpRequested()) {
            out.print(USAGE);
        } else {
            body.run(options);
        }
    }

    private static final List<Option> DEMO_OPTIONS = List.of(
            Option.wholeNumber("--seconds", "N", 1, 3600),
            QueueCommands.REDIS,
            Option.flag("--serve"),
            Option.wholeNumber("--port", "P", 0, 65_535));

    /** An engine on the Redis at {@code url}, under a key prefix of its own, so that no earlier run's state counts. */
    private static Sluice onRedis(String url) {
        return RedisSluice.builder()
                .url(url)
                .keyPrefix("sluice-demo-" + ProcessHandle.current().pid() + "-" + System.currentTimeMillis())
                .build();
    }

    /** Prints {@code problem} as one line on {@code err} and returns {@code status}. */
    private static int fail(PrintStream err, int status, String problem) {
        err.println("sluice: " + problem.strip().replaceAll("\\s*\\R\\s*", " "));
        err.flush();
        return status;
    }
}
