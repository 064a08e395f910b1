package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.SlidingWindowCounter;
import dev.sluice.limit.SlidingWindowLog;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Regressions of the chain's undo: another request on the same key between a chain's grant on an earlier layer
 * and its undo, after a later layer denied. Found in review; each test failed before the fix.
 */
class ChainUndoTest {

    /** Another thread's request, made while the chain sits between its layer-1 grant and its undo. */
    static final class Hook implements LimiterListener {
        final AtomicReference<Runnable> once = new AtomicReference<>();

        @Override
        public void onKeyTableFull(String limiter, String key) {
            Runnable r = once.getAndSet(null);
            if (r != null) r.run();
        }
    }

    /** Layer 2 with maxKeys 1, full of a busy key and an exhausted overflow: it denies, and its
     *  onKeyTableFull fires between layer 1's grant and the chain's undo. */
    static RateLimiter denyingLayer(Sluice sluice, Hook hook) {
        RateLimiter l2 = sluice.limiter(
                "l2",
                TokenBucket.of(1, Duration.ofHours(1)),
                LimiterOptions.builder().maxKeys(1).listener(hook).build());
        assertThat(l2.tryAcquire("busy").allowed()).isTrue(); // the one slot, busy for an hour
        assertThat(l2.tryAcquire("other").allowed()).isTrue(); // exhausts the shared overflow
        return l2;
    }

    @Test
    void tokenBucketUndoNeverReturnsPermitsAnotherRequestTookSince() {
        ManualClock clock = new ManualClock();
        Sluice sluice = Sluice.inMemory(clock);
        Hook hook = new Hook();
        RateLimiter l1 = sluice.limiter("l1", TokenBucket.of(1, Duration.ofSeconds(1)));
        RateLimiter l2 = denyingLayer(sluice, hook);
        LimitChain<String> chain =
                sluice.<String>chain().layer(l1, "a").layer(l2, k -> k).build();

        // While the chain is between l1's grant (made at t0) and its undo, 2 s pass and another
        // caller takes a's only permit at t0 + 2 s.
        hook.once.set(() -> {
            clock.advance(Duration.ofSeconds(2));
            assertThat(l1.tryAcquire("a").allowed()).isTrue();
        });
        assertThat(chain.tryAcquire("b").denied()).isTrue();

        // a has had 1 permit taken at this instant, capacity 1, 1 per second: the next must be denied.
        assertThat(l1.tryAcquire("a").allowed())
                .as("second permit at the same instant")
                .isFalse();
    }

    @Test
    void gcraUndoReturnsOnlyWhatIsLeftOfTheGrantAtUndoTime() {
        GcraAlgorithm alg =
                (GcraAlgorithm) Algorithm.of("x", TokenBucket.of(1, Duration.ofSeconds(1)), new ManualClock());
        KeyState s = alg.newState();
        long t0 = 1_000_000_000_000L, t1 = t0 + 2_000_000_000L;
        Decision chainGrant = alg.acquire(s, t0, 1, true);
        assertThat(alg.acquire(s, t1, 1, true).allowed()).isTrue();
        alg.undo(s, t1, 1, chainGrant); // the grant made at t0 has refilled by t1: nothing of it is left
        assertThat(alg.acquire(s, t1, 1, true).allowed()).isFalse();
    }

    /** A clock whose next reading is taken at t0 but delivered after another caller acted at t1 > t0:
     *  the interleaving of a thread preempted right after reading the clock. */
    static final class StaleOnceClock implements dev.sluice.time.SluiceClock {
        final ManualClock real = new ManualClock();
        final AtomicReference<Runnable> beforeNextRead = new AtomicReference<>();

        @Override
        public long nanos() {
            Runnable r = beforeNextRead.getAndSet(null);
            if (r == null) return real.nanos();
            long t0 = real.nanos();
            r.run();
            return t0;
        }

        @Override
        public void sleep(long n) throws InterruptedException {
            real.sleep(n);
        }

        @Override
        public Timer schedule(long d, Runnable t) {
            return real.schedule(d, t);
        }
    }

