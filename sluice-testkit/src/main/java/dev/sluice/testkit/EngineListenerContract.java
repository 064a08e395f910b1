package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.EngineListener;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * {@link EngineListener} ({@link dev.sluice.Sluice#addListener}): one listener hears the decisions of every
 * limiter, whatever its own options, and each limiter and queue of the engine exactly once, whether it was there
 * before the listener or came after.
 */
public abstract class EngineListenerContract extends ContractSupport {
    private static final FixedWindow TWO_PER_SECOND = FixedWindow.of(2, Duration.ofSeconds(1));

    /** For subclasses, one per engine. */
    protected EngineListenerContract() {}

    /** Records what it hears as text: decisions as {@link RecordingListener} does, and "limiter NAME", "queue NAME". */
    static class Recording implements EngineListener {
        final RecordingListener decisions = new RecordingListener();
        final List<String> opened = new CopyOnWriteArrayList<>();
        final List<String> availability = new CopyOnWriteArrayList<>();

        @Override
        public void onLimiterOpened(NamedLimiter limiter) {
            opened.add("limiter " + limiter.name());
        }

        @Override
        public void onQueueOpened(JobQueue<?> queue) {
            opened.add("queue " + queue.name());
        }

        @Override
        public void onAllowed(String limiter, String key, long permits, Decision decision) {
            decisions.onAllowed(limiter, key, permits, decision);
        }

        @Override
        public void onDenied(String limiter, String key, long permits, Decision decision) {
            decisions.onDenied(limiter, key, permits, decision);
        }

        @Override
        public void onUnavailable(String limiter, Throwable cause) {
            availability.add("unavailable " + limiter);
        }

        @Override
        public void onRecovered(String limiter) {
            availability.add("recovered " + limiter);
        }
    }

    @Test
    void hearsTheDecisionsOfEveryLimiterBeforeAndAfterItWasAddedWhateverTheirOwnListeners() {
        RateLimiter before = engine.limiter("before", TWO_PER_SECOND);
        Recording listener = new Recording();
        engine.addListener(listener);
        RecordingListener own = new RecordingListener();
        RateLimiter after = engine.limiter(
                "after", TWO_PER_SECOND, LimiterOptions.builder().listener(own).build());

        Decision first = before.tryAcquire("k");
        before.tryConsume("k");
        Decision third = before.tryAcquire("k");
        Decision fourth = after.tryAcquire("k", 2);

        assertThat(listener.decisions.events)
                .containsExactly("allowed before k 1", "allowed before k 1", "denied before k 1", "allowed after k 2");
        assertThat(listener.decisions.decisions).contains(first, third, fourth);
        assertThat(own.events).as("the limiter's own listener still hears it").containsExactly("allowed after k 2");
    }

    @Test
    void hearsEachLimiterAndQueueOnceThoseBeforeItAtTheAddThoseAfterAtTheirCreation() {
        engine.limiter("a", TWO_PER_SECOND);
        engine.queue("q1", Codec.utf8());
        Recording listener = new Recording();

        engine.addListener(listener);
        assertThat(listener.opened).containsExactly("limiter a", "queue q1");

        engine.limiter("b", TWO_PER_SECOND);
        engine.queue("q2", Codec.utf8());
        engine.limiter("a", TWO_PER_SECOND);
        engine.queue("q1", Codec.utf8());
        engine.limiter("b", TWO_PER_SECOND);

        assertThat(listener.opened).containsExactly("limiter a", "queue q1", "limiter b", "queue q2");
    }

    @Test
    void aLimiterOrQueueRefusedAtItsOpeningIsNotAnnounced() {
        Recording listener = new Recording();
        engine.addListener(listener);
        engine.limiter("a", TWO_PER_SECOND);
        engine.queue("q", Codec.utf8());

        assertRejected(() -> engine.limiter("a", TokenBucket.of(5, Duration.ofSeconds(1))), "a");
        assertRejected(() -> engine.queue("q", Codec.bytes()), "q");
        assertRejected(() -> engine.limiter("bad name", TWO_PER_SECOND), "bad name");

        assertThat(listener.opened).containsExactly("limiter a", "queue q");
    }

    @Test
    void chainLayersTellTheEngineListenerWhatTheyTellTheirOwn() {
        RateLimiter tenant = engine.limiter("tenant", TokenBucket.of(5, Duration.ofSeconds(1)));
        RateLimiter global = engine.limiter("global", TokenBucket.of(1, Duration.ofSeconds(1)));
        LimitChain<String> chain = engine.<String>chain()
                .layer(tenant, t -> t)
                .layer(global, "all")
                .build();
        Recording listener = new Recording();
        engine.addListener(listener);

        chain.tryAcquire("acme");
        chain.tryAcquire("acme");

        assertThat(listener.decisions.events)
                .containsExactly("allowed tenant acme 1", "allowed global all 1", "denied global all 1");
    }

    @Test
    void aRemovedListenerHearsNothingMoreAndEachAdditionIsRemovedOnItsOwn() {
        RateLimiter limiter = engine.limiter("a", TWO_PER_SECOND);
        Recording listener = new Recording();
        engine.addListener(listener);
        engine.addListener(listener);
        limiter.tryAcquire("k");
        assertThat(listener.decisions.events).containsExactly("allowed a k 1", "allowed a k 1");

        assertThat(engine.removeListener(listener)).isTrue();
        limiter.tryAcquire("k");
        assertThat(engine.removeListener(listener)).isTrue();
        limiter.tryAcquire("k");
        engine.limiter("b", TWO_PER_SECOND);

        assertThat(engine.removeListener(listener)).isFalse();
        assertThat(engine.removeListener(new Recording())).isFalse();
        assertThat(listener.decisions.events)
                .as("twice for the first grant, once for the second, never for the denial")
                .containsExactly("allowed a k 1", "allowed a k 1", "allowed a k 1");
        assertThat(listener.opened).containsExactly("limiter a", "limiter a");
    }

    @Test
    void whatAListenerThrowsChangesNothingAndTheOthersStillHear() {
        EngineListener throwing = new EngineListener() {
            @Override
            public void onLimiterOpened(NamedLimiter limiter) {
                throw new IllegalStateException("broken metrics");
            }

            @Override
            public void onQueueOpened(JobQueue<?> queue) {
                throw new IllegalStateException("broken metrics");
            }

            @Override
            public void onAllowed(String limiter, String key, long permits, Decision decision) {
                throw new IllegalStateException("broken metrics");
            }
        };
        Recording listener = new Recording();
        engine.limiter("before", TWO_PER_SECOND);
        engine.addListener(throwing);
        engine.addListener(listener);

        RateLimiter limiter = engine.limiter("a", TWO_PER_SECOND);
        JobQueue<String> queue = engine.queue("q", Codec.utf8());
        Decision decision = limiter.tryAcquire("k");

        assertThat(decision.allowed()).isTrue();
        assertThat(limiter.tryAcquire("k").remaining()).isZero();
        assertThat(queue.name()).isEqualTo("q");
        assertThat(listener.opened).containsExactly("limiter before", "limiter a", "queue q");
        assertThat(listener.decisions.events).containsExactly("allowed a k 1", "allowed a k 1");
    }

    @Test
    void eachLimiterCreatedWhileListenersAreAddedIsHeardExactlyOnceByEach() throws Exception {
        int threads = 4;
        int perThread = 100;
        List<Recording> listeners = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> creating = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                creating.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        engine.limiter("l-" + thread + "-" + i, TWO_PER_SECOND);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (int i = 0; i < 20; i++) {
                Recording listener = new Recording();
                engine.addListener(listener);
                listeners.add(listener);
            }
            for (Future<?> future : creating) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }

        List<String> every = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < perThread; i++) {
                every.add("limiter l-" + t + "-" + i);
            }
        }
        for (Recording listener : listeners) {
            assertThat(listener.opened).containsExactlyInAnyOrderElementsOf(every);
        }
    }

    @Test
    void aNullListenerIsRefusedAndAClosedEngineRefusesBoth() {
        assertRejected(() -> engine.addListener(null), "listener", "EngineListener.none()");
        engine.addListener(EngineListener.none());
        assertThat(engine.removeListener(EngineListener.none())).isTrue();

        engine.close();

        assertThatThrownBy(() -> engine.addListener(new Recording()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(engine.toString());
        assertThatThrownBy(() -> engine.removeListener(EngineListener.none()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(engine.toString());
    }
}
