package dev.sluice.demo;

import dev.sluice.Sluice;
import dev.sluice.demo.Options.Option;
import dev.sluice.demo.Options.UsageException;
import dev.sluice.limit.RatePolicy;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Processor;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code ./sluice worker}: runs a worker on a Redis queue until it is stopped (SIGTERM or SIGINT, through {@link
 * Main}), then closes it gracefully: running jobs get {@link #CLOSE_DEADLINE} to finish, and those still running
 * then go back to waiting. With {@code --echo} it prints one JSON line for each job this process completed, once
 * Redis has recorded the completion.
 */
final class WorkerCommand {
    /** How long running jobs get to finish when the worker is stopped. */
    static final Duration CLOSE_DEADLINE = Duration.ofSeconds(10);

    static final List<Option> OPTIONS = List.of(
            QueueCommands.REDIS,
            QueueCommands.QUEUE,
            Option.wholeNumber("--concurrency", "C", 1, WorkerOptions.MAX_CONCURRENCY),
            Option.text("--processor", "P", Processors.ALLOWED),
            Option.flag("--echo"),
            Option.text("--rate", "N/DURATION", QueueCommands.RATE_ALLOWED),
            Option.text("--group-rate", "N/DURATION", QueueCommands.RATE_ALLOWED),
            Option.wholeNumber("--group-concurrency", "K", 1, Integer.MAX_VALUE),
            Option.wholeNumber("--lease-ms", "L", 1_000, Duration.ofDays(1).toMillis()));

    private final String redis;
    private final String queue;
    private final int concurrency;
    private final String processorSpec;
    private final Processor<String> processor;
    private final boolean echo;
    private final RatePolicy rate;
    private final RatePolicy groupRate;
    private final int groupConcurrency;
    private final Duration lease;

    private WorkerCommand(Options options) throws UsageException {
        redis = options.required("--redis");
        queue = options.required("--queue");
        concurrency = (int) options.wholeNumber("--concurrency", 1);
        String spec = options.text("--processor");
        processorSpec = spec == null ? "noop" : spec;
        try {
            processor = Processors.parse(processorSpec);
        } catch (IllegalArgumentException e) {
            throw options.invalid("--processor", processorSpec);
        }
        echo = options.has("--echo");
        rate = QueueCommands.rate(options, "--rate");
        groupRate = QueueCommands.rate(options, "--group-rate");
        groupConcurrency = (int) options.wholeNumber("--group-concurrency", 0);
        lease = Duration.ofMillis(options.wholeNumber("--lease-ms", WorkerOptions.DEFAULT_LEASE_TIME.toMillis()));
    }

    /** The command as {@code options} give it, checked before anything connects. */
    static WorkerCommand of(Options options) throws UsageException {
        return new WorkerCommand(options);
    }

    /** A worker that runs until {@link #stop()}. */
    static final class Running implements Main.Running {
        private final Sluice sluice;
        private final Worker<String> worker;
        private final String id;
        private final PrintStream out;
        private final PrintStream err;
        private boolean stopped;

        private Running(Sluice sluice, Worker<String> worker, String id, PrintStream out, PrintStream err) {
            this.sluice = sluice;
            this.worker = worker;
            this.id = id;
            this.out = out;
            this.err = err;
        }

        /** This process's worker id, {@code host:pid}, as the echoed lines name it. */
        String id() {
            return id;
        }

        /**
         * Closes the worker, giving running jobs {@link #CLOSE_DEADLINE}, then the engine, and says so on
         * standard error; once only.
         */
        @Override
        public synchronized void stop() {
            if (stopped) {
                return;
            }
            stopped = true;
            try {
                Worker.CloseReport report = worker.close(CLOSE_DEADLINE);
                err.println("sluice worker " + id + ": stopped; " + report.finished() + " running jobs finished, "
                        + report.returned() + " sent back to waiting");
            } finally {
                sluice.close();
                out.flush();
                err.flush();
            }
        }
    }

    /**
     * Connects, sets the limits given on the queue (for every process: they live in Redis), and starts the
     * worker.
     */
    Running start(PrintStream out, PrintStream err) {
        Sluice sluice = QueueCommands.connect(redis);
        try {
            JobQueue<String> jobs = QueueCommands.open(sluice, queue);
            if (rate != null) {
                jobs.setRate(rate);
            }
            if (groupRate != null || groupConcurrency > 0) {
                GroupLimits defaults = jobs.groupLimits(null);
                if (groupRate != null) {
                    defaults = defaults.toBuilder().rate(groupRate).build();
                }
                if (groupConcurrency > 0) {
                    defaults =
                            defaults.toBuilder().concurrency(groupConcurrency).build();
                }
                jobs.setGroupDefaults(defaults);
            }
            String id = workerId();
            Processor<String> running = processor;
            if (echo) {
                Echo echoes = new Echo(out, id);
                jobs.addListener(echoes);
                running = echoes.around(processor);
            }
            Worker<String> worker = jobs.worker(
                    running,
                    WorkerOptions.builder()
                            .concurrency(concurrency)
                            .leaseTime(lease)
                            .build());
            err.println("sluice worker " + id + ": working on queue '" + queue + "' (concurrency " + concurrency
                    + ", processor " + processorSpec + "); SIGTERM or Ctrl-C stops it");
            return new Running(sluice, worker, id, out, err);
        } catch (RuntimeException e) {
            sluice.close();
            throw e;
        }
    }

    /** This process's worker id: the host's name and the process id. */
    private static String workerId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            host = "localhost";
        }
        return host + ":" + ProcessHandle.current().pid();
    }

    /**
     * Prints a JSON line for each job this process ran whose completion the engine recorded: the queue tells its
     * listeners after the completion is written. An attempt is known by its job id and start time, so that a job
     * run here whose lease was lost, then completed by another process, is not printed here.
     */
    static final class Echo implements QueueListener<String> {
        private record Attempt(Instant startedAt, int number) {}

        private final ConcurrentHashMap<String, Attempt> running = new ConcurrentHashMap<>();
        private final PrintStream out;
        private final String worker;

        Echo(PrintStream out, String worker) {
            this.out = out;
            this.worker = worker;
        }

        /** {@code processor}, noting each attempt it starts. */
        Processor<String> around(Processor<String> processor) {
            return ctx -> {
                running.put(ctx.job().id(), new Attempt(ctx.job().startedAt(), ctx.attempt()));
                return processor.process(ctx);
            };
        }

        @Override
        public void onCompleted(Job<String> job) {
            Attempt attempt = ended(job);
            if (attempt == null) {
                return;
            }
            String line = QueueCommands.line(QueueCommands.object()
                    .put("id", job.id())
                    .put("group", job.group())
                    .put("attempt", attempt.number())
                    .put("worker", worker)
                    .put("startedAt", attempt.startedAt().toEpochMilli())
                    .put("finishedAt", job.finishedAt().toEpochMilli()));
            synchronized (out) {
                out.println(line);
                out.flush();
            }
        }

        @Override
        public void onFailed(Job<String> job) {
            ended(job);
        }

        @Override
        public void onRetrying(Job<String> job, Throwable error, Duration delay) {
            ended(job);
        }

        @Override
        public void onRateLimited(Job<String> job, Result.Scope scope, Duration retryAfter) {
            ended(job);
        }

        @Override
        public void onRescheduled(Job<String> job, Duration delay) {
            ended(job);
        }

        /** The attempt of this process that {@code job}'s event ended, forgotten; null if it was not one. */
        private Attempt ended(Job<String> job) {
            Attempt[] mine = new Attempt[1];
            running.computeIfPresent(job.id(), (id, attempt) -> {
                if (!attempt.startedAt().equals(job.startedAt())) {
                    return attempt;
                }
                mine[0] = attempt;
                return null;
            });
            return mine[0];
        }
    }
}
