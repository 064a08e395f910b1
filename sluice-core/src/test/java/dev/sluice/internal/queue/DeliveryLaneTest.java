package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class DeliveryLaneTest {
    /** What the lane's drain takes: work placed by many threads, taken by one drain at a time. */
    private final AtomicLong placed = new AtomicLong();

    private final AtomicLong taken = new AtomicLong();
    private final AtomicInteger drainsAtOnce = new AtomicInteger();
    private final AtomicBoolean overlapped = new AtomicBoolean();
    private final List<Thread> drainers = new ArrayList<>();

    private final DeliveryLane lane = new DeliveryLane("test-lane", () -> {
        if (drainsAtOnce.incrementAndGet() > 1) {
            overlapped.set(true);
        }
        synchronized (drainers) {
            drainers.add(Thread.currentThread());
        }
        taken.set(placed.get());
        drainsAtOnce.decrementAndGet();
    });

    @RepeatedTest(20)
    void workPlacedAndKickedByManyThreadsIsAlwaysTakenAndByOneDrainAtATime() throws Exception {
        int threads = 4;
        int rounds = 5_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> producers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            producers.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < rounds; i++) {
                    placed.incrementAndGet();
                    lane.kick();
                }
            }));
        }
        start.countDown();
        for (Thread producer : producers) {
            producer.join();
        }

        // a kick lost while the drain ended would leave the last work untaken for good
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> taken.get() == (long) threads * rounds);
        assertThat(overlapped).as("two drains ran at once").isFalse();
        assertThat(drainers).doesNotContainAnyElementsOf(producers);
    }

    @Test
    void theLaneThreadKnowsItselfAndNoOtherThreadIsIt() throws Exception {
        AtomicBoolean sawItself = new AtomicBoolean();
        CountDownLatch drained = new CountDownLatch(1);
        DeliveryLane[] self = new DeliveryLane[1];
        self[0] = new DeliveryLane("test-lane", () -> {
            sawItself.set(self[0].isLaneThread());
            drained.countDown();
        });

        self[0].kick();

        assertThat(drained.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(sawItself).isTrue();
        assertThat(self[0].isLaneThread()).isFalse();
    }

    @Test
    void aDrainThatThrowsLeavesTheLaneWorking() {
        AtomicInteger drains = new AtomicInteger();
        DeliveryLane throwing = new DeliveryLane("test-lane", () -> {
            if (drains.incrementAndGet() == 1) {
                throw new IllegalStateException("a bug in the drain");
            }
        });

        throwing.kick();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> drains.get() == 1);
        throwing.kick(); // after the first drain began: it makes one more, whether the lane stopped or not

        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> drains.get() == 2);
    }
}
