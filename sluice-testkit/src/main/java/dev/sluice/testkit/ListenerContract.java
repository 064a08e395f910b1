package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link dev.sluice.limit.LimiterListener}: hears every decision a limiter makes, with that decision. */
public abstract class ListenerContract extends ContractSupport {
    /** For subclasses, one per engine. */
    protected ListenerContract() {}

    @Test
    void hearsEveryGrantAndDenialWithTheDecisionReturned() {
        RecordingListener listener = new RecordingListener();
        RateLimiter limiter = engine.limiter(
                "fw",
                FixedWindow.of(2, Duration.ofSeconds(1)),
                LimiterOptions.builder().listener(listener).build());

        Decision first = limiter.tryAcquire("k");
        Decision second = limiter.tryAcquire("k");
        Decision third = limiter.tryAcquire("k");
        Decision fourth = limiter.tryAcquire("k", 2);

        assertThat(listener.events)
                .containsExactly("allowed fw k 1", "allowed fw k 1", "denied fw k 1", "denied fw k 2");
        assertThat(listener.decisions).containsExactly(first, second, third, fourth);
    }

    @Test
    void hearsNothingOfRejectedInputOrOfOtherLimiters() {
        RecordingListener listener = new RecordingListener();
        RateLimiter limiter = engine.limiter(
                "fw",
                FixedWindow.of(2, Duration.ofSeconds(1)),
                LimiterOptions.builder().listener(listener).build());
        RateLimiter other = engine.limiter("other", FixedWindow.of(2, Duration.ofSeconds(1)));

        assertRejected(() -> limiter.tryAcquire(null), "key");
        assertRejected(() -> limiter.tryAcquire("k", 0), "permits");
        assertRejected(() -> limiter.tryAcquire("k", 3), "permits");
        other.tryAcquire("k");

        assertThat(listener.events).isEmpty();
    }

    @Test
    void hearsTheGrantThatEndsAWait() throws InterruptedException {
        RecordingListener listener = new RecordingListener();
        RateLimiter limiter = engine.limiter(
                "api",
                TokenBucket.of(1, Duration.ofSeconds(1)),
                LimiterOptions.builder().listener(listener).build());
        limiter.tryAcquire("k");

        Decision decision = limiter.acquire("k", 1, Duration.ofSeconds(1));

        assertThat(listener.events).last().isEqualTo("allowed api k 1");
        assertThat(listener.events).filteredOn(e -> e.startsWith("allowed")).hasSize(2);
        assertThat(listener.decisions).last().isEqualTo(decision);
    }

    @Test
    void chainLayersHearTheirOwnDecisionsAndNothingOfGrantsThatWereUndone() {
        RecordingListener tenantListener = new RecordingListener();
        RecordingListener globalListener = new RecordingListener();
        RateLimiter tenant = engine.limiter(
                "tenant",
                TokenBucket.of(5, Duration.ofSeconds(1)),
                LimiterOptions.builder().listener(tenantListener).build());
        RateLimiter global = engine.limiter(
                "global",
                FixedWindow.of(2, Duration.ofSeconds(1)),
                LimiterOptions.builder().listener(globalListener).build());
        LimitChain<String> chain = engine.<String>chain()
                .layer(tenant, t -> t)
                .layer(global, "all")
                .build();

        chain.tryAcquire("acme");
        chain.tryAcquire("acme");
        Decision denial = chain.tryAcquire("acme");

        assertThat(denial.limiter()).isEqualTo("global");
        assertThat(tenantListener.events).containsExactly("allowed tenant acme 1", "allowed tenant acme 1");
        assertThat(globalListener.events)
                .containsExactly("allowed global all 1", "allowed global all 1", "denied global all 1");
        assertDecision(tenantListener.decisions.get(1), allowed("tenant", 5, 3, T0 + 400 * MS));
        assertDecision(globalListener.decisions.get(2), denied("global", 2, 0, SECOND, T0 + SECOND));
    }

    @Test
    void listenerIsTheOneOfTheLimiterThatDecides() {
        RecordingListener listener = new RecordingListener();
        RateLimiter limiter = engine.limiter(
                "api",
                TokenBucket.of(3, Duration.ofSeconds(1)),
                LimiterOptions.builder().listener(listener).build());

        RateLimiter again = engine.limiter("api", TokenBucket.of(3, Duration.ofSeconds(1)));
        again.tryAcquire("k", 3);

        assertThat(again.options().listener()).isSameAs(listener);
        assertThat(listener.events).isEqualTo(List.of("allowed api k 3"));
        assertThat(limiter).isSameAs(again);
    }

    /** A listener that throws on every event; the engine must log it and decide as if it were not there. */
    private static final class ThrowingListener implements LimiterListener {
        @Override
        public void onAllowed(String limiter, String key, long permits, Decision decision) {
            throw new IllegalStateException("listener failure on grant");
        }

        @Override
        public void onDenied(String limiter, String key, long permits, Decision decision) {
            throw new IllegalStateException("listener failure on denial");
        }

        @Override
        public void onKeyTableFull(String limiter, String key) {
            throw new IllegalStateException("listener failure on a full table");
        }

        @Override
        public void onEvicted(String limiter, String key) {
            throw new IllegalStateException("listener failure on eviction");
        }
    }

    @Test
    void aListenerThatThrowsChangesNoDecision() throws InterruptedException {
        LimiterOptions throwing = LimiterOptions.builder()
                .listener(new ThrowingListener())
                .maxKeys(1)
                .build();
        RateLimiter limiter = engine.limiter("api", TokenBucket.of(2, Duration.ofSeconds(1)), throwing);
        LimiterOptions unbounded =
                LimiterOptions.builder().listener(new ThrowingListener()).build();
        RateLimiter tenants = engine.limiter("tenants", TokenBucket.of(2, Duration.ofSeconds(1)), unbounded);
        RateLimiter global = engine.limiter("global", FixedWindow.of(3, Duration.ofSeconds(1)), unbounded);
        LimitChain<String> chain = engine.<String>chain()
                .layer(tenants, t -> t)
                .layer(global, "all")
                .build();

        assertDecision(limiter.tryAcquire("k"), allowed("api", 2, 1, T0 + 500 * MS));
        assertThat(limiter.tryConsume("k")).isTrue();
        assertDecision(limiter.tryAcquire("k"), denied("api", 2, 0, 500 * MS, T0 + SECOND));
        assertDecision(limiter.forKey("k").tryAcquire(), denied("api", 2, 0, 500 * MS, T0 + SECOND));
        assertDecision(limiter.tryAcquire("other"), allowed("api", 2, 1, T0 + 500 * MS));
        assertDecision(settled(limiter.tryAcquireAsync("other", 1)), allowed("api", 2, 0, T0 + SECOND));
        assertDecision(limiter.acquire("k", 1, Duration.ZERO), denied("api", 2, 0, 500 * MS, T0 + SECOND));

        assertDecision(chain.tryAcquire("acme"), allowed("tenants", 2, 1, T0 + 500 * MS));
        assertDecision(chain.tryAcquire("acme"), allowed("tenants", 2, 0, T0 + SECOND));
        assertDecision(chain.tryAcquire("acme"), denied("tenants", 2, 0, 500 * MS, T0 + SECOND));
        assertThat(global.available("all")).isEqualTo(1);
    }
}
