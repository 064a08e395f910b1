package dev.sluice.redis.internal;

import static dev.sluice.redis.internal.LimitScriptDifferential.actual;
import static dev.sluice.redis.internal.LimitScriptDifferential.expected;
import static dev.sluice.redis.internal.LimitScriptDifferential.expiryMs;
import static dev.sluice.redis.internal.LimitScriptDifferential.permits;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.testkit.ContractSupport;
import dev.sluice.time.ManualClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One limiter on both engines. The Redis keys are dropped once their expiry (less the test slack) has
 * passed on the virtual clock, as Redis would drop them on a real one: a too-short expiry shows up as a
 * different decision.
 */
final class DifferentialRun implements AutoCloseable {
    final LimitScriptRunner runner;
    final Random random;
    final ManualClock clock;
    final Sluice memory;
    final NamedLimiter limiter;
    final String name = LimitScriptDifferential.uniqueName("run");
    final String[] keys = {"a", "b", "c"};
    final Map<String, Long> expiries = new HashMap<>();
    final Map<String, List<Held>> held = new HashMap<>();
    final List<String> history = new ArrayList<>();
    LimitPolicy policy;
    Decision last;
    int leases;

    record Held(Decision decision, String member, long expiresAt, boolean[] released) {}

    DifferentialRun(LimitScriptRunner runner, LimitPolicy policy, Instant start, long seed) {
        this.runner = runner;
        this.policy = policy;
        this.random = new Random(seed);
        this.clock = new ManualClock(start);
        this.memory = Sluice.inMemory(clock);
        this.limiter = ContractSupport.limiterOf(memory, "l", policy);
        history.add(policy + " from " + start + ", seed " + seed);
    }

    void steps(int count) {
        for (int step = 0; step < count; step++) {
            advance(LimitScriptDifferential.advance(random, policy, clock.nanos(), last));
            String key = keys[random.nextInt(keys.length)];
            int operation = random.nextInt(16);
            boolean leases = policy instanceof ConcurrencyLimit;
            if (leases && operation < 4) {
                release(key);
            } else if (operation == 4 || operation == 5) {
                peek(key, permits(random, policy.limit()));
            } else if (!leases && (operation == 6 || operation == 7)) {
                refund(key, permits(random, policy.limit()));
            } else if (operation == 8) {
                reset(key);
            } else {
                acquire(key, permits(random, policy.limit()));
            }
        }
    }

    /** Changes the policy on both engines (Redis learns it from the next call's arguments). */
    void changePolicyOnly(LimitPolicy next) {
        history.add("at " + clock.nanos() + ": policy " + next);
        ContractSupport.setPolicy(limiter, next);
        policy = next;
    }

    @Override
    public void close() {
        memory.close();
    }

    /** Changes the policy on both engines, then acquires every key at that instant; returns 1 if it went on. */
    int changePolicy(LimitPolicy next, int stepsAfter) {
        changePolicyOnly(next);
        boolean allAllowed = true;
        for (String key : keys) {
            allAllowed &= acquire(key, permits(random, policy.limit())).allowed();
        }
        boolean adoptIsANoOp = next instanceof SlidingWindowLog || next instanceof ConcurrencyLimit;
        // Redis re-expresses a key's state when a call first reaches it; a denial writes nothing, so a later
        // call re-expresses it again at its own time, where the in-memory engine did it once, for every key.
        if (!allAllowed && !adoptIsANoOp) {
            return 0;
        }
        steps(stepsAfter);
        return 1;
    }

    void advance(long nanos) {
        clock.advanceNanos(nanos);
        long nowMs = Math.floorDiv(clock.nanos(), 1_000_000);
        expiries.entrySet().removeIf(expiry -> {
            if (nowMs > expiry.getValue()) {
                LimitScript.Layer layer = layer(expiry.getKey());
                runner.redis.del(layer.stateKey(), layer.auxKey());
                return true;
            }
            return false;
        });
    }

    LimitScript.Layer layer(String key) {
        String leaseId = policy instanceof ConcurrencyLimit ? "lease-" + leases++ : null;
        return runner.layer(name, key, policy, leaseId);
    }

