package dev.sluice.demo;

import dev.sluice.Sluice;
import dev.sluice.demo.Options.Option;
import dev.sluice.demo.Options.UsageException;
import dev.sluice.queue.Added;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.NewJob;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./sluice produce}: adds N jobs to a Redis queue in bulk and prints a JSON summary, {@code
 * {"added":N,"duplicates":D,"seconds":S}}.
 */
final class Produce {
    /** Jobs per {@code addBulk} call. */
    static final int BATCH = 500;

    /** The name of every job it adds. */
    static final String JOB_NAME = "cli";

    /** The largest payload it makes: the Redis engine's default bound. */
    static final long MAX_PAYLOAD_BYTES = 512 * 1024;

    static final List<Option> OPTIONS = List.of(
            QueueCommands.REDIS,
            QueueCommands.QUEUE,
            Option.wholeNumber("--count", "N", 1, 1_000_000_000),
            Option.text("--group", "G", "a group name"),
            Option.wholeNumber("--groups", "K", 1, 1_000_000),
            Option.wholeNumber("--delay-ms", "D", 0, 31_536_000_000L),
            Option.wholeNumber("--attempts", "A", 1, JobOptions.MAX_ATTEMPTS),
            Option.wholeNumber("--payload-bytes", "B", 0, MAX_PAYLOAD_BYTES),
            Option.text("--id-prefix", "P", "the text before each job's number"));

    private final String redis;
    private final String queue;
    private final long count;
    private final String group;
    private final long groups;
    private final long delayMillis;
    private final long attempts;
    private final String payload;
    private final String idPrefix;

    private Produce(Options options) throws UsageException {
        redis = options.required("--redis");
        queue = options.required("--queue");
        count = options.requiredWholeNumber("--count");
        if (options.has("--group") && options.has("--groups")) {
            throw new UsageException(
                    "--group and --groups cannot be given together: one group, or K groups g0..g(K-1)");
        }
        group = options.text("--group");
        groups = options.wholeNumber("--groups", 0);
        delayMillis = options.wholeNumber("--delay-ms", 0);
        attempts = options.wholeNumber("--attempts", 0);
        payload = "x".repeat((int) options.wholeNumber("--payload-bytes", 100));
        idPrefix = options.text("--id-prefix");
    }

    /** The command as {@code options} give it, checked before anything connects. */
    static Produce of(Options options) throws UsageException {
        return new Produce(options);
    }

    /** Adds the jobs, {@link #BATCH} at a time, and prints the summary on {@code out}. */
    void run(PrintStream out) {
        try (Sluice sluice = QueueCommands.connect(redis)) {
            JobQueue<String> jobs = QueueCommands.open(sluice, queue);
            long added = 0;
            long duplicates = 0;
            long began = System.nanoTime();
            for (long from = 0; from < count; from += BATCH) {
                List<NewJob<String>> batch = new ArrayList<>(BATCH);
                for (long i = from; i < Math.min(count, from + BATCH); i++) {
                    batch.add(new NewJob<>(JOB_NAME, payload, options(i)));
                }
                for (Added<String> result : jobs.addBulk(batch)) {
                    if (result.duplicate()) {
                        duplicates++;
                    } else {
                        added++;
                    }
                }
            }
            double seconds = (System.nanoTime() - began) / 1e9;
            out.println(QueueCommands.line(QueueCommands.object()
                    .put("added", added)
                    .put("duplicates", duplicates)
                    .put("seconds", Math.round(seconds * 1000) / 1000.0)));
            out.flush();
        }
    }

    /** The options of job {@code i}: its group, delay, attempts and id as the command line says. */
    private JobOptions options(long i) {
        JobOptions.Builder options = JobOptions.builder();
        if (group != null) {
            options.group(group);
        } else if (groups > 0) {
            options.group("g" + i % groups);
        }
        if (delayMillis > 0) {
            options.delay(Duration.ofMillis(delayMillis));
        }
        if (attempts > 0) {
            options.attempts((int) attempts);
        }
        if (idPrefix != null) {
            options.jobId(idPrefix + i);
        }
        return options.build();
    }
}
