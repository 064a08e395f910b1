package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.EngineListener;
import dev.sluice.Sluice;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.NamedLimiter;
import dev.sluice.limit.RateLimiter;
import dev.sluice.queue.JobQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Making and announcing limiters and queues: each name is made once, and a slow listener holds up no other opening
 * (regression: listeners ran under the engine-wide lock).
 */
class EngineListenersTest {
    private final EngineListeners listeners = new EngineListeners("engine", () -> false);
    private final ConcurrentHashMap<String, RateLimiter> limiters = new ConcurrentHashMap<>();
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final CountDownLatch release = new CountDownLatch(1);

    /** Where the limiters in these tests come from: any limiter will do as the value of the map. */
    private final Sluice source = Sluice.inMemory();

    @AfterEach
    void releaseAndStop() {
        release.countDown();
        threads.shutdownNow();
        source.close();
    }

    private RateLimiter limiterNamed(String name) {
        return source.limiter(name, FixedWindow.of(1, Duration.ofSeconds(1)));
    }

    private <T> CompletableFuture<T> onAnotherThread(Supplier<T> call) {
        return CompletableFuture.supplyAsync(call, threads);
    }

    @Test
    void oneNameIsMadeOnceWhateverTheThreadsAndAFailedMakingIsTriedAgain() throws Exception {
        AtomicInteger made = new AtomicInteger();
        assertThatThrownBy(() -> listeners.limiter(limiters, "x", n -> {
                    throw new IllegalStateException("Redis is down");
                }))
                .hasMessage("Redis is down");
        List<CompletableFuture<RateLimiter>> opened = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            opened.add(onAnotherThread(() -> listeners.limiter(limiters, "x", n -> {
                made.incrementAndGet();
                return limiterNamed(n);
            })));
        }
        RateLimiter first = opened.get(0).get(10, TimeUnit.SECONDS);
        for (CompletableFuture<RateLimiter> each : opened) {
            assertThat(each.get(10, TimeUnit.SECONDS)).isSameAs(first);
        }
        assertThat(made).hasValue(1);
    }

    @Test
    void aListenerIsToldOutsideTheEngineLockSoASlowOneHoldsUpNoOtherOpening() throws Exception {
        CountDownLatch told = new CountDownLatch(1);
        listeners.add(
                new EngineListener() {
                    @Override
                    public void onLimiterOpened(NamedLimiter limiter) {
                        if (limiter.name().equals("slow")) {
                            told.countDown();
                            await(release);
                        }
                    }

                    @Override
                    public void onQueueOpened(JobQueue<?> queue) {}
                },
                List.of(),
                List.of());
        CompletableFuture<RateLimiter> slow =
                onAnotherThread(() -> listeners.limiter(limiters, "slow", this::limiterNamed));
        assertThat(told.await(10, TimeUnit.SECONDS)).isTrue();

        RateLimiter other = onAnotherThread(() -> listeners.limiter(limiters, "other", this::limiterNamed))
                .get(10, TimeUnit.SECONDS);

        assertThat(other.name()).isEqualTo("other");
        release.countDown();
        assertThat(slow.get(10, TimeUnit.SECONDS).name()).isEqualTo("slow");
    }

    /**
     * Pins the cause of an issue: names were made inside the map's computeIfAbsent, so a slow making (a Redis queue's
     * round trip) held up every name in its bin; "Aa" and "BB" have one hash code, so they always share one.
     */
    @Test
    void aSlowMakingHoldsUpNoOtherNameAndItsOtherOpenersWaitForIt() throws Exception {
        CountDownLatch making = new CountDownLatch(1);
        AtomicInteger made = new AtomicInteger();
        CompletableFuture<RateLimiter> slow = onAnotherThread(() -> listeners.limiter(limiters, "Aa", n -> {
            made.incrementAndGet();
            making.countDown();
            await(release);
            return limiterNamed(n);
        }));
        assertThat(making.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<RateLimiter> sameName = onAnotherThread(() -> listeners.limiter(limiters, "Aa", n -> {
            made.incrementAndGet();
            return limiterNamed(n);
        }));

        RateLimiter other = onAnotherThread(() -> listeners.limiter(limiters, "BB", this::limiterNamed))
                .get(10, TimeUnit.SECONDS);

        assertThat(other.name()).isEqualTo("BB");
        assertThat(sameName).isNotDone();
        release.countDown();
        assertThat(sameName.get(10, TimeUnit.SECONDS)).isSameAs(slow.get(10, TimeUnit.SECONDS));
        assertThat(made).hasValue(1);
    }

    @Test
    void aCloseWaitsForAMakingInProgressAndNoMakingBeginsAfterIt() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
        EngineListeners ofEngine = new EngineListeners("engine", closed::get);
        CountDownLatch making = new CountDownLatch(1);
        CompletableFuture<RateLimiter> slow = onAnotherThread(() -> ofEngine.limiter(limiters, "slow", n -> {
            making.countDown();
            await(release);
            return limiterNamed(n);
        }));
        assertThat(making.await(10, TimeUnit.SECONDS)).isTrue();
        closed.set(true);

        Thread closing = Thread.ofPlatform().start(ofEngine::awaitMakings);
        Awaitility.await("the close waiting")
                .atMost(Duration.ofSeconds(10))
                .until(() -> closing.getState() == Thread.State.WAITING);
        assertThat(closing.isAlive()).isTrue();
        release.countDown();
        closing.join(10_000);
        assertThat(closing.isAlive()).as("the close, once the making ended").isFalse();
        assertThat(slow.get(10, TimeUnit.SECONDS).name()).isEqualTo("slow");
        assertThatThrownBy(() -> ofEngine.limiter(limiters, "late", this::limiterNamed))
                .isInstanceOf(IllegalStateException.class);
        assertThat(limiters).doesNotContainKey("late");
    }

    /** A listener that logs the limiters it is told of: "name opened". */
    private static EngineListener logging(List<String> log, String name) {
        return new EngineListener() {
            @Override
            public void onLimiterOpened(NamedLimiter limiter) {
                log.add(name + " heard " + limiter.name());
            }

            @Override
            public void onQueueOpened(JobQueue<?> queue) {}
        };
    }

    @Test
    void removingOneOfSeveralListenersLeavesEveryOtherInItsPlace() {
        List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();
        EngineListener a = logging(log, "a");
        EngineListener b = logging(log, "b");
        EngineListener c = logging(log, "c");
        listeners.add(a, List.of(), List.of());
        listeners.add(b, List.of(), List.of());
        listeners.add(c, List.of(), List.of());

        assertThat(listeners.remove(b)).isTrue();
        listeners.limiter(limiters, "x", this::limiterNamed);
        assertThat(listeners.remove(b)).isFalse();
        assertThat(listeners.remove(a)).isTrue();
        listeners.limiter(limiters, "y", this::limiterNamed);

        assertThat(log).containsExactly("a heard x", "c heard x", "c heard y");
    }

    @Test
    void clearingDropsEveryListenerAndWhatWasAnnounced() {
        List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();
        listeners.add(logging(log, "before"), List.of(), List.of());
        RateLimiter x = listeners.limiter(limiters, "x", this::limiterNamed);

        listeners.clear();
        listeners.limiter(limiters, "y", this::limiterNamed);
        listeners.add(logging(log, "after"), List.of(x), List.of());

        assertThat(log)
                .as("nothing after the clear, and x is not announced again")
                .containsExactly("before heard x");
    }

    @Test
    void aClosedEngineRefusesAListenerBeforeTellingItAnything() {
        java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
        EngineListeners ofEngine = new EngineListeners("engine", closed::get);
        List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();
        RateLimiter x = ofEngine.limiter(limiters, "x", this::limiterNamed);
        closed.set(true);

        assertThatThrownBy(() -> ofEngine.add(logging(log, "late"), List.of(x), List.of()))
                .isInstanceOf(IllegalStateException.class);
        assertThat(log).isEmpty();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
