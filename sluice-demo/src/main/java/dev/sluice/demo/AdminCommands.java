package dev.sluice.demo;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.Sluice;
import dev.sluice.demo.Options.Option;
import dev.sluice.demo.Options.Positional;
import dev.sluice.demo.Options.UsageException;
import dev.sluice.demo.QueueCommands.CommandFailure;
import dev.sluice.queue.GroupInfo;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.WorkerInfo;
import dev.sluice.server.internal.JobJson;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The commands that look after the queues of a Redis: {@code queues}, {@code jobs}, {@code job}, {@code retry},
 * {@code remove}, {@code promote}, {@code pause}, {@code resume}, {@code clean}, {@code drain}, {@code obliterate},
 * {@code groups} and {@code workers}. Each checks its command line before it connects, opens the queue it names
 * only if it exists ({@link QueueCommands#existing}), so that a misspelt name writes nothing, and prints JSON: one
 * line per item for the listings, one object for the rest.
 */
final class AdminCommands {
    /** Jobs read per call when {@code jobs --group} filters the jobs of a state. */
    static final int PAGE = 1_000;

    /** The most lines of {@code jobs} and {@code groups}. */
    static final int MAX_LIMIT = 1_000;

    /** How many lines {@code jobs} and {@code groups} print unless told. */
    static final int DEFAULT_LIMIT = 100;

    /** The longest {@code --older-than}. */
    static final Duration LONGEST_AGE = Duration.ofDays(3650);

    static final Positional ID = new Positional("ID", "a job's id");

    private static final Option GROUP = Option.text("--group", "G", "a group name");
    private static final Option LIMIT = Option.wholeNumber("--limit", "N", 1, MAX_LIMIT);
    private static final Pattern AGE = Pattern.compile("(\\d{1,10})(ms|s|m|h|d)");

    /**
     * A command.
     *
     * @param name its name, as the command line gives it
     * @param options the options it takes
     * @param positional the positional argument it takes; null for none
     * @param action what it does
     */
    record Command(String name, List<Option> options, Positional positional, Action action) {}

    /** What a command does with its options. */
    @FunctionalInterface
    interface Action {
        /** Checks {@code options}, before anything connects, and returns the work they ask for. */
        Work prepare(Options options) throws UsageException;
    }

    /** The work of a command, on a connected engine. */
    @FunctionalInterface
    interface Work {
        void run(Sluice sluice, PrintStream out);
    }

    /** The work of a command on one existing queue. */
    @FunctionalInterface
    private interface QueueWork {
        void run(JobQueue<?> queue, PrintStream out);
    }

    private static final Map<String, Command> COMMANDS = new LinkedHashMap<>();

    static {
        add("queues", List.of(QueueCommands.REDIS), null, AdminCommands::queues);
        add(
                "jobs",
                onQueue(
                        Option.text("--state", "STATE", "one of " + JobJson.STATES),
                        GROUP,
                        Option.wholeNumber("--offset", "K", 0, 1_000_000_000),
                        LIMIT),
                null,
                AdminCommands::jobs);
        add("job", onQueue(), ID, AdminCommands::job);
        add("retry", onQueue(Option.flag("--all-failed"), Option.flag("--completed")), ID, AdminCommands::retry);
        add("remove", onQueue(), ID, AdminCommands::remove);
        add("promote", onQueue(), ID, AdminCommands::promote);
        add("pause", onQueue(GROUP), null, options -> pause(options, true));
        add("resume", onQueue(GROUP), null, options -> pause(options, false));
        add(
                "clean",
                onQueue(
                        Option.text("--state", "STATE", "completed or failed"),
                        Option.text(
                                "--older-than",
                                "DURATION",
                                "a whole number of ms, s, m, h or d up to 3650d (10s, 5m, 2h, 1d), or 0")),
                null,
                AdminCommands::clean);
        add("drain", onQueue(Option.flag("--delayed")), null, AdminCommands::drain);
        add("obliterate", onQueue(Option.flag("--force")), null, AdminCommands::obliterate);
        add(
                "groups",
                onQueue(
                        Option.text("--prefix", "P", "the start of group names"),
                        Option.text("--after", "G", "a group name"),
                        LIMIT),
                null,
                AdminCommands::groups);
        add("workers", onQueue(), null, AdminCommands::workers);
    }

    private AdminCommands() {}

    private static void add(String name, List<Option> options, Positional positional, Action action) {
        COMMANDS.put(name, new Command(name, options, positional, action));
    }

    /** {@code --redis URL --queue NAME}, then {@code more}. */
    private static List<Option> onQueue(Option... more) {
        List<Option> options = new ArrayList<>(List.of(QueueCommands.REDIS, QueueCommands.QUEUE));
        options.addAll(List.of(more));
        return List.copyOf(options);
    }

    /** The command called {@code name}, or null if it is none of these. */
    static Command named(String name) {
        return COMMANDS.get(name);
    }

    /** The names of the commands, in the order the usage lists them. */
    static List<String> names() {
        return List.copyOf(COMMANDS.keySet());
    }

    /** Runs {@code command}: checks {@code options}, connects to the Redis they name, does the work, prints. */
    static void run(Command command, Options options, PrintStream out) throws UsageException {
        String redis = options.required("--redis");
        Work work = command.action().prepare(options);
        try (Sluice sluice = QueueCommands.connect(redis)) {
            work.run(sluice, out);
        } finally {
            out.flush();
        }
    }

    /** {@code work} on queue {@code name}, if it exists. */
    private static Work onQueue(String name, QueueWork work) {
        return (sluice, out) -> work.run(QueueCommands.existing(sluice, name), out);
    }

    private static void print(PrintStream out, ObjectNode node) {
        out.println(QueueCommands.line(node));
    }

    /** {@code {"queue":name}}, to add the outcome to. */
    private static ObjectNode outcome(JobQueue<?> queue) {
        return QueueCommands.object().put("queue", queue.name());
    }

    private static Work queues(Options options) {
        return (sluice, out) -> {
            for (String name : sluice.queueNames()) {
                Optional<JobQueue<?>> found = sluice.existingQueue(name);
                if (found.isEmpty()) {
                    continue; // obliterated since it was listed
                }
                JobQueue<?> queue = found.get();
                List<WorkerInfo> workers = queue.workers();
                ObjectNode line = QueueCommands.object().put("name", name).put("paused", queue.isPaused());
                JobJson.putCounts(line, queue.counts());
                line.put("workers", workers.size())
                        .put("busy", workers.stream().mapToInt(WorkerInfo::busy).sum());
                print(out, line);
            }
        };
    }

    private static Work jobs(Options options) throws UsageException {
        String name = options.required("--queue");
        String stateText = options.required("--state");
        JobState state = JobJson.stateNamed(stateText);
        if (state == null) {
            throw options.invalid("--state", stateText);
        }
        String group = options.text("--group");
        int offset = (int) options.wholeNumber("--offset", 0);
        int limit = (int) options.wholeNumber("--limit", DEFAULT_LIMIT);
        return onQueue(name, (queue, out) -> {
            if (group == null) {
                for (Job<?> job : queue.jobs(state, offset, limit)) {
                    print(out, JobJson.summary(job));
                }
                return;
            }
            int skip = offset;
            int printed = 0;
            for (int from = 0; printed < limit; from += PAGE) {
                List<? extends Job<?>> page = queue.jobs(state, from, PAGE);
                for (Job<?> job : page) {
                    if (!group.equals(job.group())) {
                        continue;
                    }
                    if (skip > 0) {
                        skip--;
                    } else if (printed < limit) {
                        print(out, JobJson.summary(job));
                        printed++;
                    }
                }
                if (page.size() < PAGE || from > Integer.MAX_VALUE - 2 * PAGE) {
                    return;
                }
            }
        });
    }

    private static Work job(Options options) throws UsageException {
        String name = options.required("--queue");
        String id = options.requiredPositional();
        return onQueue(name, (queue, out) -> {
            Job<?> job = queue.job(id).orElseThrow(() -> noSuchJob(queue, id));
            print(out, JobJson.detail(job, queue.payloadBytes(id).orElse(null)));
        });
    }

    private static CommandFailure noSuchJob(JobQueue<?> queue, String id) {
        return new CommandFailure("job '" + id + "' of queue '" + queue.name() + "' does not exist");
    }

    private static Work retry(Options options) throws UsageException {
        String name = options.required("--queue");
        String id = options.positional();
        boolean allFailed = options.has("--all-failed");
        boolean completed = options.has("--completed");
        if (allFailed && id != null) {
            throw new UsageException("retry takes ID or --all-failed, not both");
        }
        if (allFailed && completed) {
            throw new UsageException("--completed retries one completed job: give its ID, not --all-failed");
        }
        if (!allFailed && id == null) {
            throw new UsageException("retry needs ID (" + ID.allowed() + ") or --all-failed");
        }
        return onQueue(name, (queue, out) -> {
            if (allFailed) {
                print(out, outcome(queue).put("retried", queue.retryFailed()));
            } else {
                queue.retry(id, completed ? JobState.COMPLETED : JobState.FAILED);
                print(out, outcome(queue).put("id", id).put("retried", true));
            }
        });
    }

    private static Work remove(Options options) throws UsageException {
        String name = options.required("--queue");
        String id = options.requiredPositional();
        return onQueue(name, (queue, out) -> {
            if (!queue.remove(id)) {
                throw noSuchJob(queue, id);
            }
            print(out, outcome(queue).put("id", id).put("removed", true));
        });
    }

    private static Work promote(Options options) throws UsageException {
        String name = options.required("--queue");
        String id = options.requiredPositional();
        return onQueue(name, (queue, out) -> {
            queue.promote(id);
            print(out, outcome(queue).put("id", id).put("promoted", true));
        });
    }

    /** {@code pause} (if {@code pause}) or {@code resume}, of the queue or of one group. */
    private static Work pause(Options options, boolean pause) throws UsageException {
        String name = options.required("--queue");
        String group = options.text("--group");
        return onQueue(name, (queue, out) -> {
            ObjectNode line = outcome(queue);
            if (group != null) {
                line.put("group", group);
            }
            if (pause) {
                if (group == null) {
                    queue.pause();
                } else {
                    queue.pauseGroup(group);
                }
                print(out, line.put("paused", true));
            } else {
                boolean wasPaused;
                if (group == null) {
                    wasPaused = queue.isPaused();
                    queue.resume();
                } else {
                    wasPaused = queue.resumeGroup(group);
                }
                print(out, line.put("paused", false).put("wasPaused", wasPaused));
            }
        });
    }

    private static Work clean(Options options) throws UsageException {
        String name = options.required("--queue");
        String stateText = options.required("--state");
        JobState state = JobJson.stateNamed(stateText);
        if (state != JobState.COMPLETED && state != JobState.FAILED) {
            throw options.invalid("--state", stateText);
        }
        Duration age = age(options, "--older-than");
        return onQueue(name, (queue, out) -> print(out, outcome(queue).put("removed", queue.clean(state, age))));
    }

    /** The duration option {@code name} gives, {@code 10s} or {@code 0}; zero if it is not given. */
    static Duration age(Options options, String name) throws UsageException {
        String text = options.text(name);
        if (text == null || text.equals("0")) {
            return Duration.ZERO;
        }
        Matcher m = AGE.matcher(text);
        if (m.matches()) {
            long amount = Long.parseLong(m.group(1)); // 10 digits at most: no unit overflows
            Duration age = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            };
            if (age.compareTo(LONGEST_AGE) <= 0) {
                return age;
            }
        }
        throw options.invalid(name, text);
    }

    private static Work drain(Options options) throws UsageException {
        String name = options.required("--queue");
        boolean delayed = options.has("--delayed");
        return onQueue(name, (queue, out) -> print(out, outcome(queue).put("removed", queue.drain(delayed))));
    }

    private static Work obliterate(Options options) throws UsageException {
        String name = options.required("--queue");
        boolean force = options.has("--force");
        return onQueue(name, (queue, out) -> {
            queue.obliterate(force);
            print(out, outcome(queue).put("obliterated", true));
        });
    }

    private static Work groups(Options options) throws UsageException {
        String name = options.required("--queue");
        String prefix = options.text("--prefix");
        String after = options.text("--after");
        int limit = (int) options.wholeNumber("--limit", DEFAULT_LIMIT);
        return onQueue(name, (queue, out) -> {
            for (GroupInfo group : queue.groups(prefix == null ? "" : prefix, after, limit)) {
                print(out, JobJson.group(group));
            }
        });
    }

    private static Work workers(Options options) throws UsageException {
        String name = options.required("--queue");
        return onQueue(name, (queue, out) -> {
            for (WorkerInfo worker : queue.workers()) {
                print(out, JobJson.worker(worker));
            }
        });
    }
}
