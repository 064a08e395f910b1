package dev.sluice.server.internal;

import dev.sluice.queue.Backoff;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.QueueOptions;
import dev.sluice.queue.Retention;
import java.time.Duration;

/**
 * A queue's options as the configuration file writes them: the keys of {@link QueueOptions}, {@link GroupLimits}
 * and {@link JobOptions} under their Java names, durations as text, rates as {@link Policies#rate}.
 */
public final class QueueConfig {
    private static final int MOST = Integer.MAX_VALUE;
    private static final Duration SHORTEST = Duration.ofNanos(1);
    /** The longest duration a job's option takes here: a century is beyond any use and within every bound. */
    private static final Duration LONGEST = Duration.ofDays(36_500);

    private QueueConfig() {}

    /** The options {@code node} declares; every key left out keeps its default. */
    public static QueueOptions options(ConfigNode node) {
        if (node.present() && !node.isMapping()) {
            throw node.invalid("a mapping of the queue's options");
        }
        node.only(
                "maxQueued",
                "whenFull",
                "blockFor",
                "rate",
                "concurrency",
                "maxPayloadBytes",
                "groupDefaults",
                "jobDefaults");
        QueueOptions.Builder options = QueueOptions.builder()
                .maxQueued((int) node.get("maxQueued").whole(1, MOST, QueueOptions.DEFAULT_MAX_QUEUED))
                .concurrency((int) node.get("concurrency").whole(1, MOST, MOST))
                .maxPayloadBytes((int) node.get("maxPayloadBytes")
                        .whole(1, QueueOptions.MAX_PAYLOAD_BYTES, QueueOptions.DEFAULT_MAX_PAYLOAD_BYTES));
        String whenFull = node.get("whenFull").choice("reject", "reject", "block");
        ConfigNode blockFor = node.get("blockFor");
        if (blockFor.present() != whenFull.equals("block")) {
            throw blockFor.problem(
                    "blockFor (how long an add waits for room) is needed with whenFull: block, and" + " only then");
        }
        if (whenFull.equals("block")) {
            options.whenFull(QueueOptions.WhenFull.block(blockFor.requiredDuration(SHORTEST, LONGEST)));
        }
        if (node.get("rate").present()) {
            options.rate(Policies.rate(node.get("rate")));
        }
        options.groupDefaults(groupLimits(node.get("groupDefaults")));
        options.jobDefaults(jobDefaults(node.get("jobDefaults")));
        return node.made(options::build);
    }

    private static GroupLimits groupLimits(ConfigNode node) {
        node.only("rate", "concurrency", "maxQueued");
        GroupLimits.Builder limits = GroupLimits.builder()
                .concurrency((int) node.get("concurrency").whole(1, MOST, MOST))
                .maxQueued((int) node.get("maxQueued").whole(1, MOST, MOST));
        if (node.get("rate").present()) {
            limits.rate(Policies.rate(node.get("rate")));
        }
        return node.made(limits::build);
    }

    private static JobOptions jobDefaults(ConfigNode node) {
        node.only(
                "delay",
                "attempts",
                "backoff",
                "priority",
                "timeout",
                "keepCompleted",
                "keepFailed",
                "deduplicateFor",
                "maxRateLimits");
        JobOptions defaults = JobOptions.defaults();
        JobOptions.Builder options = JobOptions.builder()
                .delay(node.get("delay").duration(Duration.ZERO, LONGEST, defaults.delay()))
                .attempts((int) node.get("attempts").whole(1, JobOptions.MAX_ATTEMPTS, defaults.attempts()))
                .priority((int) node.get("priority").whole(Integer.MIN_VALUE, MOST, defaults.priority()))
                .maxRateLimits((int) node.get("maxRateLimits").whole(0, MOST, defaults.maxRateLimits()))
                .keepCompleted(retention(node.get("keepCompleted"), defaults.keepCompleted()))
                .keepFailed(retention(node.get("keepFailed"), defaults.keepFailed()));
        if (node.get("backoff").present()) {
            options.backoff(backoff(node.get("backoff")));
        }
        if (node.get("timeout").present()) {
            options.timeout(node.get("timeout").requiredDuration(SHORTEST, LONGEST));
        }
        if (node.get("deduplicateFor").present()) {
            options.deduplicateFor(node.get("deduplicateFor").requiredDuration(SHORTEST, LONGEST));
        }
        return node.made(options::build);
    }

    /** {@code all}, {@code none}, or {@code {maxCount: N, maxAge: DURATION}} (either or both). */
    private static Retention retention(ConfigNode node, Retention ifAbsent) {
        String allowed = "all, none, or a mapping with maxCount (0 to " + MOST + ") and/or maxAge (a duration)";
        if (!node.present()) {
            return ifAbsent;
        }
        if (!node.isMapping()) {
            return switch (node.choice(null, "all", "none")) {
                case "all" -> Retention.keepAll();
                default -> Retention.keepNone();
            };
        }
        node.only("maxCount", "maxAge");
        if (!node.get("maxCount").present() && !node.get("maxAge").present()) {
            throw node.invalid(allowed);
        }
        int count = (int) node.get("maxCount").whole(0, MOST, MOST);
        Duration age = node.get("maxAge").duration(SHORTEST, LONGEST, null);
        return node.made(() -> new Retention(count, age));
    }

    /** {@code {type: none | fixed | exponential | exponential-jitter, delay | base and cap}}. */
    private static Backoff backoff(ConfigNode node) {
        if (!node.isMapping()) {
            throw node.invalid("a mapping with type (none, fixed, exponential, exponential-jitter) and its"
                    + " durations (delay for fixed; base and cap for the exponential ones)");
        }
        String type = node.get("type").requiredText("one of none, fixed, exponential, exponential-jitter");
        node.get("type").choice(null, "none", "fixed", "exponential", "exponential-jitter");
        return switch (type) {
            case "none" -> {
                node.only("type");
                yield Backoff.none();
            }
            case "fixed" -> {
                node.only("type", "delay");
                yield node.made(() -> Backoff.fixed(node.get("delay").requiredDuration(Duration.ZERO, LONGEST)));
            }
            default -> {
                node.only("type", "base", "cap");
                Duration base = node.get("base").requiredDuration(SHORTEST, LONGEST);
                Duration cap = node.get("cap").requiredDuration(SHORTEST, LONGEST);
                yield node.made(() -> type.equals("exponential")
                        ? Backoff.exponential(base, cap)
                        : Backoff.exponentialWithJitter(base, cap));
            }
        };
    }
}
