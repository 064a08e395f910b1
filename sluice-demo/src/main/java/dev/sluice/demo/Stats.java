package dev.sluice.demo;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.Sluice;
import dev.sluice.demo.Options.UsageException;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueStats;
import dev.sluice.server.internal.JobJson;
import java.io.PrintStream;
import java.util.List;

/**
 * {@code ./sluice stats}: one JSON object with a Redis queue's {@code counts} by state (the jobs it holds now), its
 * {@code totals} since it was created (added, completed, failed), its throughput ({@code completedPerSecond} over
 * the last minute) and latencies ({@code waitTime}, {@code processingTime}), for the queue, for its ungrouped jobs,
 * and for each group whose statistics the queue keeps ({@link JobQueue#groups()}); and whether the queue is paused.
 * A queue that does not exist is a failure, and nothing is created for it.
 */
final class Stats {
    static final List<Options.Option> OPTIONS = List.of(QueueCommands.REDIS, QueueCommands.QUEUE);

    private final String redis;
    private final String queue;

    private Stats(String redis, String queue) {
        this.redis = redis;
        this.queue = queue;
    }

    /** The command as {@code options} give it, checked before anything connects. */
    static Stats of(Options options) throws UsageException {
        return new Stats(options.required("--redis"), options.required("--queue"));
    }

    /** Reads the statistics and prints them on {@code out}. */
    void run(PrintStream out) {
        try (Sluice sluice = QueueCommands.connect(redis)) {
            JobQueue<?> jobs = QueueCommands.existing(sluice, queue);
            ObjectNode all = QueueCommands.object().put("queue", queue).put("paused", jobs.isPaused());
            describe(all, jobs.stats());
            describe(all.putObject("ungrouped"), jobs.stats(null));
            ObjectNode groups = all.putObject("groups");
            for (String group : jobs.groups()) {
                describe(groups.putObject(group), jobs.stats(group));
            }
            out.println(QueueCommands.line(all));
            out.flush();
        }
    }

    private static void describe(ObjectNode node, QueueStats stats) {
        JobJson.putCounts(node, stats.counts());
        JobJson.putStats(node, stats);
    }
}
