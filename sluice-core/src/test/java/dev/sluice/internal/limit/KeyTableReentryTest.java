package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.Decision;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The key table when the same key is inserted while an insert of it is under way: what another caller does from
 * the listener the table calls in between stands for another thread's request at that moment.
 */
class KeyTableReentryTest {
    private static final long HOUR = Duration.ofHours(1).toNanos();
    private static final long T = 1_000 * 1_000_000_000L;

    /** 1 permit, back after an hour. */
    private final Algorithm algorithm =
            Algorithm.of("api", TokenBucket.of(1, 1, Duration.ofHours(1)), new ManualClock());

    /** Runs the next action set, once, when the table reports the key table full or a key evicted. */
    static final class Interleave implements LimiterListener {
        final AtomicReference<Runnable> once = new AtomicReference<>();

        @Override
        public void onKeyTableFull(String limiter, String key) {
            run();
        }

        @Override
        public void onEvicted(String limiter, String key) {
            run();
        }

        private void run() {
            Runnable action = once.getAndSet(null);
            if (action != null) {
                action.run();
            }
        }
    }

    @Test
    void aConsumeSentToTheOverflowWhileTheKeyGotItsOwnSlotIsDecidedOnThatSlot() {
        Interleave interleave = new Interleave();
        KeyTable table = new KeyTable("api", 1, interleave, T);
        assertThat(table.consume("busy", algorithm, T, 1)).isEqualTo(Algorithm.GRANTED);
        // While K is on its way to the overflow, an hour later, busy is idle and K gets busy's slot and permit.
        AtomicReference<Integer> other = new AtomicReference<>();
        interleave.once.set(() -> other.set(table.consume("K", algorithm, T + HOUR, 1)));

        int outcome = table.consume("K", algorithm, T, 1);

        assertThat(other.get()).isEqualTo(Algorithm.GRANTED);
        assertThat(table.tracks("K")).isTrue();
        assertThat(outcome).as("K's one permit went to the other request").isEqualTo(Algorithm.DENIED);
    }

    @Test
    void aKeyInsertedByAnotherRequestDuringASweepIsDecidedOnThatRequestsState() {
        Interleave interleave = new Interleave();
        KeyTable table = new KeyTable("api", 2, interleave, T);
        table.decide("a", algorithm, T, 1, true, null, 0);
        table.decide("b", algorithm, T, 1, true, null, 0);
        assertThat(table.decide("c", algorithm, T, 1, true, null, 0).allowed())
                .as("c in the overflow")
                .isTrue();
        // An hour later the idle sweep drops a; while it does, another request of d takes d's one permit.
        AtomicReference<Decision> other = new AtomicReference<>();
        interleave.once.set(() -> other.set(table.decide("d", algorithm, T + HOUR, 1, true, null, 0)));

        Decision decision = table.decide("d", algorithm, T + HOUR, 1, true, null, 0);

        assertThat(other.get().allowed()).isTrue();
        assertThat(decision.allowed())
                .as("d's one permit went to the other request")
                .isFalse();
        assertThat(table.size()).isEqualTo(1);
    }
}
