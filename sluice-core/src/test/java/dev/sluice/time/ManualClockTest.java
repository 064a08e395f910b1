package dev.sluice.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class ManualClockTest {
    private static final long START = 1_767_225_600_000_000_000L; // 2026-01-01T00:00:00Z
    private static final long MS = 1_000_000L;

    @Test
    void startsAtTheDefaultStartOrTheGivenInstant() {
        assertThat(new ManualClock().nanos()).isEqualTo(START);
        assertThat(new ManualClock().instant()).isEqualTo(ManualClock.DEFAULT_START);
        Instant start = Instant.parse("2030-05-06T07:08:09.123456789Z");
        ManualClock clock = new ManualClock(start);
        assertThat(clock.instant()).isEqualTo(start);
        assertThat(clock.nanos()).isEqualTo(start.getEpochSecond() * 1_000_000_000L + 123_456_789L);
    }

    @Test
    void advanceMovesTimeExactly() {
        ManualClock clock = new ManualClock();
        clock.advance(Duration.ofMillis(1500));
        assertThat(clock.nanos()).isEqualTo(START + 1500 * MS);
        clock.advanceNanos(1);
        assertThat(clock.nanos()).isEqualTo(START + 1500 * MS + 1);
        clock.advance(Duration.ZERO);
        assertThat(clock.nanos()).isEqualTo(START + 1500 * MS + 1);
        assertThat(clock.instant())
                .isEqualTo(ManualClock.DEFAULT_START.plusMillis(1500).plusNanos(1));
    }

    @Test
    void advanceRunsDueTasksInTimeOrderAndTheClockReadsEachTasksDueTimeWhileItRuns() {
        ManualClock clock = new ManualClock();
        List<String> ran = new ArrayList<>();
        // Scheduled out of order; two share a due time and run in the order they were scheduled.
        clock.schedule(30 * MS, () -> ran.add("c@" + (clock.nanos() - START) / MS));
        clock.schedule(10 * MS, () -> ran.add("a@" + (clock.nanos() - START) / MS));
        clock.schedule(20 * MS, () -> ran.add("b1@" + (clock.nanos() - START) / MS));
        clock.schedule(20 * MS, () -> ran.add("b2@" + (clock.nanos() - START) / MS));
        clock.schedule(50 * MS, () -> ran.add("late@" + (clock.nanos() - START) / MS));

        clock.advance(Duration.ofMillis(30));

        assertThat(ran).containsExactly("a@10", "b1@20", "b2@20", "c@30");
        assertThat(clock.nanos()).isEqualTo(START + 30 * MS);
        assertThat(clock.pendingTasks()).isEqualTo(1);

        clock.advance(Duration.ofMillis(19));
        assertThat(ran).hasSize(4);
        clock.advance(Duration.ofMillis(1));
        assertThat(ran).containsExactly("a@10", "b1@20", "b2@20", "c@30", "late@50");
        assertThat(clock.pendingTasks()).isZero();
    }

    @Test
    void afterTheTasksRunTheClockReadsTheTargetTime() {
        ManualClock clock = new ManualClock();
        AtomicLong seen = new AtomicLong();
        clock.schedule(5 * MS, () -> seen.set(clock.nanos()));
        clock.advance(Duration.ofSeconds(1));
        assertThat(seen.get()).isEqualTo(START + 5 * MS);
        assertThat(clock.nanos()).isEqualTo(START + 1000 * MS);
    }

    @Test
    void zeroOrNegativeDelayRunsOnTheNextAdvanceOrRunDue() {
        ManualClock clock = new ManualClock();
        List<Long> ran = new ArrayList<>();
        clock.schedule(0, () -> ran.add(clock.nanos()));
        clock.schedule(-5, () -> ran.add(clock.nanos()));
        assertThat(ran).isEmpty();
        clock.runDue();
        assertThat(ran).containsExactly(START, START);
        assertThat(clock.nanos()).isEqualTo(START);
    }

    @Test
    void aHugeDelayNeverFallsDueEarly() {
        ManualClock clock = new ManualClock();
        List<String> ran = new ArrayList<>();
        clock.schedule(Long.MAX_VALUE, () -> ran.add("never"));
        clock.schedule(Long.MAX_VALUE - START + 1, () -> ran.add("past the end of time"));
        clock.schedule(10 * MS, () -> ran.add("soon"));
        clock.advance(Duration.ofDays(365));
        assertThat(ran).containsExactly("soon");
        assertThat(clock.pendingTasks()).isEqualTo(2);
    }

    @Test
    void tasksOnAClockBeforeTheEpochRunWhenDue() {
        ManualClock clock = new ManualClock(Instant.parse("1960-01-01T00:00:00Z"));
        List<String> ran = new ArrayList<>();
        clock.schedule(20 * MS, () -> ran.add("b"));
        clock.schedule(10 * MS, () -> ran.add("a"));
        clock.schedule(Long.MAX_VALUE, () -> ran.add("never"));
        clock.advance(Duration.ofMillis(15));
        assertThat(ran).containsExactly("a");
        clock.advance(Duration.ofMillis(5));
        assertThat(ran).containsExactly("a", "b");
        assertThat(clock.instant()).isEqualTo(Instant.parse("1960-01-01T00:00:00.020Z"));
        assertThat(clock.pendingTasks()).isEqualTo(1);
    }

    @Test
    void cancelStopsATaskThatHasNotRun() {
        ManualClock clock = new ManualClock();
        List<String> ran = new ArrayList<>();
        SluiceClock.Timer a = clock.schedule(10 * MS, () -> ran.add("a"));
        SluiceClock.Timer b = clock.schedule(10 * MS, () -> ran.add("b"));
        assertThat(clock.pendingTasks()).isEqualTo(2);

        assertThat(a.cancel()).isTrue();
        assertThat(a.cancel()).as("second cancel").isFalse();
        assertThat(clock.pendingTasks()).isEqualTo(1);

        clock.advance(Duration.ofMillis(10));
        assertThat(ran).containsExactly("b");
        assertThat(b.cancel()).as("cancel after it ran").isFalse();
        assertThat(clock.pendingTasks()).isZero();
    }

    @Test
    void aTaskCanCancelALaterTaskDueInTheSameAdvance() {
        ManualClock clock = new ManualClock();
        List<String> ran = new ArrayList<>();
        SluiceClock.Timer[] later = new SluiceClock.Timer[1];
        clock.schedule(1 * MS, () -> {
            ran.add("first");
            assertThat(later[0].cancel()).isTrue();
        });
        later[0] = clock.schedule(2 * MS, () -> ran.add("second"));
        clock.advance(Duration.ofMillis(5));
        assertThat(ran).containsExactly("first");
    }

    @Test
    void sleepAdvancesTheClockAndRunsDueTasks() throws InterruptedException {
        ManualClock clock = new ManualClock();
        List<Long> ran = new ArrayList<>();
        clock.schedule(250 * MS, () -> ran.add(clock.nanos()));
        clock.sleep(300 * MS);
        assertThat(clock.nanos()).isEqualTo(START + 300 * MS);
        assertThat(ran).containsExactly(START + 250 * MS);

        clock.sleep(0);
        clock.sleep(-10);
        assertThat(clock.nanos()).as("zero or negative sleep").isEqualTo(START + 300 * MS);
    }

    @Test
    void sleepOnAnInterruptedThreadThrowsAndClearsTheFlagWithoutMovingTime() {
        ManualClock clock = new ManualClock();
        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> clock.sleep(100 * MS)).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        assertThat(clock.nanos()).isEqualTo(START);
    }

    @Test
    void negativeAdvanceIsRejectedWithAMessageAndTimeDoesNotMove() {
        ManualClock clock = new ManualClock();
        clock.advance(Duration.ofSeconds(1));
        long before = clock.nanos();

        assertThatThrownBy(() -> clock.advanceNanos(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a manual clock only moves forward; amount was -1 ns");
        assertThatThrownBy(() -> clock.advance(Duration.ofMillis(-2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only moves forward")
                .hasMessageContaining("-2000000 ns");
        assertThat(clock.nanos()).isEqualTo(before);
    }

    @Test
    void nullArgumentsAndAnAdvanceBeyondALongOfNanosAreRejectedWithAMessage() {
        ManualClock clock = new ManualClock();
        assertThatThrownBy(() -> new ManualClock(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a manual clock needs an instant to start at, was null");
        assertThatThrownBy(() -> clock.advance(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("amount to advance by must be a duration, was null");
        assertThatThrownBy(() -> clock.schedule(0, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a clock schedules a task to run, was null");
        assertThatThrownBy(() -> clock.advance(Duration.ofDays(200 * 365)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("goes past it");
        assertThatThrownBy(() -> clock.advance(Duration.ofDays(-200 * 365)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only moves forward");
        assertThat(clock.nanos()).isEqualTo(START);
        assertThat(clock.pendingTasks()).isZero();
    }

    @Test
    void tasksScheduledByTasksRunInTheSameAdvanceIfDueByItsEnd() {
        ManualClock clock = new ManualClock();
        List<String> ran = new ArrayList<>();
        clock.schedule(10 * MS, () -> {
            ran.add("parent@" + (clock.nanos() - START) / MS);
            // due at 15 ms: within this advance
            clock.schedule(5 * MS, () -> {
                ran.add("child@" + (clock.nanos() - START) / MS);
                // due at 15 ms too (zero delay): within this advance
                clock.schedule(0, () -> ran.add("grandchild@" + (clock.nanos() - START) / MS));
            });
            // due at 40 ms: after this advance
            clock.schedule(30 * MS, () -> ran.add("later@" + (clock.nanos() - START) / MS));
        });
        // Due at 20 ms: runs after the child (15 ms) although it was scheduled before it.
        clock.schedule(20 * MS, () -> ran.add("other@" + (clock.nanos() - START) / MS));

        clock.advance(Duration.ofMillis(25));

        assertThat(ran).containsExactly("parent@10", "child@15", "grandchild@15", "other@20");
        assertThat(clock.nanos()).isEqualTo(START + 25 * MS);
        assertThat(clock.pendingTasks()).isEqualTo(1);

        clock.advance(Duration.ofMillis(15));
        assertThat(ran).last().isEqualTo("later@40");
    }

    @Test
    void aTaskThatReschedulesItselfRunsOncePerPeriodWithinOneAdvance() {
        ManualClock clock = new ManualClock();
        List<Long> ticks = new ArrayList<>();
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            ticks.add((clock.nanos() - START) / MS);
            clock.schedule(100 * MS, tick[0]);
        };
        clock.schedule(100 * MS, tick[0]);
        clock.advance(Duration.ofMillis(450));
        assertThat(ticks).containsExactly(100L, 200L, 300L, 400L);
        assertThat(clock.pendingTasks()).isEqualTo(1);
    }

    @RepeatedTest(20)
    void concurrentReadersNeverSeeTimeGoBackwards() throws Exception {
        ManualClock clock = new ManualClock();
        for (int i = 1; i <= 200; i++) {
            clock.schedule(i * MS, () -> {});
        }
        int readers = 3;
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(readers + 1);
        AtomicLong backwards = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int r = 0; r < readers; r++) {
            threads.add(new Thread(() -> {
                try {
                    start.await();
                    long last = clock.nanos();
                    for (int i = 0; i < 20_000; i++) {
                        long now = clock.nanos();
                        if (now < last) {
                            backwards.incrementAndGet();
                        }
                        last = now;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            }));
        }
        threads.add(new Thread(() -> {
            try {
                start.await();
                for (int i = 0; i < 400; i++) {
                    clock.advanceNanos(MS / 2);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                done.countDown();
            }
        }));
        threads.forEach(Thread::start);
        start.countDown();
        done.await();
        for (Thread t : threads) {
            t.join();
        }
        assertThat(backwards.get()).isZero();
        assertThat(clock.nanos()).isEqualTo(START + 200 * MS);
        assertThat(clock.pendingTasks()).isZero();
    }

    @Test
    void toStringShowsTheInstant() {
        assertThat(new ManualClock().toString()).isEqualTo("ManualClock[2026-01-01T00:00:00Z]");
    }
}
