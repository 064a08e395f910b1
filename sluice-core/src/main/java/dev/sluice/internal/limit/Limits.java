package dev.sluice.internal.limit;

import dev.sluice.limit.AdaptiveRate;
import dev.sluice.limit.ConcurrencyKeyLimiter;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.KeyLimiter;
import dev.sluice.limit.Lease;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/** What every engine's limiters and chains check and compute the same way. */
public final class Limits {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private Limits() {}

    /** The error for layer {@code index} of a chain, whose limiter {@code limiter} belongs to another engine. */
    public static IllegalArgumentException foreignLayer(int index, String limiter) {
        return new IllegalArgumentException("layer " + index + " (" + limiter + ") belongs to another engine;"
                + " a chain's limiters must all come from the engine that builds it");
    }

    /** Fails unless {@code key} has 1 to {@link RateLimiter#MAX_KEY_LENGTH} characters. */
    public static void checkKey(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("key must be 1 to " + NamedLimiter.MAX_KEY_LENGTH + " characters, was "
                    + (key == null ? "null" : "empty"));
        }
        if (key.length() > NamedLimiter.MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("key must be 1 to " + NamedLimiter.MAX_KEY_LENGTH + " characters, was "
                    + key.length() + " characters");
        }
    }

    /** Fails unless {@code permits} is between 1 and the limit of {@code policy}. */
    public static void checkPermits(String limiter, LimitPolicy policy, long permits) {
        if (permits < 1 || permits > policy.limit()) {
            throw new IllegalArgumentException("permits must be between 1 and " + policy.limit() + " (the limit of '"
                    + limiter + "'), was " + permits);
        }
    }

    /** Fails unless {@code next} is a policy {@code current} may change to: not null, and of the same kind. */
    public static void checkUpdate(String limiter, LimitPolicy current, LimitPolicy next) {
        if (next == null) {
            throw new IllegalArgumentException("policy must not be null");
        }
        checkNotAdaptive("limiter '" + limiter + "'", next);
        if (current.getClass() != next.getClass()) {
            throw new IllegalArgumentException("limiter '" + limiter + "' has a "
                    + current.getClass().getSimpleName()
                    + " policy and cannot change to a " + next.getClass().getSimpleName()
                    + "; allowed: another " + current.getClass().getSimpleName());
        }
    }

    /** {@code key} of {@code limiter}, bound: every call goes to the limiter with that key. */
    public static KeyLimiter bind(RateLimiter limiter, String key) {
        checkKey(key);
        return new KeyLimiter() {
            @Override
            public RateLimiter limiter() {
                return limiter;
            }

            @Override
            public String key() {
                return key;
            }

            @Override
            public Decision tryAcquire(long permits) {
                return limiter.tryAcquire(key, permits);
            }

            @Override
            public boolean tryConsume(long permits) {
                return limiter.tryConsume(key, permits);
            }

            @Override
            public String toString() {
                return "KeyLimiter[" + limiter.name() + ", " + key + "]";
            }
        };
    }

    /** {@code key} of {@code limiter}, bound: every call goes to the limiter with that key. */
    public static ConcurrencyKeyLimiter bind(ConcurrencyLimiter limiter, String key) {
        checkKey(key);
        return new BoundConcurrencyKey(limiter, key);
    }

    /** A key of a concurrency limiter; each call goes to the limiter with the key. */
    private record BoundConcurrencyKey(ConcurrencyLimiter limiter, String key) implements ConcurrencyKeyLimiter {
        @Override
        public String toString() {
            return "ConcurrencyKeyLimiter[" + limiter.name() + ", " + key + "]";
        }
    }

    /** Fails if {@code policy} is an {@link AdaptiveRate}, which only queues and groups take. */
    public static void checkNotAdaptive(String what, LimitPolicy policy) {
        if (policy instanceof AdaptiveRate adaptive) {
            throw adaptiveRefused(what, adaptive);
        }
    }

    /** The error for an {@link AdaptiveRate} given to {@code what}, a limiter. */
    public static IllegalArgumentException adaptiveRefused(String what, AdaptiveRate policy) {
        return new IllegalArgumentException("an AdaptiveRate is a queue's or a group's rate; " + what
                + " takes a TokenBucket, Gcra, FixedWindow, SlidingWindowCounter, SlidingWindowLog or"
                + " ConcurrencyLimit, was " + policy);
    }

    /** Fails unless {@code name} is a valid name of a {@code what} (limiter, queue): 1 to 128 of [A-Za-z0-9._:-]. */
    public static void checkName(String what, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " name must be 1 to 128 letters, digits or . _ - :, was "
                    + (name == null ? "null" : "'" + name + "'"));
        }
    }

    /** Fails unless the arguments of {@code Sluice.limiter(name, policy, options)} are valid. */
    public static void checkLimiter(String name, LimitPolicy policy, LimiterOptions options) {
        checkName("limiter", name);
        if (policy == null) {
            throw new IllegalArgumentException("policy of limiter '" + name + "' must not be null");
        }
        checkNotAdaptive("limiter '" + name + "'", policy);
        if (options == null) {
            throw new IllegalArgumentException(
                    "options of limiter '" + name + "' must not be null; use LimiterOptions.defaults()");
        }
    }

    /**
     * As {@code Sluice.limiter} and {@code Sluice.concurrencyLimiter}: checks the arguments, finds the limiter called
     * {@code name} in an engine's {@code limiters} or makes it with {@code make} (announcing it to {@code
     * listeners}), and returns it if it is of {@code kind} under {@code policy}, else refuses it (see {@link
     * #existing}).
     */
    public static <L extends NamedLimiter, V> L open(
            EngineListeners listeners,
            ConcurrentHashMap<String, V> limiters,
            String name,
            LimitPolicy policy,
            LimiterOptions options,
            Class<L> kind,
            Function<String, V> make) {
        checkLimiter(name, policy, options);
        return existing((NamedLimiter) listeners.limiter(limiters, name, make), kind, policy);
    }

    /**
     * {@code found}, the limiter called by its name, as a limiter of {@code kind} under {@code policy}: an error if
     * it is of the other kind (a name names one limiter) or has another policy (a limiter has one policy at a time
     * and changes it only by setPolicy).
     */
    public static <L extends NamedLimiter> L existing(NamedLimiter found, Class<L> kind, LimitPolicy policy) {
        if (!kind.isInstance(found)) {
            String other = found instanceof RateLimiter ? "RateLimiter" : "ConcurrencyLimiter";
            String factory = found instanceof RateLimiter ? "Sluice.limiter" : "Sluice.concurrencyLimiter";
            throw new IllegalArgumentException("limiter '" + found.name() + "' exists as a " + other + " with policy "
                    + found.policy() + "; it cannot be opened as a " + kind.getSimpleName() + " with " + policy
                    + ": a name belongs to one limiter of either kind, so open it with " + factory
                    + " or choose another name");
        }
        LimitPolicy current = found.policy();
        if (!current.equals(policy)) {
            throw new IllegalArgumentException("limiter '" + found.name() + "' exists with policy " + current
                    + "; it cannot be opened with " + policy
                    + ": open it with its policy, and change the policy with setPolicy");
        }
        return kind.cast(found);
    }

    /** What a chain of {@code layers} says it is: its limiters' names, in order. */
    public static String describeChain(List<? extends LimitChain.Layer<?>> layers) {
        StringBuilder text = new StringBuilder("LimitChain[");
        for (int i = 0; i < layers.size(); i++) {
            text.append(i == 0 ? "" : ", ").append(layers.get(i).limiter());
        }
        return text.append(']').toString();
    }

    /** The error of every use of {@code engine} after it was closed. */
    public static IllegalStateException closed(Object engine) {
        return new IllegalStateException(engine + " is closed");
    }

    /**
     * A chain's denial: the first denying layer's decision, with the longest retry-after of the layers that
     * denied, which is when the whole chain would allow the request.
     */
    public static Decision chainDenial(Decision first, long longestRetryAfter) {
        return new Decision(
                false,
                first.remaining(),
                first.limit(),
                longestRetryAfter,
                first.resetAtNanos(),
                first.limiter(),
                Lease.none(),
                first.basis());
    }

    /** A chain's grant: the decision of the layer with the fewest permits left, holding every layer's lease. */
    public static Decision chainGrant(Decision[] granted) {
        int tightest = 0;
        List<Lease> leases = new ArrayList<>(0);
        for (int i = 0; i < granted.length; i++) {
            if (granted[i].remaining() < granted[tightest].remaining()) {
                tightest = i;
            }
            if (granted[i].lease() != Lease.none()) {
                leases.add(granted[i].lease());
            }
        }
        Decision chosen = granted[tightest];
        return new Decision(
                true,
                chosen.remaining(),
                chosen.limit(),
                0,
                chosen.resetAtNanos(),
                chosen.limiter(),
                allOf(leases),
                chosen.basis());
    }

    private static Lease allOf(List<Lease> leases) {
        if (leases.isEmpty()) {
            return Lease.none();
        }
        if (leases.size() == 1) {
            return leases.get(0);
        }
        long expiry = leases.stream().mapToLong(Lease::expiresAtNanos).min().orElseThrow();
        return new Lease() {
            @Override
            public boolean release() {
                boolean any = false;
                for (Lease lease : leases) {
                    any |= lease.release();
                }
                return any;
            }

            @Override
            public long expiresAtNanos() {
                return expiry;
            }
        };
    }
}
