package dev.sluice.redis.internal;

/** The queue script ({@code queue.lua}): every change of a queue's state is one call of it. */
final class QueueScript {
    private QueueScript() {}

    /**
     * The limiter script wrapped as a function, {@code runLimit(KEYS, ARGV)}, then the queue script: queue and
     * group rates are decided by the very algorithms the limiters use, one copy of each.
     */
    static final String SOURCE =
            "local function runLimit(KEYS, ARGV)\n" + LimitScript.SOURCE + "\nend\n" + LimitScript.load("queue.lua");

    /** The SHA-1 of {@link #SOURCE}, in lower-case hex, as {@code EVALSHA} names it. */
    static final String SHA = LimitScript.sha1(SOURCE);
}