    Decision acquire(String key, long permits) {
        long now = clock.nanos();
        Decision expected = limiter.tryAcquire(key, permits);
        LimitScript.Layer layer = layer(key);
        LimitScript.Reply reply = runner.acquire(List.of(layer), permits, now);
        history.add("at " + now + ": " + key + " takes " + permits + ": " + expected(expected));
        assertThat(reply.nowNanos()).isEqualTo(now);
        assertThat(actual(reply.layers()[0])).as(context()).isEqualTo(expected(expected));
        String member = reply.layers()[0].leaseMember();
        if (expected.allowed()) {
            expiries.put(key, checkExpiry(layer, now, expected.resetAtNanos()));
        }
        if (policy instanceof ConcurrencyLimit && expected.allowed()) {
            assertThat(member)
                    .as(context())
                    .startsWith(LimitScript.storedTime(expected.lease().expiresAtNanos()) + "|");
            held.computeIfAbsent(key, k -> new ArrayList<>())
                    .add(new Held(expected, member, expected.lease().expiresAtNanos(), new boolean[1]));
        } else {
            assertThat(member).as(context()).isEmpty();
        }
        last = expected;
        return expected;
    }

    void peek(String key, long permits) {
        long now = clock.nanos();
        Decision expected = limiter.peek(key, permits);
        LimitScript.Reply reply = runner.peek(layer(key), permits, now);
        history.add("at " + now + ": " + key + " peeks at " + permits + ": " + expected(expected));
        assertThat(actual(reply.layers()[0])).as(context()).isEqualTo(expected(expected));
        assertThat(reply.layers()[0].leaseMember()).as(context()).isEmpty();
    }

    /** Refunds on both engines; the decisions that follow show whether they agree. */
    void refund(String key, long permits) {
        long now = clock.nanos();
        ((RateLimiter) limiter).refund(key, permits);
        runner.refund(layer(key), permits, now);
        history.add("at " + now + ": " + key + " gets " + permits + " back");
    }

    void reset(String key) {
        long now = clock.nanos();
        limiter.reset(key);
        LimitScript.Layer layer = layer(key);
        runner.reset(layer, now);
        history.add("at " + now + ": " + key + " is reset");
        assertThat(runner.redis.exists(layer.stateKey(), layer.auxKey()))
                .as(context())
                .isZero();
        expiries.remove(key);
        for (Held lease : held.getOrDefault(key, List.of())) {
            assertThat(lease.decision().release())
                    .as("in memory, a lease dropped by a reset")
                    .isFalse();
            assertThat(runner.release(layer, lease.member(), now))
                    .as("a lease dropped by a reset")
                    .isFalse();
        }
        held.remove(key);
    }

    void release(String key) {
        List<Held> leases = held.getOrDefault(key, List.of());
        if (leases.isEmpty()) {
            return;
        }
        Held lease = leases.get(random.nextInt(leases.size()));
        long now = clock.nanos();
        boolean expected = lease.decision().release();
        boolean actual = runner.release(layer(key), lease.member(), now);
        history.add("at " + now + ": " + key + " releases " + lease.member() + ": " + expected);
        assertThat(actual).as(context()).isEqualTo(expected);
        if (expected) {
            lease.released()[0] = true;
            long latest = leases.stream()
                    .filter(other -> !other.released()[0])
                    .mapToLong(Held::expiresAt)
                    .max()
                    .orElse(Long.MIN_VALUE);
            if (latest <= now) {
                assertThat(runner.redis.exists(layer(key).stateKey(), layer(key).auxKey()))
                        .as(context())
                        .isZero();
                expiries.remove(key);
            } else {
                expiries.put(key, checkExpiry(layer(key), now, latest));
            }
        }
        leases.removeIf(other -> other.expiresAt() <= now || other.released()[0]);
    }

    /** Checks the keys' time to live against the time the state goes idle; returns the expiry in epoch ms. */
    long checkExpiry(LimitScript.Layer layer, long now, long idleAt) {
        long expiry = expiryMs(idleAt, now);
        long ttl = expiry - Math.floorDiv(now, 1_000_000) + 3_600_000;
        boolean twoKeys = policy instanceof SlidingWindowLog || policy instanceof ConcurrencyLimit;
        List<String> keys = twoKeys ? List.of(layer.stateKey(), layer.auxKey()) : List.of(layer.stateKey());
        for (String key : keys) {
            assertThat(runner.redis.pttl(key)).as(key + " pttl; " + context()).isBetween(ttl - 2_000, ttl);
        }
        if (!twoKeys) {
            assertThat(runner.redis.exists(layer.auxKey())).as(context()).isZero();
        }
        return expiry;
    }

    String context() {
        return String.join("\n", history.subList(Math.max(0, history.size() - 12), history.size()));
    }
}
