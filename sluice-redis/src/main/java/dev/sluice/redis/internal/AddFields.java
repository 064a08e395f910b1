package dev.sluice.redis.internal;

import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.queue.JobOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * The {@value #COUNT} values the queue script's add takes for each new job ({@code queue-add.lua}, insertAt): its
 * id, payload, and what the script decides with in one text (delay, priority, retention count of completed jobs,
 * de-duplication window, a repeatable job's run's scheduled time, group), then its record packed in three parts
 * around the values the script fills in (state, creation, order and due times): the head (name and group), the
 * options text, and the tail (every later value of the record, {@code R_STARTED} to {@code R_SCHEDULED} in
 * queue-state.lua). The record
 * is packed as the script's {@code cmsgpack} would pack it ({@link MessagePackWriter}), so the script joins the parts
 * without decoding or packing a table. Those that follow from the job's options alone are made once for the options
 * used last, so that jobs added alike (the queue's defaults, or one options object for a bulk) share them.
 */
final class AddFields {
    /** How many values a job takes. */
    static final int COUNT = 6;

    /** How many values a job's record holds while it is not active. */
    static final int RECORD_VALUES = 34;

    private static final byte[] NONE = {};

    private final JobOptionsText text;
    private volatile FromOptions last;
    private volatile Head lastHead;

    /** Over {@code text}, the queue's encoding of options. */
    AddFields(JobOptionsText text) {
        this.text = text;
    }

    /** What the script decides with for a job of options {@code options}, its packed options and record's tail. */
    private record FromOptions(JobOptions options, byte[] decides, byte[] packedOptions, byte[] tail) {}

    /** The head of the records of jobs named {@code name} in group {@code group} (null: none). */
    private record Head(String name, String group, byte[] bytes) {}

    /**
     * Writes the values of job {@code p} into {@code args} from {@code at}; a run of repeatable job {@code repeatId}
     * (empty for none) is due at {@code scheduledMicros}.
     *
     * @return where the next job's values go
     */
    int write(byte[][] args, int at, QueueChecks.Prepared p, String repeatId, long scheduledMicros) {
        FromOptions o = of(p.options());
        boolean run = !repeatId.isEmpty();
        args[at++] = p.id() == null ? NONE : bytes(p.id());
        args[at++] = p.payload();
        args[at++] = run ? decides(p.options(), Long.toString(scheduledMicros)) : o.decides();
        args[at++] = head(p.name(), p.options().group());
        args[at++] = o.packedOptions();
        args[at++] = run ? tail(p.options(), repeatId, scheduledMicros) : o.tail();
        return at;
    }

    private FromOptions of(JobOptions options) {
        FromOptions cached = last;
        if (cached != null && cached.options() == options) {
            return cached;
        }
        FromOptions made = new FromOptions(
                options,
                decides(options, ""),
                new MessagePackWriter().string(bytes(text.encode(options))).toBytes(),
                tail(options, "", 0));
        last = made;
        return made;
    }

    /**
     * The text the script decides with, {@code delay|priority|kept|dedup|scheduled|group} (see decided in
     * queue-add.lua): {@code scheduled} is a repeatable job's run's time, empty for other jobs, and the group last,
     * empty for none, so that it may hold any character.
     */
    private static byte[] decides(JobOptions options, String scheduled) {
        return bytes(RedisJobQueue.micros(options.delay())
                + "|" + options.priority()
                + "|" + options.keepCompleted().maxCount()
                + "|" + micros(options.deduplicateFor())
                + "|" + scheduled
                + "|" + (options.group() == null ? "" : options.group()));
    }

    /** The record's array header, name and group. */
    private byte[] head(String name, String group) {
        Head cached = lastHead;
        if (cached != null && cached.name().equals(name) && Objects.equals(cached.group(), group)) {
            return cached.bytes();
        }
        MessagePackWriter out = new MessagePackWriter().array(RECORD_VALUES).string(bytes(name));
        byte[] bytes = (group == null ? out.falseValue() : out.string(bytes(group))).toBytes();
        lastHead = new Head(name, group, bytes);
        return bytes;
    }

    /**
     * The record's values from its start (R_STARTED) on, as a new job holds them: nothing done yet (times,
     * outcomes, attempts, history, token, stalls), then what its options and repeatable job say.
     */
    private static byte[] tail(JobOptions options, String repeatId, long scheduledMicros) {
        MessagePackWriter out = new MessagePackWriter();
        // started, finished, finish (unused), made, rate limits, progress
        for (int i = 0; i < 6; i++) {
            out.integer(0);
        }
        // result, and the failure's reason, class and trace
        for (int i = 0; i < 4; i++) {
            out.falseValue();
        }
        out.integer(0).array(0).integer(0).integer(0).integer(0); // attempts, history, token, stalls, most stalls
        out.integer(options.attempts()).integer(options.priority());
        out.integer(options.keepCompleted().maxCount())
                .integer(micros(options.keepCompleted().maxAge()));
        out.integer(options.keepFailed().maxCount())
                .integer(micros(options.keepFailed().maxAge()));
        out.integer(options.maxRateLimits()).integer(micros(options.deduplicateFor()));
        if (repeatId.isEmpty()) {
            out.falseValue().falseValue();
        } else {
            out.string(bytes(repeatId)).integer(scheduledMicros);
        }
        return out.toBytes();
    }

    private static long micros(Duration d) {
        return d == null ? -1 : RedisJobQueue.micros(d);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
