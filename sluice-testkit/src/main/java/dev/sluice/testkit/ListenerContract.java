package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link dev.sluice.limit.LimiterListener}: hears every decision a limiter makes, with that decision. */
public abstract class ListenerContract extends ContractSupport {
    @Test
    void hearsEveryGrantAndDenialWithTheDecisionReturned() {
        RecordingListener listener = new RecordingListener();
        RateLimiter limiter = engine.limiter(
                "fw",
                FixedWindow.of(2, Duration.ofSeconds(1)),
                LimiterOptions.defaults().withListener(listener));

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
                LimiterOptions.defaults().withListener(listener));
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
                LimiterOptions.defaults().withListener(listener));
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
                LimiterOptions.defaults().withListener(tenantListener));
        RateLimiter global = engine.limiter(
                "global",
                FixedWindow.of(2, Duration.ofSeconds(1)),
                LimiterOptions.defaults().withListener(globalListener));
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
                LimiterOptions.defaults().withListener(listener));

        RateLimiter again = engine.limiter("api", TokenBucket.of(3, Duration.ofSeconds(1)));
        again.tryAcquire("k", 3);

        assertThat(again.options().listener()).isSameAs(listener);
        assertThat(listener.events).isEqualTo(List.of("allowed api k 3"));
        assertThat(limiter).isSameAs(again);
    }
}
