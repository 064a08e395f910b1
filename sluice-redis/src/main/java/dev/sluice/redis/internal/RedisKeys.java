package dev.sluice.redis.internal;

/**
 * The names of the Redis keys an engine writes, made from its prefix and the names and keys its callers give.
 * The contract: no two (prefix, limiter, kind, key) or (prefix, queue) reach the same Redis key, nor one that
 * another's keys extend with a {@code :suffix}, whatever characters the key holds; every Redis key of one limiter
 * key, or of one queue, is in one Redis Cluster slot; a key that names its own hash tag ({@code "{acme}:search"})
 * is in the slot of that tag. docs/redis-keys.md gives the layout and why it is unambiguous.
 *
 * <p>Why this design: the prefix is kept as given (1 to 64 of {@code [A-Za-z0-9._:-]}, no brace), names lose
 * their colons ({@code %3A}) and a key loses its braces, so that the first brace of a Redis key is always the
 * engine's, and what comes before it tells the engine and the kind of object apart. Names, keys and prefixes
 * without those characters keep the names they had before the encoding was made unambiguous.
 */
final class RedisKeys {
    /** The word between a prefix and a queue's name; no limiter's kind may be it. */
    static final String QUEUE = "queue";

    private static final String IN_NAMES = "%:{}";
    private static final String IN_PLAIN_KEYS = "%{}";
    private static final String IN_TAGGED_KEYS = "%{}:";

    private RedisKeys() {}

    /**
     * The start of every state key of limiter {@code name} with a policy of {@code kind}, which a limiter key's
     * {@link #limiterKey encoding} completes.
     *
     * @param prefix the engine's key prefix, already checked
     * @param kind the policy's kind: letters only, never {@link #QUEUE}
     */
    static String limiterStart(String prefix, String name, String kind) {
        return prefix + ":" + escape(name, IN_NAMES) + ":" + kind + ":";
    }

    /**
     * The state key of {@code key} under the limiter whose keys start with {@code start}: {@code start{<key>}},
     * the key's {@code %}, braces and lone surrogates percent-escaped; or, if the key names hash tag {@code T}
     * (by Redis Cluster's rule: its first {@code {}, then the first {@code }} after it, with something between),
     * {@code start{T}~<key>}, the key's colons escaped as well.
     */
    static String limiterKey(String start, String key) {
        String tag = hashTag(key);
        return tag == null
                ? start + "{" + escape(key, IN_PLAIN_KEYS) + "}"
                : start + "{" + tag + "}~" + escape(key, IN_TAGGED_KEYS);
    }

    /** The second key of the limiter key whose state key is {@code stateKey}, in the same slot. */
    static String auxiliaryKey(String stateKey) {
        return stateKey + ":x";
    }

    /** The key every Redis key of queue {@code name} begins with: {@code <prefix>:queue:{<name>}}. */
    static String queueBase(String prefix, String name) {
        return prefix + ":" + QUEUE + ":{" + escape(name, IN_PLAIN_KEYS) + "}";
    }

    /** The set of the names of the engine's queues: {@code <prefix>:queues}. */
    static String queueRegistry(String prefix) {
        return prefix + ":queues";
    }

    /** A pattern of {@code SCAN} that matches every key of queue {@code name} and no other. */
    static String queueKeys(String prefix, String name) {
        return queueBase(prefix, name) + "*";
    }

    /** The hash tag {@code key} names by Redis Cluster's rule, or null if it names none. */
    static String hashTag(String key) {
        int open = key.indexOf('{');
        if (open < 0) {
            return null;
        }
        int close = key.indexOf('}', open + 1);
        return close > open + 1 ? key.substring(open + 1, close) : null;
    }

    /**
     * {@code text} with each character of {@code special} as {@code %XX} (its code in hex) and each lone UTF-16
     * surrogate, which UTF-8 cannot carry, as {@code %uXXXX}; {@code special} holds {@code %}.
     */
    static String escape(String text, String special) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String replacement = null;
            if (special.indexOf(c) >= 0) {
                replacement = String.format("%%%02X", (int) c);
            } else if (Character.isSurrogate(c) && !paired(text, i)) {
                replacement = String.format("%%u%04X", (int) c);
            }
            if (replacement != null && out == null) {
                out = new StringBuilder(text.length() + 8).append(text, 0, i);
            }
            if (out != null) {
                if (replacement != null) {
                    out.append(replacement);
                } else {
                    out.append(c);
                }
            }
        }
        return out == null ? text : out.toString();
    }

    /** Whether the surrogate at {@code i} is half of a pair. */
    private static boolean paired(String text, int i) {
        return Character.isHighSurrogate(text.charAt(i))
                ? i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))
                : i > 0 && Character.isHighSurrogate(text.charAt(i - 1));
    }
}
