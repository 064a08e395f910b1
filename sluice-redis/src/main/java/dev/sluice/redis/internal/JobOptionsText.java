package dev.sluice.redis.internal;

import dev.sluice.queue.Backoff;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.Retention;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A job's resolved options as one string stored with the job in Redis, and back. Every value is a token
 * {@code <length>:<text>}, or {@code -} for an unset one; durations are nanoseconds. A custom backoff is a
 * function of this JVM: it is stored as the random identity of this queue object and the function's number among
 * its custom backoffs, and anything else (another process, or this queue opened anew) reads it as {@link
 * #unknownBackoff}, so that no process applies a function other than the one the job was given.
 */
final class JobOptionsText {
    private static final int MAX_CUSTOM_BACKOFFS = 10_000;

    private final String queue;
    private final String origin = Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);
    private final Map<Backoff, Integer> numbers = new IdentityHashMap<>();
    private final List<Backoff> customs = new ArrayList<>();

    JobOptionsText(String queue) {
        this.queue = queue;
    }

    String encode(JobOptions o) {
        StringBuilder out = new StringBuilder(64);
        token(out, o.jobId());
        token(out, o.group());
        token(out, o.delay());
        token(out, o.attempts() == null ? null : o.attempts().toString());
        token(out, o.backoff() == null ? null : backoff(o.backoff()));
        token(out, o.priority() == null ? null : o.priority().toString());
        token(out, o.timeout());
        token(out, o.keepCompleted() == null ? null : retention(o.keepCompleted()));
        token(out, o.keepFailed() == null ? null : retention(o.keepFailed()));
        token(out, o.deduplicateFor());
        token(out, o.maxRateLimits() == null ? null : o.maxRateLimits().toString());
        return out.toString();
    }

    /**
     * Texts decoded lately and their options, at most {@link #MOST_DECODED} (then forgotten all at once): jobs added
     * alike share one text, one per group they are in. A text with a job id of its own is one job's: not kept.
     */
    private final Map<String, JobOptions> decoded = new ConcurrentHashMap<>();

    private static final int MOST_DECODED = 256;

    JobOptions decode(String text) {
        JobOptions options = decoded.get(text);
        if (options != null) {
            return options;
        }
        options = decodeAnew(text);
        if (text.startsWith("-")) {
            if (decoded.size() >= MOST_DECODED) {
                decoded.clear();
            }
            decoded.put(text, options);
        }
        return options;
    }

    private JobOptions decodeAnew(String text) {
        Reader in = new Reader(text);
        JobOptions.Builder b = JobOptions.builder();
        String jobId = in.next();
        if (jobId != null) {
            b.jobId(jobId);
        }
        String group = in.next();
        if (group != null) {
            b.group(group);
        }
        Duration delay = in.duration();
        if (delay != null) {
            b.delay(delay);
        }
        String attempts = in.next();
        if (attempts != null) {
            b.attempts(Integer.parseInt(attempts));
        }
        String backoff = in.next();
        if (backoff != null) {
            b.backoff(backoff(backoff));
        }
        String priority = in.next();
        if (priority != null) {
            b.priority(Integer.parseInt(priority));
        }
        Duration timeout = in.duration();
        if (timeout != null) {
            b.timeout(timeout);
        }
        String keepCompleted = in.next();
        if (keepCompleted != null) {
            b.keepCompleted(retention(keepCompleted));
        }
        String keepFailed = in.next();
        if (keepFailed != null) {
            b.keepFailed(retention(keepFailed));
        }
        Duration window = in.duration();
        if (window != null) {
            b.deduplicateFor(window);
        }
        String maxRateLimits = in.next();
        if (maxRateLimits != null) {
            b.maxRateLimits(Integer.parseInt(maxRateLimits));
        }
        return b.build();
    }

    private String backoff(Backoff backoff) {
        return switch (backoff) {
            case Backoff.Fixed fixed -> "f" + fixed.interval().toNanos();
            case Backoff.Exponential e ->
                "e" + e.base().toNanos() + "," + e.cap().toNanos() + "," + (e.jitter() ? 1 : 0);
            case Backoff.Custom custom -> "c" + origin + "." + number(custom);
        };
    }

    private synchronized int number(Backoff custom) {
        Integer known = numbers.get(custom);
        if (known != null) {
            return known;
        }
        if (customs.size() >= MAX_CUSTOM_BACKOFFS) {
            throw new IllegalArgumentException("queue '" + queue + "' was given more than " + MAX_CUSTOM_BACKOFFS
                    + " distinct custom backoffs; make each Backoff.custom once and reuse it");
        }
        numbers.put(custom, customs.size());
        customs.add(custom);
        return customs.size() - 1;
    }

    private Backoff backoff(String text) {
        char kind = text.charAt(0);
        String rest = text.substring(1);
        if (kind == 'f') {
            long nanos = Long.parseLong(rest);
            return nanos == 0 ? Backoff.none() : Backoff.fixed(Duration.ofNanos(nanos));
        }
        if (kind == 'e') {
            String[] parts = rest.split(",");
            Duration base = Duration.ofNanos(Long.parseLong(parts[0]));
            Duration cap = Duration.ofNanos(Long.parseLong(parts[1]));
            return parts[2].equals("1") ? Backoff.exponentialWithJitter(base, cap) : Backoff.exponential(base, cap);
        }
        int dot = rest.indexOf('.');
        if (dot < 0 || !rest.startsWith(origin) || dot != origin.length()) {
            return unknownBackoff();
        }
        int number = Integer.parseInt(rest.substring(dot + 1));
        synchronized (this) {
            if (number < customs.size()) {
                return customs.get(number);
            }
        }
        return unknownBackoff();
    }

    /**
     * The backoff of a job whose custom backoff was given in another process, or to an earlier opening of this
     * queue: asking it throws, so the failed job fails for good and says why.
     */
    private Backoff unknownBackoff() {
        return Backoff.custom((attempt, error) -> {
            throw new IllegalStateException("the job's custom backoff was given in another process (or an earlier"
                    + " opening) of queue '" + queue + "' and cannot run here; jobs that other processes may retry"
                    + " need a built-in backoff (fixed or exponential)");
        });
    }

    private static String retention(Retention r) {
        return r.maxCount() + ","
                + (r.maxAge() == null ? "" : Long.toString(r.maxAge().toNanos()));
    }

    private static Retention retention(String text) {
        int comma = text.indexOf(',');
        int count = Integer.parseInt(text.substring(0, comma));
        String age = text.substring(comma + 1);
        return new Retention(count, age.isEmpty() ? null : Duration.ofNanos(Long.parseLong(age)));
    }

    static void token(StringBuilder out, Duration d) {
        token(out, d == null ? null : Long.toString(d.toNanos()));
    }

    static void token(StringBuilder out, String value) {
        if (value == null) {
            out.append('-');
        } else {
            out.append(value.length()).append(':').append(value);
        }
    }

    static final class Reader {
        private final String text;
        private int at;

        Reader(String text) {
            this.text = text;
        }

        String next() {
            if (text.charAt(at) == '-') {
                at++;
                return null;
            }
            int colon = text.indexOf(':', at);
            int length = Integer.parseInt(text, at, colon, 10);
            at = colon + 1 + length;
            return text.substring(colon + 1, at);
        }

        Duration duration() {
            String nanos = next();
            return nanos == null ? null : Duration.ofNanos(Long.parseLong(nanos));
        }
    }
}
