package dev.sluice.internal.queue;

import dev.sluice.internal.limit.Limits;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobState;
import dev.sluice.queue.NewJob;
import dev.sluice.queue.Processor;
import dev.sluice.queue.QueueFullException;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Result;
import dev.sluice.queue.Schedule;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.DurationText;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;

/**
 * The checks and conversions every engine's queue applies before it touches its state, so that bad input gets
 * the same message from each: a job's resolved options and encoded payload, and the arguments of the calls.
 */
public final class QueueChecks {
    private QueueChecks() {}

    /** A job checked and encoded, before the engine takes it: its id, name, payload bytes and resolved options. */
    public record Prepared(String id, String name, byte[] payload, JobOptions options) {}

    /**
     * The exception for a producer of queue {@code queue} interrupted while it waited for room, after {@code full}
     * refused its add; the interrupt is kept set.
     */
    public static QueueFullException interruptedWaitingForRoom(
            String queue, QueueFullException full, InterruptedException cause) {
        Thread.currentThread().interrupt();
        QueueFullException interrupted = new QueueFullException(
                queue,
                full.group(),
                full.maxQueued(),
                full.getMessage() + "; the producer was interrupted while it waited for room");
        interrupted.initCause(cause);
        return interrupted;
    }

    /**
     * Checks and encodes {@code job} of a queue with {@code queueOptions}: its options merged with the queue's job
     * defaults, its payload encoded by {@code codec}.
     *
     * @param index its place in a bulk, or -1 for a single add (the message says which)
     * @throws IllegalArgumentException for de-duplication without an id, an id reserved for repeatable jobs' runs,
     *     a payload the codec refuses, or one bigger than the queue's {@code maxPayloadBytes}
     */
    public static <T> Prepared prepare(NewJob<T> job, int index, QueueOptions queueOptions, Codec<T> codec) {
        String where = index < 0 ? "job '" + job.name() + "'" : "job " + index + " ('" + job.name() + "') of the bulk";
        String suffix = index < 0 ? "" : "; nothing was added";
        JobOptions given = job.options();
        JobOptions defaults = queueOptions.jobDefaults();
        JobOptions resolved = given == JobOptions.empty() ? defaults : given.orElse(defaults);
        if (resolved.jobId() != null && resolved.jobId().startsWith(RepeatPlanner.RUN_ID_PREFIX)) {
            throw new IllegalArgumentException(where + " has job id '" + resolved.jobId()
                    + "', but ids beginning with '"
                    + RepeatPlanner.RUN_ID_PREFIX + "' are reserved for the runs of repeatable jobs; choose another id"
                    + suffix);
        }
        if (resolved.deduplicateFor() != null && resolved.jobId() == null) {
            throw new IllegalArgumentException(
                    where + " sets deduplicateFor without a jobId; de-duplication needs the producer's id" + suffix);
        }
        byte[] payload = encode(codec, job.payload(), where, suffix);
        if (payload.length > queueOptions.maxPayloadBytes()) {
            throw new IllegalArgumentException("the payload of " + where + " is " + payload.length
                    + " bytes encoded, more than the queue's maxPayloadBytes " + queueOptions.maxPayloadBytes()
                    + " (QueueOptions.builder().maxPayloadBytes, 1 to " + QueueOptions.MAX_PAYLOAD_BYTES
                    + "); nothing was added");
        }
        return new Prepared(resolved.jobId(), job.name(), payload, resolved);
    }

