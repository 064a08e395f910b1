package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.GroupLimits;
import dev.sluice.queue.JobOptions;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerInfo;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What the contract cannot show with one engine: tools in one process see and manage the queues of another (two
 * engines on the same keys stand for two processes), workers' heartbeats, and that obliterating leaves no key behind.
 */
class RedisQueueAdministrationTest {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Codec<String> JSON =
            Codec.of("json", s -> s.getBytes(StandardCharsets.UTF_8), b -> new String(b, StandardCharsets.UTF_8));

    private final String prefix = TestEngines.newPrefix();
    private final ManualClock clockA = new ManualClock(START);
    private final ManualClock clockB = new ManualClock(START);

    private long keysOfPrefix() {
        return TestEngines.commands().keys(prefix + ":*").size();
    }

    @Test
    void aToolSeesEveryQueueOfThePrefixAndOpensItWithoutKnowingItsCodec() {
        try (Sluice app = TestEngines.on(clockA, prefix);
                Sluice tool = TestEngines.on(clockB, prefix)) {
            JobQueue<String> orders = app.queue("orders", JSON);
            orders.add(
                    "charge",
                    "{\"cents\":100}",
                    JobOptions.builder().jobId("c1").build());
            app.queue("mail", Codec.utf8());

            assertThat(tool.queueNames()).containsExactly("mail", "orders");
            JobQueue<?> seen = tool.existingQueue("orders").orElseThrow();

            assertThat(seen.codec().name()).isEqualTo("json");
            assertThat(seen.counts().waiting()).isEqualTo(1);
            assertThat((byte[]) seen.job("c1").orElseThrow().payload())
                    .isEqualTo("{\"cents\":100}".getBytes(StandardCharsets.UTF_8));
            assertThat(tool.existingQueue("orders").orElseThrow()).isSameAs(seen);
        }
    }

    @Test
    void askingForAQueueThatDoesNotExistWritesNoKey() {
        try (Sluice tool = TestEngines.on(clockA, prefix)) {
            assertThat(tool.existingQueue("typo")).isEmpty();
            assertThat(tool.queueNames()).isEmpty();
            assertThat(keysOfPrefix()).isZero();
        }
    }

    @Test
    void aWorkerOfAnotherProcessIsListedWithItsLeaseAndBlocksObliteration() throws Exception {
        try (Sluice app = TestEngines.on(clockA, prefix);
                Sluice tool = TestEngines.on(clockB, prefix)) {
            JobQueue<String> queue = app.queue("jobs", Codec.utf8());
            queue.add("n", "p", JobOptions.builder().jobId("j").build());
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch go = new CountDownLatch(1);
            Worker<String> worker = queue.worker(
                    ctx -> {
                        started.countDown();
                        go.await();
                        return Result.done();
                    },
                    WorkerOptions.builder().concurrency(2).leaseTime(LEASE).build());
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

            JobQueue<?> seen = tool.existingQueue("jobs").orElseThrow();
            WorkerInfo info = seen.workers().get(0);
            assertThat(info.concurrency()).isEqualTo(2);
            assertThat(info.running()).containsExactly("j");
            assertThat(info.leaseEnds()).isEqualTo(START.plus(LEASE));
            assertThat(info.startedAt()).isEqualTo(START);
            assertThatThrownBy(() -> seen.obliterate(false))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("1 worker attached")
                    .hasMessageContaining(info.host() + ":" + info.pid());
            assertThat(tool.queueNames()).containsExactly("jobs");

            go.countDown();
            worker.close();
            assertThat(seen.workers()).isEmpty();
        }
    }

    @Test
    void aWorkerNotHeardOfForThreeHeartbeatsIsDropped() {
        try (Sluice app = TestEngines.on(clockA, prefix);
                Sluice tool = TestEngines.on(clockB, prefix)) {
            JobQueue<String> queue = app.queue("jobs", Codec.utf8());
            queue.worker(
                    ctx -> Result.done(),
                    WorkerOptions.builder().leaseTime(LEASE).build());
            JobQueue<?> seen = tool.existingQueue("jobs").orElseThrow();
            assertThat(seen.workers()).hasSize(1);

            clockB.advance(LEASE); // three heartbeats of a third of the lease: still within them
            assertThat(seen.workers()).hasSize(1);
            clockB.advance(Duration.ofNanos(1_000));
            assertThat(seen.workers())
                    .as("the app's clock stood still: it beat no more")
                    .isEmpty();
        }
    }

    @Test
    void aQueueThatAnotherProcessGoesOnUsingAfterItWasObliteratedIsListedAgain() {
        try (Sluice app = TestEngines.on(clockA, prefix);
                Sluice tool = TestEngines.on(clockB, prefix)) {
            JobQueue<String> queue = app.queue("jobs", Codec.utf8());
            queue.add("n", "p");
            tool.existingQueue("jobs").orElseThrow().obliterate(true);
            assertThat(tool.queueNames()).isEmpty();

            queue.add("n", "p"); // the app's process restores the settings it knows

            assertThat(tool.queueNames()).containsExactly("jobs");
            assertThat(tool.existingQueue("jobs").orElseThrow().counts().waiting())
                    .isEqualTo(1);
        }
    }

    @Test
    void obliteratingLeavesNoKeyOfTheQueueAndKeepsTheOthers() {
        try (Sluice app = TestEngines.on(clockA, prefix)) {
            JobQueue<String> doomed = app.queue("doomed", Codec.utf8());
            JobQueue<String> kept = app.queue("doomed2", Codec.utf8());
            for (int i = 0; i < 1_200; i++) {
                doomed.add("n", "p", JobOptions.builder().group("g" + (i % 600)).build());
            }
            doomed.setGroupLimits("g1", GroupLimits.builder().concurrency(1).build());
            doomed.worker(ctx -> Result.done(), WorkerOptions.manual()).runDue();
            kept.add("n", "p");

            doomed.obliterate(false);

            assertThat(TestEngines.commands().keys(prefix + ":queue:{doomed}*")).isEmpty();
            assertThat(TestEngines.commands().keys(prefix + ":queue:{doomed2}*"))
                    .isNotEmpty();
            assertThat(app.queueNames()).containsExactly("doomed2");
            assertThat(kept.counts().waiting()).isEqualTo(1);
        }
    }
}
