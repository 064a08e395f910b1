package dev.sluice.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.Sluice;
import dev.sluice.demo.Options.Option;
import dev.sluice.demo.Options.UsageException;
import dev.sluice.limit.RatePolicy;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.redis.RedisSluice;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the commands on a Redis queue share: the options that name the queue, opening it (creating it, for {@code
 * produce} and {@code worker}; only if it exists, for the others), rates written {@code N/DURATION}, and one-line
 * JSON.
 */
final class QueueCommands {
    static final Option REDIS = Option.text("--redis", "URL", "a Redis URL such as redis://localhost:6379");
    static final Option QUEUE = Option.text("--queue", "NAME", "the queue's name: letters, digits, . _ : -");

    /** What a rate option allows, for messages. */
    static final String RATE_ALLOWED = "N/DURATION, N from 1 to 1000000 and DURATION a whole number of ms, s,"
            + " m or h up to a day (10/1s, 500/1m; 10/s for 10/1s)";

    /** The most queue names a message that a queue does not exist lists. */
    static final int LISTED_QUEUES = 20;

    private static final Pattern RATE = Pattern.compile("(\\d{1,7})/(\\d{0,9})(ms|s|m|h)");
    private static final Duration LONGEST_RATE_WINDOW = Duration.ofDays(1);
    private static final ObjectMapper JSON = new ObjectMapper();

    private QueueCommands() {}

    /** The engine on the Redis at {@code url}, connected. */
    static Sluice connect(String url) {
        return RedisSluice.builder().url(url).build();
    }

    /** Queue {@code name} of {@code sluice}, as the commands open it: payloads are UTF-8 text. */
    static JobQueue<String> open(Sluice sluice, String name) {
        return sluice.queue(name, Codec.utf8());
    }

    /**
     * Queue {@code name} of {@code sluice} if it exists, opened without creating or changing anything, whatever its
     * codec (payloads read as bytes).
     *
     * @throws CommandFailure if it does not exist, naming the queues that do
     * @throws IllegalArgumentException if the name is malformed
     */
    static JobQueue<?> existing(Sluice sluice, String name) {
        Optional<JobQueue<?>> queue = sluice.existingQueue(name);
        if (queue.isEmpty()) {
            throw new CommandFailure(doesNotExist(name, sluice.queueNames()));
        }
        return queue.get();
    }

    /**
     * The problem of queue {@code name}, which does not exist, with the names of the queues that do: the first
     * {@link #LISTED_QUEUES}, and how many more.
     */
    static String doesNotExist(String name, List<String> queues) {
        String known;
        if (queues.isEmpty()) {
            known = "no queues";
        } else {
            known = "queues: " + String.join(", ", queues.subList(0, Math.min(LISTED_QUEUES, queues.size())));
            if (queues.size() > LISTED_QUEUES) {
                known += " and " + (queues.size() - LISTED_QUEUES) + " more";
            }
        }
        return "queue '" + name + "' does not exist (" + known + ")";
    }

    /** Work a command could not do, though its command line was right: the message says why, in one line. */
    static final class CommandFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CommandFailure(String problem) {
            super(problem);
        }
    }

    /**
     * The rate option {@code name} gives, {@code N/DURATION}: at most N starts in any span of DURATION (a
     * sliding-window log, exact in every window), or null if it is not given.
     *
     * @throws UsageException if it is not a rate written so
     */
    static RatePolicy rate(Options options, String name) throws UsageException {
        String text = options.text(name);
        if (text == null) {
            return null;
        }
        Matcher m = RATE.matcher(text);
        if (m.matches()) {
            long limit = Long.parseLong(m.group(1));
            long amount = m.group(2).isEmpty() ? 1 : Long.parseLong(m.group(2));
            Duration window = switch (m.group(3)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                default -> Duration.ofHours(amount);
            };
            if (limit >= 1 && limit <= 1_000_000 && window.isPositive() && window.compareTo(LONGEST_RATE_WINDOW) <= 0) {
                return SlidingWindowLog.of(limit, window);
            }
        }
        throw options.invalid(name, text);
    }

    /** A new JSON object, to fill and {@link #line print}. */
    static ObjectNode object() {
        return JSON.createObjectNode();
    }

    /** {@code object} as one line of JSON. */
    static String line(ObjectNode object) {
        try {
            return JSON.writeValueAsString(object);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + object + " as JSON", e);
        }
    }
}
