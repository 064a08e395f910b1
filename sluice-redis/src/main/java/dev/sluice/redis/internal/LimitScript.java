package dev.sluice.redis.internal;

import dev.sluice.internal.limit.Limits;
import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.Gcra;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The one Lua script ({@link #START}, {@link #FILES} and {@link #END}, joined in that order) that makes every
 * rate-limit decision on Redis, and the protocol to call it: the keys and arguments of an {@code acquire}, {@code
 * peek}, {@code release}, {@code refund} or {@code reset}, and the parsing of the reply.
 *
 * <p>An acquire decides one or more layers (a chain is several) all or nothing, atomically, with the same
 * numbers the in-memory algorithms give at the same time. Times are nanoseconds since the Unix epoch; the
 * script reads Redis's clock ({@code TIME}) unless given a time, which tests do to run on a virtual clock.
 */
final class LimitScript {
    /**
     * The files of the limiter's functions, by concern, in the order they are joined into one chunk ({@code
     * limit-call.lua} has why): each uses the locals of the files before it. The queue library holds them too.
     */
    static final List<String> FILES = List.of(
            "limit-call.lua",
            "limit-time.lua",
            "limit-gcra.lua",
            "limit-fixed.lua",
            "limit-counter.lua",
            "limit-log.lua",
            "limit-leases.lua");

    /** The script's own start, which answers the commonest call before any function is made. */
    static final String START = "limit-script.lua";

    /** The script's own end: the operations of its protocol, by the functions. */
    static final String END = "limit-entry.lua";

    /** The queue library's way in to the functions ({@code limitView}, {@code limitDecide}). */
    static final String QUEUE_WAY = "limit-decide.lua";

    /** The files joined: the algorithms, with no way in. */
    private static final String ALGORITHMS =
            FILES.stream().map(LimitScript::load).collect(Collectors.joining("\n"));

    /** The functions, joined, and the queue library's way in to them: no call of any. */
    static final String FUNCTIONS = ALGORITHMS + "\n" + load(QUEUE_WAY);

    /** The script's text: its start, the functions, its end. */
    static final String SOURCE = load(START) + "\n" + ALGORITHMS + "\n" + load(END);

    /** The SHA-1 of {@link #SOURCE}, in lower-case hex, as {@code EVALSHA} names it. */
    static final String SHA = sha1(SOURCE);

    static final String ACQUIRE = "acquire";
    static final String PEEK = "peek";
    static final String RELEASE = "release";
    static final String REFUND = "refund";
    static final String RESET = "reset";

    /** The value of {@code now} that makes the script read Redis's clock. */
    static final long REDIS_TIME = Long.MIN_VALUE;

    /** Seconds the script adds to the times it stores, so that times before 1970 stay positive. */
    private static final long BIAS_SECONDS = 10_000_000_000L;

    private LimitScript() {}

    /**
     * One layer of an acquire.
     *
     * @param stateKey the key that holds the layer's state
     * @param auxKey the layer's second key, in the same hash slot; unused by policies with one key
     * @param policy the policy in force
     * @param leaseId a unique id for the lease this acquire may grant ({@code [A-Za-z0-9-_.:]}); null unless
     *     the policy is a {@link ConcurrencyLimit}
     * @param policyArgs {@link #policyArgs(LimitPolicy) policyArgs(policy)}, which a limiter computes once
     */
    record Layer(String stateKey, String auxKey, LimitPolicy policy, String leaseId, String[] policyArgs) {
        Layer {
            Objects.requireNonNull(stateKey, "stateKey");
            Objects.requireNonNull(auxKey, "auxKey");
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(policyArgs, "policyArgs");
        }

        /** A layer whose policy arguments are computed now. */
        Layer(String stateKey, String auxKey, LimitPolicy policy, String leaseId) {
            this(stateKey, auxKey, policy, leaseId, LimitScript.policyArgs(policy));
        }
    }

    /** The script's arguments that describe {@code policy}: its kind, its span in nanoseconds, its limit. */
    static String[] policyArgs(LimitPolicy policy) {
        return new String[] {kind(policy), Long.toString(param(policy)), Long.toString(policy.limit())};
    }

    /**
     * One layer's decision.
     *
     * @param allowed whether the layer allowed the permits
     * @param remaining whole permits the key could still take at once after this decision
     * @param retryAfterNanos when denied, nanoseconds until the same request would be allowed; else 0
     * @param resetAtNanos when the key is back to its full limit if nothing else arrives (epoch ns)
     * @param leaseMember what to pass to {@link #releaseArgs} to release the granted lease; empty when the
     *     decision holds no lease (other policies, or a denied acquire)
     */
    record Result(boolean allowed, long remaining, long retryAfterNanos, long resetAtNanos, String leaseMember) {}

    /**
     * An acquire's reply.
     *
     * @param nowNanos the time the script decided at (epoch ns)
     * @param layers each layer's decision, in the order of the layers
     */
    record Reply(long nowNanos, Result[] layers) {
        /** Whether every layer allowed, so that the permits were taken. */
        boolean allowed() {
            for (Result layer : layers) {
                if (!layer.allowed()) {
                    return false;
                }
            }
            return true;
        }
    }

    /** The KEYS of an acquire: each layer's state key, then its auxiliary key. */
    static String[] keys(List<Layer> layers) {
        String[] keys = new String[layers.size() * 2];
        for (int i = 0; i < layers.size(); i++) {
            keys[2 * i] = layers.get(i).stateKey();
            keys[2 * i + 1] = layers.get(i).auxKey();
        }
        return keys;
    }

    /** The KEYS of a release of a lease granted by {@code layer}. */
    static String[] keys(Layer layer) {
        return new String[] {layer.stateKey(), layer.auxKey()};
    }

    /**
     * The ARGV of an acquire of {@code permits} (1 to every layer's limit, already checked) from every layer.
     *
     * @param now the time to decide at, in epoch nanoseconds, or {@link #REDIS_TIME} for
     *     Redis's clock
     */
    static String[] acquireArgs(List<Layer> layers, long permits, long now) {
        return layerArgs(ACQUIRE, layers, permits, now);
    }

    /**
     * The ARGV of {@code operation} ({@link #ACQUIRE}, {@link #PEEK}, or {@link #REFUND} of one layer whose
     * policy is not a {@link ConcurrencyLimit}) of {@code permits} on {@code layers}.
     */
    static String[] layerArgs(String operation, List<Layer> layers, long permits, long now) {
        String[] args = new String[4 + 4 * layers.size()];
        args[0] = operation;
        args[1] = time(now);
        args[2] = permits == 1 ? "1" : Long.toString(permits);
        args[3] = layers.size() == 1 ? "1" : Integer.toString(layers.size());
        for (int i = 0; i < layers.size(); i++) {
            Layer layer = layers.get(i);
            int at = 4 + 4 * i;
            String[] policyArgs = layer.policyArgs();
            args[at] = policyArgs[0];
            args[at + 1] = policyArgs[1];
            args[at + 2] = policyArgs[2];
            args[at + 3] = layer.policy() instanceof ConcurrencyLimit ? checkLeaseId(layer.leaseId()) : "";
        }
        return args;
    }

    /** The ARGV of a reset of a layer's state (its keys: {@link #keys(Layer)}). */
    static String[] resetArgs(long now) {
        return new String[] {RESET, time(now)};
    }

    /** The ARGV of a release of the lease {@code leaseMember} (from {@link Result#leaseMember()}). */
    static String[] releaseArgs(String leaseMember, long now) {
        if (leaseMember == null || leaseMember.isEmpty()) {
            throw new IllegalArgumentException("lease member must be a non-empty string from an acquire's reply");
        }
        return new String[] {RELEASE, time(now), leaseMember};
    }

    /**
     * Parses an acquire's reply, as Lettuce returns it with a string codec ({@code ScriptOutputType.MULTI}:
     * Long for integers, String for bulk strings).
     *
     * @throws IllegalStateException if the reply is not shaped as the script replies
     */
    static Reply parse(List<Object> reply, int layers) {
        if (reply == null || reply.size() != 2 + 5 * layers) {
            throw new IllegalStateException(
                    "the limit script replied " + reply + "; expected 2 + 5 × " + layers + " entries");
        }
        long now = number(reply, 0) * 1_000_000_000L + number(reply, 1);
        Result[] results = new Result[layers];
        for (int i = 0; i < layers; i++) {
            int at = 2 + 5 * i;
            results[i] = new Result(
                    number(reply, at) == 1,
                    number(reply, at + 1),
                    number(reply, at + 2),
                    now + number(reply, at + 3),
                    text(reply.get(at + 4)));
        }
        return new Reply(now, results);
    }

    /** Parses a release's reply: whether that call returned the lease's permits. */
    static boolean parseRelease(Object reply) {
        if (reply instanceof Long released) {
            return released == 1;
        }
        throw new IllegalStateException("the limit script replied " + reply + " to a release; expected 0 or 1");
    }

    static String kind(LimitPolicy policy) {
        return switch (policy) {
            case TokenBucket ignored -> "gcra";
            case Gcra ignored -> "gcra";
            case FixedWindow ignored -> "fixed";
            case SlidingWindowCounter ignored -> "counter";
            case SlidingWindowLog ignored -> "log";
            case ConcurrencyLimit ignored -> "leases";
            case AdaptiveRate adaptive -> throw Limits.adaptiveRefused("a limiter", adaptive);
        };
    }

    /** The script's first policy argument: the interval, window or lease timeout, in nanoseconds. */
    private static long param(LimitPolicy policy) {
        return switch (policy) {
            case TokenBucket bucket -> bucket.nanosPerPermit();
            case Gcra gcra -> gcra.nanosPerPermit();
            case FixedWindow window -> window.window().toNanos();
            case SlidingWindowCounter window -> window.window().toNanos();
            case SlidingWindowLog log -> log.window().toNanos();
            case ConcurrencyLimit concurrency -> concurrency.leaseTimeout().toNanos();
            case AdaptiveRate adaptive -> throw Limits.adaptiveRefused("a limiter", adaptive);
        };
    }

    private static String checkLeaseId(String leaseId) {
        if (leaseId == null || leaseId.isEmpty()) {
            throw new IllegalArgumentException(
                    "a ConcurrencyLimit layer needs a lease id, was " + (leaseId == null ? "null" : "empty"));
        }
        for (int i = 0; i < leaseId.length(); i++) {
            char c = leaseId.charAt(i);
            boolean allowed = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '_'
                    || c == '.'
                    || c == ':';
            if (!allowed) {
                throw new IllegalArgumentException(
                        "lease id may hold only letters, digits and - _ . :, was '" + leaseId + "'");
            }
        }
        return leaseId;
    }

    private static String time(long now) {
        if (now == REDIS_TIME) {
            return "";
        }
        return Math.floorDiv(now, 1_000_000_000L) + " " + Math.floorMod(now, 1_000_000_000L);
    }

    /** {@code epochNanos} as the script stores times (tests compare stored state with it). */
    static String storedTime(long epochNanos) {
        return String.format(
                "%011d%09d",
                Math.floorDiv(epochNanos, 1_000_000_000L) + BIAS_SECONDS, Math.floorMod(epochNanos, 1_000_000_000L));
    }

    /** A bulk string entry, as Lettuce returns it with a string codec (String) or a byte-array one (byte[]). */
    private static String text(Object value) {
        return value instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
    }

    /** An integer entry: a Long, or a decimal String for numbers the script cannot reply as integers. */
    private static long number(List<Object> reply, int index) {
        Object value = reply.get(index);
        if (value instanceof Long number) {
            return number;
        }
        if (value instanceof String || value instanceof byte[]) {
            String text = text(value);
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw new IllegalStateException(
                "the limit script replied " + value + " at entry " + index + " of " + reply + "; expected an integer");
    }

    static String load(String resource) {
        try (InputStream in = LimitScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("resource " + resource + " is missing next to " + LimitScript.class);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    static String sha1(String text) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM lacks SHA-1", e);
        }
    }
}
