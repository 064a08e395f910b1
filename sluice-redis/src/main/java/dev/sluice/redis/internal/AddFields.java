package dev.sluice.redis.internal;

import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.Retention;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The {@value #COUNT} values the queue script's add takes for each new job ({@code queue-add.lua}, insertAt): its
 * id, name, group, options text, payload, delay, attempts, priority, retention of completed and of failed jobs
 * (count and age each), most rate limits, de-duplication window, repeatable job and scheduled time. Those that
 * follow from the job's options alone are made once for the options used last, so that jobs added alike (the
 * queue's defaults, or one options object for a bulk) share them.
 */
final class AddFields {
    /** How many values a job takes. */
    static final int COUNT = 16;

    private static final byte[] NONE = {};
    private static final byte[] ZERO = {'0'};

    private final JobOptionsText text;
    private volatile FromOptions last;

    /** Over {@code text}, the queue's encoding of options. */
    AddFields(JobOptionsText text) {
        this.text = text;
    }

    /** The values of options {@code options}, in the order the script takes them, the payload's place left out. */
    private record FromOptions(JobOptions options, byte[][] values) {}

    /**
     * Writes the values of job {@code p} into {@code args} from {@code at}; a run of repeatable job {@code repeatId}
     * (empty for none) is due at {@code scheduledMicros}.
     *
     * @return where the next job's values go
     */
    int write(byte[][] args, int at, QueueChecks.Prepared p, String repeatId, long scheduledMicros) {
        byte[][] o = of(p.options());
        args[at++] = p.id() == null ? NONE : bytes(p.id());
        args[at++] = bytes(p.name());
        args[at++] = o[0];
        args[at++] = o[1];
        args[at++] = p.payload();
        System.arraycopy(o, 2, args, at, o.length - 2);
        at += o.length - 2;
        args[at++] = repeatId.isEmpty() ? NONE : bytes(repeatId);
        args[at++] = scheduledMicros == 0 ? ZERO : bytes(Long.toString(scheduledMicros));
        return at;
    }

    private byte[][] of(JobOptions options) {
        FromOptions cached = last;
        if (cached != null && cached.options() == options) {
            return cached.values();
        }
        byte[][] values = {
            bytes(options.group() == null ? "" : options.group()),
            bytes(text.encode(options)),
            bytes(Long.toString(RedisJobQueue.micros(options.delay()))),
            bytes(Integer.toString(options.attempts())),
            bytes(Integer.toString(options.priority())),
            bytes(Integer.toString(options.keepCompleted().maxCount())),
            age(options.keepCompleted()),
            bytes(Integer.toString(options.keepFailed().maxCount())),
            age(options.keepFailed()),
            bytes(Integer.toString(options.maxRateLimits())),
            micros(options.deduplicateFor())
        };
        last = new FromOptions(options, values);
        return values;
    }

    private static byte[] age(Retention r) {
        return micros(r.maxAge());
    }

    private static byte[] micros(Duration d) {
        return bytes(d == null ? "-1" : Long.toString(RedisJobQueue.micros(d)));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
