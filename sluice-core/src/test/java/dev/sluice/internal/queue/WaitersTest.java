package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobNotFoundException;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobState;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WaitersTest {
    private final Waiters<String> waiters = new Waiters<>("q");

    private static Job<String> completed(String id) {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        return new Job<>(
                id,
                "n",
                "p",
                null,
                JobState.COMPLETED,
                JobOptions.defaults(),
                1,
                0,
                t,
                t,
                t,
                t,
                100,
                null,
                null,
                List.of());
    }

    @Test
    void aJobIsWaitedForFromTheFirstCallerUntilItFinishes() throws Exception {
        assertThat(waiters.waitsFor("a")).isFalse();
        CompletableFuture<Job<String>> first = waiters.outcomeOf("a");
        CompletableFuture<Job<String>> second = waiters.outcomeOf("a");
        waiters.outcomeOf("b");

        assertThat(waiters.waitsFor("a")).isTrue();
        assertThat(waiters.waitsFor("c")).isFalse();

        Undecoded<String> a =
                new Undecoded<>(completed("a"), "payload of a".getBytes(StandardCharsets.UTF_8), Codec.utf8());
        waiters.finished(a);

        assertThat(waiters.waitsFor("a")).isFalse();
        assertThat(waiters.waitsFor("b")).isTrue();
        assertThat(first.get(10, TimeUnit.SECONDS)).isSameAs(a.job());
        assertThat(a.job().payload()).as("decoded by the codec").isEqualTo("payload of a");
        assertThat(a.job().id()).isEqualTo("a");
        assertThat(second.get(10, TimeUnit.SECONDS)).isSameAs(a.job());
    }

    @Test
    void aRemovedJobEndsItsWaitersWithNotFound() {
        CompletableFuture<Job<String>> outcome = waiters.outcomeOf("a");

        waiters.removed("a");

        assertThat(waiters.waitsFor("a")).isFalse();
        assertThatThrownBy(() -> outcome.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(JobNotFoundException.class)
                .hasMessageContaining("it was removed before it finished");
    }

    @Test
    void closingEndsEveryWaiterAndForgetsTheJobsWaitedFor() {
        CompletableFuture<Job<String>> outcome = waiters.outcomeOf("a");
        CompletableFuture<Boolean> idle = waiters.idleSignal();
        IllegalStateException closed = new IllegalStateException("closed");

        waiters.closed(closed);

        assertThat(waiters.waitsFor("a")).isFalse();
        assertThatThrownBy(() -> outcome.get(10, TimeUnit.SECONDS)).cause().isSameAs(closed);
        assertThat(idle).isCompletedExceptionally();
        assertThat(idle.exceptionNow()).isSameAs(closed);
    }

    @Test
    void idleCompletesTheSignalsNotForgotten() {
        CompletableFuture<Boolean> kept = waiters.idleSignal();
        CompletableFuture<Boolean> forgotten = waiters.idleSignal();
        waiters.forget(forgotten);

        waiters.idle();

        assertThat(kept).isCompletedWithValue(true);
        assertThat(forgotten).isNotDone();
    }
}