    @Test
    void slidingCounterUndoFindsAGrantThatLandedInALaterWindow() {
        StaleOnceClock clock = new StaleOnceClock();
        clock.real.advance(Duration.ofMillis(900)); // late in a 1 s window W0
        Sluice sluice = Sluice.inMemory(clock);
        Hook hook = new Hook();
        RateLimiter l1 = sluice.limiter("l1", SlidingWindowCounter.of(10, Duration.ofSeconds(1)));
        RateLimiter l2 = denyingLayer(sluice, hook);
        LimitChain<String> chain =
                sluice.<String>chain().layer(l1, "a").layer(l2, k -> k).build();

        // The chain reads t0 (in W0); before it decides, another caller takes 1 permit at t0 + 200 ms (W1).
        clock.beforeNextRead.set(() -> {
            clock.real.advance(Duration.ofMillis(200));
            assertThat(l1.tryAcquire("a").allowed()).isTrue();
        });
        assertThat(chain.tryAcquire("b").denied()).isTrue(); // l1 grant bumped into W1, then "undone"

        // Only the other caller's 1 permit is held: 9 of 10 must be available at t1.
        assertThat(l1.tryAcquire("a", 9).allowed()).as("9 of 10 left").isTrue();
    }

    @Test
    void slidingCounterUndoTakesFromTheWindowTheGrantWasCountedIn() {
        SlidingCounterAlgorithm alg = (SlidingCounterAlgorithm)
                Algorithm.of("x", SlidingWindowCounter.of(10, Duration.ofSeconds(1)), new ManualClock());
        KeyState s = alg.newState();
        long w = 1_000_000_000L;
        long t0 = 1_000 * w + 900_000_000L; // late in window W0
        long t1 = 1_001 * w + 100_000_000L; // early in window W1
        assertThat(alg.acquire(s, t1, 1, true).allowed()).isTrue(); // another thread, read its clock later, went first
        Decision chainGrant = alg.acquire(s, t0, 1, true); // chain's grant: bumped into W1
        assertThat(chainGrant.allowed()).isTrue();
        alg.undo(s, t1, 1, chainGrant); // chain denied by a later layer
        assertThat(alg.acquire(s, t1, 9, false).allowed())
                .as("9 of 10 left after the undo")
                .isTrue();
    }

    @Test
    void slidingLogUndoLeavesNoEmptyEntryBehindToSkewResetAt() {
        ManualClock clock = new ManualClock();
        Sluice sluice = Sluice.inMemory(clock);
        Hook hook = new Hook();
        RateLimiter l1 = sluice.limiter("l1", SlidingWindowLog.of(2, Duration.ofSeconds(10)));
        RateLimiter l2 = denyingLayer(sluice, hook);
        LimitChain<String> chain =
                sluice.<String>chain().layer(l1, "a").layer(l2, k -> k).build();
        long t0 = clock.nanos();
        assertThat(l1.tryAcquire("a").allowed()).isTrue(); // the only real grant, at t0
        clock.advance(Duration.ofSeconds(1));
        assertThat(chain.tryAcquire("b").denied()).isTrue(); // grant at t0+1s, undone
        clock.advance(Duration.ofSeconds(1));
        Decision d = l1.tryAcquire("a", 2);
        assertThat(d.denied()).isTrue();
        assertThat(d.resetAtNanos()).as("back to full when the t0 grant leaves").isEqualTo(t0 + 10_000_000_000L);
    }

    @Test
    void clocksBeyondTheSupportedRangeAreRefusedSoLimitArithmeticCannotWrap() {
        assertThatThrownBy(() -> new ManualClock(Instant.ofEpochSecond(0, Long.MAX_VALUE - 500_000_000L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf(dev.sluice.time.SluiceClock.MAX_NANOS));
        ManualClock clock =
                new ManualClock(Instant.EPOCH.plusNanos(dev.sluice.time.SluiceClock.MAX_NANOS - 500_000_000L));
        RateLimiter bucket = Sluice.inMemory(clock).limiter("g", TokenBucket.of(1, Duration.ofSeconds(1)));
        RateLimiter window = Sluice.inMemory(clock).limiter("f", FixedWindow.of(1, Duration.ofSeconds(1)));
        assertThat(bucket.tryAcquire("a").allowed()).isTrue();
        assertThat(bucket.tryAcquire("a").allowed()).as("capacity 1").isFalse();
        window.tryAcquire("a");
        Decision denied = window.tryAcquire("a");
        assertThat(denied.denied()).isTrue();
        assertThat(denied.retryAfterNanos()).isPositive();
        assertThat(denied.resetAtNanos()).isGreaterThan(clock.nanos());
    }

    @Test
    void sleepingForeverOnAManualClockStopsAtTheEndOfItsRange() throws Exception {
        ManualClock clock = new ManualClock();
        clock.sleep(Long.MAX_VALUE);
        assertThat(clock.nanos()).isEqualTo(dev.sluice.time.SluiceClock.MAX_NANOS);
        assertThatThrownBy(() -> clock.advanceNanos(1)).isInstanceOf(IllegalArgumentException.class);
    }
}
