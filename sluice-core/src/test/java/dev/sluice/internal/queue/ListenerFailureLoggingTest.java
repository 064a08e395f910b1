package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.QueueOptions;
import dev.sluice.time.ManualClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A listener that throws is logged (issue 9: it was swallowed without a trace), and the queue goes on. */
class ListenerFailureLoggingTest {
    @Test
    void aThrowingListenerIsLoggedWithTheQueueAndItsException() throws InterruptedException {
        InMemoryQueue<String> queue =
                new InMemoryQueue<>("engine", "orders", Codec.utf8(), QueueOptions.defaults(), new ManualClock());
        queue.addListener(new QueueListener<>() {
            @Override
            public void onAdded(Job<String> job) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public String toString() {
                return "BuggyListener";
            }
        });
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            queue.add("n", "p");
            assertThat(queue.awaitListeners(Duration.ofSeconds(10))).isTrue();
        } finally {
            System.setErr(err);
        }

        String log = captured.toString(StandardCharsets.UTF_8);
        assertThat(log)
                .contains("WARN")
                .contains("BuggyListener")
                .contains("'orders'")
                .contains("java.lang.IllegalStateException: listener bug");
        assertThat(queue.counts().waiting()).isEqualTo(1);
    }
}
