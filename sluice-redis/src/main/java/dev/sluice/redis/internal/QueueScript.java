package dev.sluice.redis.internal;

/** The queue script ({@code queue.lua}): every change of a queue's state is one call of it. */
final class QueueScript {
    private QueueScript() {}

    static final String SOURCE = LimitScript.load("queue.lua");

    /** The SHA-1 of {@link #SOURCE}, in lower-case hex, as {@code EVALSHA} names it. */
    static final String SHA = LimitScript.sha1(SOURCE);
}
