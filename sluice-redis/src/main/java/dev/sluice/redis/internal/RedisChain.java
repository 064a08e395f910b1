package dev.sluice.redis.internal;

import dev.sluice.internal.limit.Limits;
import dev.sluice.internal.limit.Waiting;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.WhenUnavailable;
import dev.sluice.time.SluiceClock;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A chain on the Redis engine: every layer is decided by one script, all or nothing, so no layer ever holds
 * permits that another layer's denial should have returned.
 */
final class RedisChain<C> implements LimitChain<C> {
    private final RedisEngine engine;
    private final List<Layer<C>> layers;
    private final RedisLimiter<?>[] limiters;
    private final SluiceClock clock;

    RedisChain(RedisEngine engine, List<Layer<C>> layers) {
        this.engine = engine;
        this.layers = layers;
        this.limiters = new RedisLimiter<?>[layers.size()];
        for (int i = 0; i < limiters.length; i++) {
            if (!(layers.get(i).limiter() instanceof RedisLimiter<?> limiter) || limiter.engine != engine) {
                throw Limits.foreignLayer(i, layers.get(i).limiter().name());
            }
            limiters[i] = limiter;
        }
        this.clock = engine.clock();
    }

    @Override
    public List<Layer<C>> layers() {
        return layers;
    }

    /** One request of the chain: each layer's key and policy in force, and the script's view of the layers. */
    private record Request<C>(
            C context, long permits, String[] keys, LimitPolicy[] policies, List<LimitScript.Layer> layers) {}

