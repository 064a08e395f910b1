package dev.sluice.redis.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The queue library ({@link #FILES}, joined in that order into one Lua chunk: each file uses the locals of the
 * files before it), as Redis functions or as a script: every change of a queue's state is one call of it.
 */
final class QueueScript {
    private QueueScript() {}

    /** The files of the queue library, by concern, in the order they are joined ({@code queue-state.lua} has why). */
    static final List<String> FILES = List.of(
            "queue-state.lua",
            "queue-adaptive-rule.lua",
            "queue-records.lua",
            "queue-meta.lua",
            "queue-rates.lua",
            "queue-stats.lua",
            "queue-groups.lua",
            "queue-moves.lua",
            "queue-held.lua",
            "queue-housekeeping.lua",
            "queue-events.lua",
            "queue-adaptive.lua",
            "queue-claim.lua",
            "queue-add.lua",
            "queue-finish.lua",
            "queue-admin.lua",
            "queue-pages.lua",
            "queue-commands.lua",
            "queue-workers.lua",
            "queue-entry.lua",
            "queue-settings.lua");

    /**
     * The limiter's functions in a block that keeps their locals to themselves, whose algorithms the queue calls
     * through the table {@code LIMIT} (queue and group rates are decided by the very algorithms the limiters use,
     * one copy of each), then the queue library.
     */
    private static final String LIBRARY = "local LIMIT = {}\ndo\n" + LimitScript.FUNCTIONS
            + "\nLIMIT.clockAt, LIMIT.view, LIMIT.decide = limitClockAt, limitView, limitDecide\nend\n"
            + FILES.stream().map(LimitScript::load).collect(Collectors.joining("\n"));

    /** The library as a script, for {@code EVALSHA}: it defines everything, then runs the call. */
    static final String SOURCE = LIBRARY + "\nreturn entry(KEYS, ARGV)\n";

    /** The SHA-1 of {@link #SOURCE}, in lower-case hex, as {@code EVALSHA} names it. */
    static final String SHA = LimitScript.sha1(SOURCE);

    /**
     * The name of the library of Redis functions (Redis 7+): loaded once, so a call does not define it anew. The
     * name carries the library's hash, so that processes of other versions keep their own.
     */
    static final String FUNCTION = "sluice_queue_" + SHA.substring(0, 16);

    /** The commands of the library: the keys of its table {@code COMMANDS}, each a Redis function of its own. */
    static final List<String> COMMANDS = List.of(
            "add",
            "finish",
            "renew",
            "progress",
            "adapt",
            "owns",
            "get",
            "counts",
            "jobs",
            "page",
            "pause",
            "paused",
            "remove",
            "retry",
            "retryFailed",
            "clean",
            "drain",
            "promote",
            "pauseGroup",
            "resumeGroup",
            "hello",
            "bye",
            "workers",
            "obliterate",
            "groupInfos",
            "groupLimits",
            "groupCounts",
            "groups",
            "stats",
            "statsAdd",
            "nextDue",
            "open",
            "limits",
            "restore",
            "repGet",
            "repSave",
            "repDel",
            "repList",
            "repPop");

    /**
     * The commands that write nothing (READ_ONLY in {@code queue-entry.lua}): Redis functions flagged {@code
     * no-writes}, called with {@code FCALL_RO}, so that reading a queue's counts, as a health probe or a metrics
     * scrape does, never writes to Redis.
     */
    static final Set<String> READ_ONLY = Set.of("counts", "paused");

    private static final Map<String, String> FUNCTIONS =
            COMMANDS.stream().collect(Collectors.toUnmodifiableMap(Function.identity(), c -> FUNCTION + "_" + c));

    /** The library as Redis functions, one per command, for {@code FUNCTION LOAD}. */
    static final String FUNCTION_LIBRARY = "#!lua name=" + FUNCTION + "\n" + LIBRARY + "\n"
            + COMMANDS.stream()
                    .map(c -> "redis.register_function{function_name = '" + FUNCTIONS.get(c)
                            + "', callback = function(keys, args) return entry(keys, args, COMMANDS." + c + ") end"
                            + (READ_ONLY.contains(c) ? ", flags = { 'no-writes' }" : "") + "}\n")
                    .collect(Collectors.joining());

    /** Whether {@code command} (the first argument of a call) is one of {@link #READ_ONLY}. */
    static boolean readOnly(byte[] command) {
        return READ_ONLY.contains(new String(command, StandardCharsets.UTF_8));
    }

    /**
     * The Redis function of {@code command} (the first argument of a call, as the script takes it).
     *
     * @throws IllegalArgumentException if the library has no such command
     */
    static String function(byte[] command) {
        String name = new String(command, StandardCharsets.UTF_8);
        String function = FUNCTIONS.get(name);
        if (function == null) {
            throw new IllegalArgumentException("the queue library has no command '" + name + "'; it has " + COMMANDS);
        }
        return function;
    }
}
