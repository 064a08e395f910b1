package dev.sluice.redis.internal;

import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.QueueOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The settings of a queue as this process knows them: those it opened the queue with and those it changed since
 * through the API, each with the stamp the queue script gave the change, and the epoch of the queue's settings in
 * Redis. Should Redis lose them (restarted without persistence, flushed), they are what this process restores
 * ({@code queue-settings.lua} has the protocol). Changes other processes made are not known here: a process that
 * restores alone restores its own, possibly older, values (the latest of each that any restoring process knew of
 * wins).
 *
 * <p>Thread-safe.
 */
final class QueueSettings {
    private static final Logger LOG = LoggerFactory.getLogger(QueueSettings.class);

    /** How many restores one call makes at most: more means Redis keeps losing its data. */
    private static final int MOST_RESTORES_PER_CALL = 3;

    /** The commands that rely on the queue's settings: they carry the epoch as their last argument. */
    private static final Set<String> SETTLED = Set.of("add", "finish", "repSave", "groupLimits");

    private static final byte[] RESTORE = "restore".getBytes(StandardCharsets.UTF_8);

    /** A setting as the script's {@code restore} takes it, and how a person reads it. */
    private record Setting(String value, String stamp, String text) {}

    private final String queue;
    private final String codec;
    private final Map<String, Setting> known = new LinkedHashMap<>();
    private final AtomicInteger restores = new AtomicInteger();
    private volatile String epoch = "";

    /** The settings of queue {@code queue}, opened with codec {@code codec} (its name, as the script stores it). */
    QueueSettings(String queue, String codec) {
        this.queue = queue;
        this.codec = codec;
    }

    /** A new epoch for the script to take where the queue has none: unique, so that no other life has it. */
    static String candidateEpoch() {
        return UUID.randomUUID().toString();
    }

    String epoch() {
        return epoch;
    }

    void epoch(String epoch) {
        this.epoch = epoch;
    }

    /** How many times this process restored the queue's settings (each logged once). */
    int restores() {
        return restores.get();
    }

    /**
     * Notes setting {@code name} as {@code open} or {@code limits} sent it ({@code =} value: set at {@code stamp};
     * {@code ?} value: a default, written only where the queue has none); {@code text} names it for a person.
     */
    synchronized void note(String name, String given, long stamp, String text) {
        boolean set = given.startsWith("=");
        known.put(name, new Setting(given, set ? Long.toString(stamp) : "", set ? text : null));
    }

    /**
     * Notes the settings a process opened the queue with: {@code options}, as {@code open} sent them ({@code given},
     * in its order) and the script stamped them.
     */
    void opened(QueueOptions options, String[] given, long stamp) {
        GroupLimits defaults = options.groupDefaults();
        String[] names = {"concurrency", "maxQueued", "gconc", "gmax", "rate", "grate"};
        String[] texts = {
            "concurrency " + options.concurrency(),
            "maxQueued " + options.maxQueued(),
            "group concurrency " + defaults.concurrency(),
            "group maxQueued " + defaults.maxQueued(),
            "rate " + options.rate(),
            "group rate " + defaults.rate()
        };
        for (int i = 0; i < names.length; i++) {
            note(names[i], given[i], stamp, texts[i]);
        }
    }

    /** {@code arguments}, with the epoch at the end if their command relies on the queue's settings. */
    byte[][] withEpoch(byte[][] arguments) {
        if (!SETTLED.contains(new String(arguments[0], StandardCharsets.UTF_8))) {
            return arguments;
        }
        byte[][] sent = Arrays.copyOf(arguments, arguments.length + 1);
        sent[arguments.length] = epoch.getBytes(StandardCharsets.UTF_8);
        return sent;
    }

    /** The epoch that {@code sent} carries (as {@link #withEpoch} put it). */
    static String epochOf(byte[][] sent) {
        return new String(sent[sent.length - 1], StandardCharsets.UTF_8);
    }

    /** Whether the script refused a call because the epoch it carried is not the queue's. */
    static boolean asksRestore(Object reply) {
        return reply instanceof byte[] bytes && Arrays.equals(bytes, RESTORE);
    }

    /**
     * Restores the settings this process knows, after a call that carried epoch {@code stale} was refused, unless
     * another thread did so meanwhile; {@code restore} calls the script's {@code restore} with the arguments given
     * (after the command and the time) and returns its reply. Logs what it did in one line.
     *
     * @param attempt how many times the refused call was sent
     * @throws IllegalStateException if the call was refused too many times in a row, or Redis lost the queue and
     *     another process opened it anew with another codec
     */
    synchronized void restore(String stale, int attempt, Function<String[], Object> restore) {
        if (!stale.equals(epoch)) {
            return;
        }
        if (attempt > MOST_RESTORES_PER_CALL) {
            throw new IllegalStateException("queue '" + queue + "': its settings went missing from Redis " + attempt
                    + " times in a row while this process restored them; is something deleting the queue's keys?");
        }
        List<Object> reply = Replies.list(restore.apply(restoreArguments()));
        String stored = Replies.text(reply.get(1));
        if (!stored.equals(codec)) {
            throw new IllegalStateException("queue '" + queue + "' lost its data in Redis and was opened anew with"
                    + " codec named '" + stored + "'; this process opened it with codec named '" + codec
                    + "' and cannot use it: open it again with a codec of that name (or remove the queue's keys)");
        }
        epoch = Replies.text(reply.get(2));
        List<String> written = new ArrayList<>();
        for (Object name : reply.subList(3, reply.size())) {
            written.add(Replies.text(name));
        }
        restores.incrementAndGet();
        if (Replies.number(reply.get(0)) == 1) {
            LOG.warn(
                    "queue '{}': its settings were missing from Redis (restarted without persistence?); restored this"
                            + " process's settings ({})",
                    queue,
                    describe(written));
        } else {
            LOG.warn(
                    "queue '{}': its settings in Redis were restored or set anew by another process after Redis lost"
                            + " them (restarted without persistence?); added this process's later ones ({})",
                    queue,
                    describe(written));
        }
    }

    /** The arguments of the script's {@code restore}, after the command and the time. */
    private String[] restoreArguments() {
        List<String> args = new ArrayList<>(2 + 3 * known.size());
        args.add(codec);
        args.add(candidateEpoch());
        known.forEach((name, s) -> {
            args.add(name);
            args.add(s.value);
            args.add(s.stamp);
        });
        return args.toArray(String[]::new);
    }

    /** The settings named (those a restore wrote), as a person reads them; "none" if there are none. */
    private String describe(List<String> names) {
        StringJoiner text = new StringJoiner(", ").setEmptyValue("none");
        for (String name : names) {
            Setting s = known.get(name);
            if (s != null && s.text != null) {
                text.add(s.text);
            }
        }
        return text.toString();
    }
}