    private Request<C> request(C context, long permits) {
        engine.checkOpen();
        int n = limiters.length;
        String[] keys = new String[n];
        LimitPolicy[] policies = new LimitPolicy[n];
        List<LimitScript.Layer> scriptLayers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            keys[i] = layers.get(i).key().apply(context);
            policies[i] = limiters[i].policy();
            limiters[i].checkKey(keys[i]);
            limiters[i].checkPermits(policies[i], permits);
            scriptLayers.add(limiters[i].layerOf(keys[i], policies[i]));
        }
        if (engine.cluster()) {
            checkOneSlot(keys, scriptLayers);
        }
        return new Request<>(context, permits, keys, policies, scriptLayers);
    }

    private String[] args(Request<C> request) {
        return LimitScript.acquireArgs(request.layers(), request.permits(), engine.scriptNow());
    }

    @Override
    public Decision tryAcquire(C context, long permits) {
        Request<C> request = request(context, permits);
        List<Object> reply = engine.skipping()
                ? null
                : engine.run(ScriptOutputType.MULTI, LimitScript.keys(request.layers()), args(request));
        return decision(request, reply);
    }

    @Override
    public CompletableFuture<Decision> tryAcquireAsync(C context, long permits) {
        Request<C> request = request(context, permits);
        CompletableFuture<List<Object>> reply = engine.skipping()
                ? CompletableFuture.completedFuture(null)
                : engine.runAsync(ScriptOutputType.MULTI, LimitScript.keys(request.layers()), args(request));
        return reply.thenApply(answer -> decision(request, answer));
    }

    /** The chain's decision from the script's {@code reply}, or, if Redis did not answer (null), the degraded one. */
    private Decision decision(Request<C> request, List<Object> reply) {
        int n = limiters.length;
        if (reply != null) {
            LimitScript.Reply parsed = LimitScript.parse(reply, n);
            Decision[] decisions = new Decision[n];
            for (int i = 0; i < n; i++) {
                limiters[i].recovered();
                decisions[i] = limiters[i].decision(
                        parsed.layers()[i], request.layers().get(i), request.policies()[i], parsed.nowNanos());
            }
            return combine(request.keys(), decisions, request.permits());
        }
        for (RedisLimiter<?> limiter : limiters) {
            limiter.unavailable();
        }
        return degraded(request.context(), request.keys(), request.policies(), request.permits());
    }

    /** The chain's decision from its layers' ones, told to the listeners as the in-memory chain does. */
    private Decision combine(String[] keys, Decision[] decisions, long permits) {
        int deniedBy = -1;
        long retryAfter = 0;
        for (int i = 0; i < decisions.length; i++) {
            if (decisions[i].denied()) {
                deniedBy = deniedBy < 0 ? i : deniedBy;
                retryAfter = Math.max(retryAfter, decisions[i].retryAfterNanos());
            }
        }
        if (deniedBy >= 0) {
            limiters[deniedBy].tell(keys[deniedBy], permits, decisions[deniedBy]);
            return Limits.chainDenial(decisions[deniedBy], retryAfter);
        }
        for (int i = 0; i < decisions.length; i++) {
            limiters[i].tell(keys[i], permits, decisions[i]);
        }
        return Limits.chainGrant(decisions);
    }

    /**
     * While Redis is unavailable: a layer that fails closed denies the chain; layers that fall back are
     * decided together, all or nothing, by their shares in this process; layers that fail open are skipped.
     */
    private Decision degraded(C context, String[] keys, LimitPolicy[] policies, long permits) {
        List<Integer> falling = new ArrayList<>();
        for (int i = 0; i < limiters.length; i++) {
            WhenUnavailable.Action action =
                    limiters[i].options().whenUnavailable().action();
            if (action == WhenUnavailable.Action.DENY) {
                Decision denial = limiters[i].degraded(policies[i], keys[i], permits, true);
                limiters[i].tell(keys[i], permits, denial);
                return denial;
            }
            if (action == WhenUnavailable.Action.FALL_BACK) {
                falling.add(i);
            }
        }
        if (falling.isEmpty()) {
            Decision allowed = limiters[0].degraded(policies[0], keys[0], permits, true);
            for (int i = 0; i < limiters.length; i++) {
                limiters[i].tell(keys[i], permits, allowed);
            }
            return allowed;
        }
        LimitChain.Builder<C> local = engine.fallback().chain();
        for (int i : falling) {
            NamedLimiter share = limiters[i].fallback(policies[i]);
            if (permits > share.policy().limit()) {
                Decision denial = limiters[i].degraded(policies[i], keys[i], permits, true);
                limiters[i].tell(keys[i], permits, denial);
                return denial;
            }
            String key = keys[i];
            local.layer(share, ignored -> key);
        }
        Decision decision = local.build().tryAcquire(context, permits);
        int decider = indexOf(decision.limiter(), falling);
        Decision relabelled = limiters[decider].asFallback(decision);
        limiters[decider].tell(keys[decider], permits, relabelled);
        return relabelled;
    }

    private int indexOf(String limiterName, List<Integer> candidates) {
        for (int i : candidates) {
            if (limiters[i].name().equals(limiterName)) {
                return i;
            }
        }
        return candidates.get(0);
    }

    /**
     * In Redis Cluster a script may touch one slot only; a chain whose keys fall in several is refused before
     * anything is taken.
     */
    private void checkOneSlot(String[] keys, List<LimitScript.Layer> scriptLayers) {
        int slot = Connection.slot(scriptLayers.get(0).stateKey());
        for (int i = 1; i < keys.length; i++) {
            int other = Connection.slot(scriptLayers.get(i).stateKey());
            if (other != slot) {
                throw new IllegalArgumentException("in Redis Cluster a chain is one script, and its keys must share"
                        + " a hash slot: key '" + keys[0] + "' of limiter '" + limiters[0].name() + "' is in slot "
                        + slot + ", key '" + keys[i] + "' of limiter '" + limiters[i].name() + "' in slot " + other
                        + ". Give the keys one hash tag, such as '{" + keys[0] + "}' and '{" + keys[0] + "}:"
                        + keys[i] + "' (only the part in braces decides the slot), or acquire the layers separately");
            }
        }
    }

    @Override
    public Decision acquire(C context, long permits, Duration timeout) throws InterruptedException {
        return Waiting.acquire(this, clock, this::maxStepNanos, context, permits, timeout);
    }

    @Override
    public CompletableFuture<Decision> acquireAsync(C context, long permits, Duration timeout) {
        return Waiting.acquireAsync(this, clock, this::maxStepNanos, context, permits, timeout);
    }

    private long maxStepNanos(Decision denial) {
        for (RedisLimiter<?> limiter : limiters) {
            if (limiter.policy() instanceof ConcurrencyLimit) {
                return 5_000_000;
            }
        }
        return Long.MAX_VALUE;
    }

    @Override
    public String toString() {
        return Limits.describeChain(layers);
    }
}
