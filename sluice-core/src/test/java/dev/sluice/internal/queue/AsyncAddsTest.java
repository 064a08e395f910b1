package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.QueueFullException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class AsyncAddsTest {
    private static final long NOW = 1_000;

    /** The deadline of each call, in order. */
    private final List<Long> deadlines = new CopyOnWriteArrayList<>();

    private static QueueFullException full() {
        return new QueueFullException("q", null, 1, "full");
    }

    /** An add that finds the queue full at the call and has room when it waits, then answers {@code result}. */
    private LongFunction<String> fullAtFirstThen(Supplier<String> result) {
        return deadline -> {
            deadlines.add(deadline);
            if (deadline == NOW) {
                throw full();
            }
            return result.get();
        };
    }

    @Test
    void anAddThatFitsCompletesOnTheCallerWithNoWait() {
        Thread caller = Thread.currentThread();
        Thread[] ranOn = new Thread[1];

        CompletableFuture<String> added = AsyncAdds.add(
                deadline -> {
                    deadlines.add(deadline);
                    ranOn[0] = Thread.currentThread();
                    return "added";
                },
                NOW,
                50,
                "adder");

        assertThat(added).isCompletedWithValue("added");
        assertThat(deadlines).containsExactly(NOW);
        assertThat(ranOn[0]).isSameAs(caller);
    }

    @Test
    void anAddThatFailsOtherwiseThanFullFailsAtOnce() {
        IllegalArgumentException bad = new IllegalArgumentException("bad");

        CompletableFuture<String> added = AsyncAdds.add(
                deadline -> {
                    deadlines.add(deadline);
                    throw bad;
                },
                NOW,
                50,
                "adder");

        assertThat(added).isCompletedExceptionally();
        assertThat(added.exceptionNow()).isSameAs(bad);
        assertThat(deadlines).containsExactly(NOW);
    }

    @Test
    void aFullQueueThatDoesNotWaitRejectsAtOnce() {
        QueueFullException full = full();

        CompletableFuture<String> added = AsyncAdds.add(
                deadline -> {
                    deadlines.add(deadline);
                    throw full;
                },
                NOW,
                0,
                "adder");

        assertThat(added.exceptionNow()).isSameAs(full);
        assertThat(deadlines).containsExactly(NOW);
    }

    @Test
    void aFullQueueThatWaitsTriesAgainOnItsOwnThreadUntilTheDeadlineFixedAtTheCall() throws Exception {
        CompletableFuture<String> added =
                AsyncAdds.add(fullAtFirstThen(() -> Thread.currentThread().getName()), NOW, 50, "adder");

        assertThat(added.get(10, TimeUnit.SECONDS)).isEqualTo("adder");
        assertThat(deadlines).containsExactly(NOW, NOW + 50);
    }

    @Test
    void aWaitTooLongToAddToNowWaitsToTheEndOfTime() throws Exception {
        CompletableFuture<String> added = AsyncAdds.add(fullAtFirstThen(() -> "added"), NOW, Long.MAX_VALUE, "adder");

        assertThat(added.get(10, TimeUnit.SECONDS)).isEqualTo("added");
        assertThat(deadlines).containsExactly(NOW, Long.MAX_VALUE);
    }

    @Test
    void whatTheWaitingTryThrowsFailsTheFuture() {
        QueueFullException stillFull = full();

        CompletableFuture<String> added = AsyncAdds.add(
                deadline -> {
                    throw deadline == NOW ? full() : stillFull;
                },
                NOW,
                50,
                "adder");

        assertThatThrownBy(() -> added.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isSameAs(stillFull);
    }
}
