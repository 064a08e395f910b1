package dev.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Codec;
import dev.sluice.queue.QueueOptions;
import dev.sluice.time.ManualClock;
import org.junit.jupiter.api.Test;

/** The in-memory engine itself: what it says it is, and that a closed engine refuses a queue before anything else. */
class InMemoryEngineTest {
    private final ManualClock clock = new ManualClock();
    private final InMemoryEngine engine = new InMemoryEngine(clock);

    @Test
    void namesItsClock() {
        assertThat(engine).hasToString("Sluice.inMemory(" + clock + ")");
    }

    @Test
    void aClosedEngineRefusesAQueueAsClosedWhateverItsArguments() {
        engine.close();

        assertThatThrownBy(() -> engine.queue("not a name", Codec.utf8(), QueueOptions.defaults()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(engine + " is closed");
        assertThatThrownBy(() -> engine.queue("jobs", null, QueueOptions.defaults()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(engine + " is closed");
    }
}