    private static <T> byte[] encode(Codec<T> codec, T payload, String where, String suffix) {
        byte[] bytes;
        try {
            bytes = codec.encode(payload);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "the payload of " + where + " cannot be encoded by " + codec + ": " + e.getMessage() + suffix, e);
        }
        if (bytes == null) {
            throw new IllegalArgumentException(
                    "the payload of " + where + " cannot be encoded: " + codec + " returned null" + suffix);
        }
        return bytes;
    }

    /** Leaves room in a run's id, {@code repeat:<id>:<epoch millis>}, for the prefix and the time. */
    private static final int MAX_REPEAT_ID_LENGTH = JobOptions.MAX_NAME_LENGTH - 32;

    /** The arguments of {@code repeat(id, schedule, template)}. */
    public static void checkRepeat(String id, Schedule schedule, NewJob<?> template) {
        if (id == null || id.isEmpty() || id.length() > MAX_REPEAT_ID_LENGTH) {
            throw new IllegalArgumentException("repeatable job id must be 1 to " + MAX_REPEAT_ID_LENGTH
                    + " characters (its runs' ids add a prefix and a time), was "
                    + (id == null ? "null" : id.isEmpty() ? "empty" : id.length() + " characters"));
        }
        if (schedule == null) {
            throw new IllegalArgumentException("schedule of repeatable job '" + id + "' must not be null");
        }
        if (template == null) {
            throw new IllegalArgumentException("template of repeatable job '" + id + "' must not be null");
        }
        if (template.options().jobId() != null) {
            throw new IllegalArgumentException("template of repeatable job '" + id
                    + "' must not set a jobId: each run gets its own id, repeat:" + id + ":<epoch millis>");
        }
    }

    /** Rejects a null bulk or a null job in it, naming its place. */
    public static <T> void checkBulk(List<NewJob<T>> jobs) {
        if (jobs == null) {
            throw new IllegalArgumentException("jobs must not be null");
        }
        for (int i = 0; i < jobs.size(); i++) {
            if (jobs.get(i) == null) {
                throw new IllegalArgumentException("job " + i + " of the bulk is null; nothing was added");
            }
        }
    }

    /** The arguments of {@code queue(name, codec, options)} of an engine. */
    public static void checkQueue(String name, Codec<?> codec, QueueOptions options) {
        Limits.checkName("queue", name);
        if (codec == null) {
            throw new IllegalArgumentException("codec of queue '" + name + "' must not be null; use Codec.utf8()");
        }
        checkCodecName(codec.name(), "codec " + codec.getClass().getName() + " of queue '" + name + "'");
        if (options == null) {
            throw new IllegalArgumentException(
                    "options of queue '" + name + "' must not be null; use QueueOptions.defaults()");
        }
    }

    /** Rejects a codec name that is null, blank or longer than {@link Codec#MAX_NAME_LENGTH}. */
    private static void checkCodecName(String codecName, String what) {
        if (codecName == null || codecName.isBlank() || codecName.length() > Codec.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(what + ": its name must be 1 to " + Codec.MAX_NAME_LENGTH
                    + " characters, not blank, was "
                    + (codecName == null
                            ? "null"
                            : codecName.isEmpty()
                                    ? "empty"
                                    : codecName.isBlank() ? "blank" : codecName.length() + " characters"));
        }
    }

    /** The error of opening queue {@code name}, which {@code state} with codec {@code had}, with codec {@code given}. */
    public static IllegalArgumentException otherCodec(String name, String state, String had, String given) {
        return new IllegalArgumentException("queue '" + name + "' " + state + " with codec named '" + had
                + "'; it cannot be opened with codec named '" + given + "' (a codec's identity is Codec.name())");
    }

    /** Why job {@code id}, in {@code state}, cannot be promoted. */
    public static IllegalStateException notDelayed(String queue, String id, JobState state) {
        return new IllegalStateException(
                "job '" + id + "' of queue '" + queue + "' is " + state + "; only a DELAYED job can be promoted");
    }

    /** Why a queue with {@code workers} attached is not obliterated. */
    public static IllegalStateException workersAttached(String queue, List<String> workers) {
        return new IllegalStateException("queue '" + queue + "' has " + workers.size() + " worker"
                + (workers.size() == 1 ? "" : "s") + " attached (" + String.join(", ", workers)
                + "); close them first, or obliterate with force");
    }

    /** Why an obliterated queue refuses a call. */
    public static IllegalStateException obliterated(String queue) {
        return new IllegalStateException("queue '" + queue + "' was obliterated; open it again to create it anew");
    }

    /** Rejects a null listener. */
    public static void checkListener(Object listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
    }

    /** Rejects a null job id, as every call taking one does. */
    public static void checkJobId(String id) {
        if (id == null) {
            throw new IllegalArgumentException("job id must not be null");
        }
    }

    /**
     * Rejects a malformed group name for {@code call}, which changes a named group's own limits: the ungrouped jobs
     * (group null) have none of their own.
     */
    public static void checkNamedGroup(String group, String call) {
        if (group == null) {
            throw new IllegalArgumentException(call + " needs a group's name, was null: the ungrouped jobs (group null)"
                    + " run under the group defaults; change them with setGroupDefaults");
        }
        JobOptions.builder().group(group);
    }

    /** Rejects a malformed group name, as a job's options do; null names the ungrouped jobs. */
    public static void checkLookedUpGroup(String group) {
        if (group != null) {
            JobOptions.builder().group(group);
        }
    }

    /** The most groups one page of {@code groups(prefix, after, limit)} holds. */
    public static final int MOST_GROUPS_PER_PAGE = 1_000;

    /** The arguments of {@code groups(prefix, after, limit)}. */
    public static void checkGroupPage(String prefix, int limit) {
        if (prefix == null) {
            throw new IllegalArgumentException("group prefix must not be null; use \"\" for every group");
        }
        if (limit < 1 || limit > MOST_GROUPS_PER_PAGE) {
            throw new IllegalArgumentException(
                    "group page limit must be 1 to " + MOST_GROUPS_PER_PAGE + ", was " + limit);
        }
    }

    /** Of {@code names}, sorted, those of the page {@code groups(prefix, after, limit)} asks for. */
    public static List<String> groupPage(List<String> names, String prefix, String after, int limit) {
        List<String> page = new java.util.ArrayList<>();
        for (String name : names) {
            if (name.startsWith(prefix) && (after == null || name.compareTo(after) > 0)) {
                page.add(name);
                if (page.size() == limit) {
                    break;
                }
            }
        }
        return page;
    }

    /** The arguments of {@code jobs(state, offset, limit)}. */
    public static void checkPage(JobState state, int offset, int limit) {
        if (state == null) {
            throw new IllegalArgumentException("state must be one of " + List.of(JobState.values()) + ", was null");
        }
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be 0 or more, was " + offset);
        }
        if (limit < 1 || limit > 10_000) {
            throw new IllegalArgumentException("limit must be between 1 and 10000, was " + limit);
        }
    }

    /**
     * The arguments of {@code jobs(state, cursor, limit)}.
     *
     * @return the cursor read, or null for the first page
     */
    public static JobCursor checkCursorPage(JobState state, String cursor, int limit) {
        checkPage(state, 0, limit);
        return JobCursor.read(cursor, state);
    }

    /** The arguments of {@code clean(state, age)}. */
    public static void checkClean(JobState state, Duration age) {
        if (state != JobState.COMPLETED && state != JobState.FAILED) {
            throw new IllegalArgumentException("clean removes COMPLETED or FAILED jobs, was " + state);
        }
        if (age == null || age.isNegative()) {
            throw new IllegalArgumentException("age must be zero or positive, was " + DurationText.format(age));
        }
    }

    /** The state {@code retry(id, from)} takes a job from. */
    public static void checkRetryFrom(JobState from) {
        if (from != JobState.FAILED && from != JobState.COMPLETED) {
            throw new IllegalArgumentException("retry takes a job that is FAILED or COMPLETED, was " + from);
        }
    }

    /** The arguments of {@code awaitIdle(timeout)}. */
    public static void checkAwaitIdle(Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException(
                    "awaitIdle timeout must be zero or positive, was " + DurationText.format(timeout));
        }
    }

    /** The arguments of {@code awaitListeners(timeout)}; the timeout in nanoseconds, at most Long.MAX_VALUE. */
    public static long checkAwaitListeners(Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            throw new IllegalArgumentException(
                    "awaitListeners timeout must be zero or positive, was " + DurationText.format(timeout));
        }
        return timeout.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? Long.MAX_VALUE : timeout.toNanos();
    }

    /** The arguments of {@code worker(processor, options)} on queue {@code queue}. */
    public static void checkWorker(String queue, Processor<?> processor, WorkerOptions options) {
        if (processor == null) {
            throw new IllegalArgumentException("processor of a worker on queue '" + queue + "' must not be null");
        }
        if (options == null) {
            throw new IllegalArgumentException("worker options must not be null; use WorkerOptions.concurrency(n)");
        }
    }

    /** The deadline of a worker's close. */
    public static void checkCloseDeadline(Duration deadline) {
        if (deadline == null || deadline.isNegative()) {
            throw new IllegalArgumentException(
                    "close deadline must be zero or positive, was " + DurationText.format(deadline));
        }
    }

    /** Why an attempt that threw {@code e} failed: its message, or its class when it has none. */
    public static String reasonOf(Throwable e) {
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getName() : message;
    }

    /** The stack trace of {@code error}, as a failed job keeps it. */
    public static String stackTrace(Throwable error) {
        StringWriter trace = new StringWriter();
        error.printStackTrace(new PrintWriter(trace));
        return trace.toString();
    }

    /** What a processor that returned null is told. */
    public static final String NULL_RESULT = "processor returned null, a mistake in the processor that another"
            + " attempt would repeat, so the job failed without a retry; return Result.done(), Result.done(value),"
            + " Result.runAgainAfter(delay) or Result.rateLimited(...), or throw to have the attempt retried";

    /** Fails unless the arguments of {@code JobContext.quota} are valid; returns {@code resetIn} in nanoseconds. */
    public static long checkQuota(Result.Scope scope, long remaining, Duration resetIn) {
        if (scope == null) {
            throw new IllegalArgumentException("quota scope must be GROUP or QUEUE, was null");
        }
        if (remaining < 0) {
            throw new IllegalArgumentException("quota remaining must be 0 or more, was " + remaining);
        }
        if (resetIn == null || resetIn.isNegative() || resetIn.isZero()) {
            throw new IllegalArgumentException("quota resetIn must be a duration above 0, was "
                    + (resetIn == null ? "null" : DurationText.format(resetIn)));
        }
        return AttemptRules.nanos(resetIn);
    }
}
