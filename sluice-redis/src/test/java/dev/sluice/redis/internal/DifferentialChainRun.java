package dev.sluice.redis.internal;

import static dev.sluice.redis.internal.LimitScriptDifferential.actual;
import static dev.sluice.redis.internal.LimitScriptDifferential.expected;
import static dev.sluice.redis.internal.LimitScriptDifferential.permits;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.Decision;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.testkit.ContractSupport;
import dev.sluice.time.ManualClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

/** A chain on both engines; a denial must leave every Redis key as it was. */
final class DifferentialChainRun {
    /** A layer of a test chain: a limiter's name and policy, and how the request names its key. */
    record Link(String limiter, LimitPolicy policy, Function<String, String> key) {
        @Override
        public String toString() {
            return limiter + ": " + policy;
        }
    }

    final LimitScriptRunner runner;
    final Random random;
    final ManualClock clock = new ManualClock(Instant.parse("2026-03-01T08:00:00.000000001Z"));
    final Sluice memory = Sluice.inMemory(clock);
    final List<Link> links;
    final LimitChain<String> chain;
    final String name = LimitScriptDifferential.uniqueName("chain");
    final List<Held> held = new ArrayList<>();
    final List<String> history = new ArrayList<>();
    final long limit;
    int leases;

    record Held(Decision decision, List<LimitScript.Layer> layers, List<String> members) {}

    DifferentialChainRun(LimitScriptRunner runner, List<Link> links, long seed) {
        this.runner = runner;
        this.links = links;
        this.random = new Random(seed);
        LimitChain.Builder<String> builder = memory.chain();
        Map<String, NamedLimiter> limiters = new HashMap<>();
        for (Link link : links) {
            builder.layer(
                    limiters.computeIfAbsent(
                            link.limiter(), name -> ContractSupport.limiterOf(memory, name, link.policy())),
                    link.key());
        }
        chain = builder.build();
        limit = links.stream().mapToLong(link -> link.policy().limit()).min().orElseThrow();
    }

    void steps(int count) {
        Decision last = null;
        for (int step = 0; step < count; step++) {
            LimitPolicy scale = links.get(random.nextInt(links.size())).policy();
            clock.advanceNanos(LimitScriptDifferential.advance(random, scale, clock.nanos(), last));
            long now = clock.nanos();
            if (!held.isEmpty() && random.nextInt(4) == 0) {
                Held lease = held.remove(random.nextInt(held.size()));
                boolean expected = lease.decision().release();
                boolean actual = false;
                for (int i = 0; i < lease.layers().size(); i++) {
                    if (!lease.members().get(i).isEmpty()) {
                        actual |= runner.release(
                                lease.layers().get(i), lease.members().get(i), now);
                    }
                }
                history.add("at " + now + ": release " + lease.members() + ": " + expected);
                assertThat(actual).as(context()).isEqualTo(expected);
                continue;
            }
            String context = random.nextBoolean() ? "a" : random.nextBoolean() ? "b" : "c";
            long permits = permits(random, limit);
            List<LimitScript.Layer> layers = new ArrayList<>();
            for (Link link : links) {
                String leaseId = link.policy() instanceof ConcurrencyLimit ? "lease-" + leases++ : null;
                layers.add(runner.layer(name + link.limiter(), link.key().apply(context), link.policy(), leaseId));
            }
            List<String> before = runner.snapshot(layers);
            long[] ttlsBefore = runner.pttls(layers);
            Decision expected = chain.tryAcquire(context, permits);
            LimitScript.Reply reply = runner.acquire(layers, permits, now);
            history.add("at " + now + ": " + context + " takes " + permits + ": " + expected(expected));
            assertThat(actual(combine(reply))).as(context()).isEqualTo(expected(expected));
            List<String> members = new ArrayList<>();
            for (LimitScript.Result result : reply.layers()) {
                members.add(result.leaseMember());
            }
            if (expected.allowed()) {
                if (members.stream().anyMatch(member -> !member.isEmpty())) {
                    held.add(new Held(expected, layers, members));
                }
            } else {
                assertThat(members).as(context()).allMatch(String::isEmpty);
                assertThat(runner.snapshot(layers))
                        .as("a denial changes nothing; " + context())
                        .isEqualTo(before);
                long[] ttlsAfter = runner.pttls(layers);
                for (int i = 0; i < ttlsAfter.length; i++) {
                    if (ttlsBefore[i] < 0) {
                        assertThat(ttlsAfter[i]).as(context()).isEqualTo(ttlsBefore[i]);
                    } else {
                        assertThat(ttlsAfter[i]).as(context()).isBetween(ttlsBefore[i] - 2_000, ttlsBefore[i]);
                    }
                }
            }
            last = expected;
        }
        memory.close();
    }

    /** The chain's decision from its layers', as {@code InMemoryChain} makes it. */
    static LimitScript.Result combine(LimitScript.Reply reply) {
        LimitScript.Result[] layers = reply.layers();
        LimitScript.Result first = null;
        long retryAfter = 0;
        for (LimitScript.Result layer : layers) {
            if (!layer.allowed()) {
                first = first == null ? layer : first;
                retryAfter = Math.max(retryAfter, layer.retryAfterNanos());
            }
        }
        if (first != null) {
            return new LimitScript.Result(false, first.remaining(), retryAfter, first.resetAtNanos(), "");
        }
        LimitScript.Result tightest = layers[0];
        for (LimitScript.Result layer : layers) {
            if (layer.remaining() < tightest.remaining()) {
                tightest = layer;
            }
        }
        return tightest;
    }

    String context() {
        return links + "\n" + String.join("\n", history.subList(Math.max(0, history.size() - 12), history.size()));
    }
}
