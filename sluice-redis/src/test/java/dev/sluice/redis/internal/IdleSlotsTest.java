package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.time.ManualClock;
import io.netty.util.HashedWheelTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class IdleSlotsTest {
    /** No time limit: Long.MAX_VALUE. */
    private static final long LONG = Long.MAX_VALUE;

    private final IdleSlots slots = new IdleSlots();

    private final ManualClock clock = new ManualClock();

    /** A thread waiting from the {@code seen}-th announcement, and whether it was woken. */
    private record Waiting(Thread thread, CompletableFuture<Boolean> woken) {}

    private Waiting startWaiting(long seen) {
        CompletableFuture<Boolean> woken = new CompletableFuture<>();
        Thread thread = Thread.ofVirtual().start(() -> {
            try {
                woken.complete(slots.await(seen, LONG));
            } catch (InterruptedException e) {
                woken.completeExceptionally(e);
            }
        });
        return new Waiting(thread, woken);
    }

    /** Starts one more thread waiting from the current announcement, once those waiting already do. */
    private CompletableFuture<Boolean> idleAlso() {
        int before = slots.idle();
        CompletableFuture<Boolean> woken = startWaiting(slots.announcements()).woken();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> slots.idle() == before + 1);
        return woken;
    }

    /** Starts {@code n} threads waiting from the current announcement; returns whether each was woken. */
    private List<CompletableFuture<Boolean>> idle(int n) {
        List<CompletableFuture<Boolean>> woken = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            woken.add(idleAlso());
        }
        return woken;
    }

    private static long done(List<CompletableFuture<Boolean>> woken) {
        return woken.stream().filter(CompletableFuture::isDone).count();
    }

    @Test
    void anAnnouncementOfOneJobWakesOneIdleSlotAndTheOthersSleepOn() {
        List<CompletableFuture<Boolean>> woken = idle(3);

        slots.announce(1);

        // taken out of the idle slots under the announcement's lock: only an announcement or their time wakes them
        assertThat(slots.idle()).isEqualTo(2);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> done(woken) == 1);
        assertThat(woken.stream().filter(CompletableFuture::isDone).map(CompletableFuture::join))
                .containsExactly(true);
    }

    @Test
    void anAnnouncementOfMoreJobsThanIdleSlotsWakesThemAll() {
        List<CompletableFuture<Boolean>> woken = idle(3);

        slots.announce(IdleSlots.ALL);

        assertThat(slots.idle()).isZero();
        assertThat(CompletableFuture.allOf(woken.toArray(CompletableFuture[]::new)))
                .succeedsWithin(Duration.ofSeconds(10));
        assertThat(woken).allSatisfy(w -> assertThat(w.join()).isTrue());
    }

    @Test
    void theLatestSlotToFallIdleIsWokenFirst() {
        List<CompletableFuture<Boolean>> earlier = idle(1);
        List<CompletableFuture<Boolean>> all = new ArrayList<>(earlier);
        all.add(idleAlso());

        slots.announce(1);

        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> done(all) == 1);
        assertThat(earlier.get(0)).as("the slot idle the longest sleeps on").isNotDone();
    }

    @Test
    void aSlotThatMissedAnAnnouncementWhileItWasBusyDoesNotWait() {
        long seen = slots.announcements();
        slots.announce(1); // while the slot claimed: no slot was idle

        Waiting waiting = startWaiting(seen);

        assertThat(waiting.woken()).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(true);
        assertThat(slots.idle()).isZero();
    }

    @Test
    void aSlotWhoseTimePassesLeavesTheIdleSlots() throws Exception {
        assertThat(slots.await(slots.announcements(), TimeUnit.MILLISECONDS.toNanos(20)))
                .isFalse();

        assertThat(slots.idle()).isZero();
        slots.announce(1);
        assertThat(slots.idle()).isZero();
    }

    @Test
    void aSlotWhoseTimePassesOnATimerWheelLeavesTheIdleSlotsNoSooner() throws Exception {
        HashedWheelTimer wheel = new HashedWheelTimer(10, TimeUnit.MILLISECONDS);
        try {
            IdleSlots onWheel = new IdleSlots(wheel);
            long waited = System.nanoTime();
            boolean woken = onWheel.await(onWheel.announcements(), TimeUnit.MILLISECONDS.toNanos(50));
            waited = System.nanoTime() - waited;

            assertThat(woken).isFalse();
            assertThat(waited).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
            assertThat(onWheel.idle()).isZero();
            assertThat(wheel.pendingTimeouts())
                    .as("the backstop was cancelled or ran")
                    .isZero();
        } finally {
            wheel.stop();
        }
    }

    @Test
    void anAnnouncedSlotOnATimerWheelCancelsItsBackstop() throws Exception {
        HashedWheelTimer wheel = new HashedWheelTimer(10, TimeUnit.MILLISECONDS);
        try {
            IdleSlots onWheel = new IdleSlots(wheel);
            CompletableFuture<Boolean> woken = new CompletableFuture<>();
            long seen = onWheel.announcements();
            Thread.ofVirtual().start(() -> {
                try {
                    woken.complete(onWheel.await(seen, TimeUnit.MINUTES.toNanos(1)));
                } catch (InterruptedException e) {
                    woken.completeExceptionally(e);
                }
            });
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> onWheel.idle() == 1);

            onWheel.announce(1);

            assertThat(woken.get(10, TimeUnit.SECONDS)).isTrue();
            Awaitility.await("the cancelled backstop leaves the wheel")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> wheel.pendingTimeouts() == 0);
        } finally {
            wheel.stop();
        }
    }

    @Test
    void anInterruptedSlotLeavesTheIdleSlots() {
        Waiting waiting = startWaiting(slots.announcements());
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> slots.idle() == 1);

        waiting.thread().interrupt();

        assertThatThrownBy(() -> waiting.woken().get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(slots.idle()).isZero();
    }

    /**
     * Slots that claim from a pool of jobs as a worker's slots do, passing the word on when a claim starts a job,
     * while a producer adds jobs one at a time announcing each: every job is taken, however the threads interleave.
     */
    @RepeatedTest(30)
    void slotsThatPassTheWordOnTakeEveryJobAProducerAnnounces() throws Exception {
        int jobs = 2_000;
        int slotCount = 8;
        AtomicInteger waiting = new AtomicInteger();
        AtomicInteger taken = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < slotCount; i++) {
            threads.add(Thread.ofPlatform().daemon().start(() -> {
                try {
                    while (taken.get() < jobs) {
                        long seen = slots.announcements();
                        if (waiting.getAndUpdate(w -> Math.max(0, w - 1)) > 0) {
                            taken.incrementAndGet();
                            slots.announce(1);
                            continue;
                        }
                        slots.await(seen, LONG);
                    }
                } catch (InterruptedException e) {
                    // stopped
                }
            }));
        }
        for (int i = 0; i < jobs; i++) {
            waiting.incrementAndGet();
            slots.announce(1);
            if (i % 100 == 0) {
                Thread.yield();
            }
        }

        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(taken.get()).isEqualTo(jobs));
        slots.announce(IdleSlots.ALL);
        for (Thread thread : threads) {
            thread.interrupt();
            thread.join(10_000);
        }
    }

    @Test
    void dueWorkIsAnnouncedOnceWhenItFallsDueWithOneTimerForEveryWaitingSlot() {
        List<CompletableFuture<Boolean>> woken = idle(2);
        long due = clock.nanos() + TimeUnit.SECONDS.toNanos(10);

        slots.announceAt(clock, due);
        slots.announceAt(clock, due + 1);
        slots.announceAt(clock, due);

        assertThat(clock.pendingTasks()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(10).minusNanos(1));
        assertThat(slots.idle()).isEqualTo(2);
        clock.advanceNanos(1);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> slots.idle() == 1);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> done(woken) == 1);
        assertThat(clock.pendingTasks()).isZero();
    }

    @Test
    void workDueSoonerReplacesTheTimerOfLaterWork() {
        long later = clock.nanos() + TimeUnit.SECONDS.toNanos(10);
        List<CompletableFuture<Boolean>> woken = idle(1);

        slots.announceAt(clock, later);
        slots.announceAt(clock, later - TimeUnit.SECONDS.toNanos(5));

        assertThat(clock.pendingTasks()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(5));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> done(woken) == 1);
        assertThat(clock.pendingTasks()).isZero();

        slots.announceAt(clock, later);
        assertThat(clock.pendingTasks())
                .as("a timer is set again once the last fired")
                .isEqualTo(1);
        slots.stop();
        assertThat(clock.pendingTasks()).isZero();
    }
}
