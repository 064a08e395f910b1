package dev.sluice.time;

import static dev.sluice.time.SystemClock.MAX_SLEW;
import static dev.sluice.time.SystemClock.PIECE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class SystemClockTest {
    private static final long T = 1_767_225_600_000_000_000L; // 2026-01-01T00:00:00Z
    private static final long SECOND = 1_000_000_000L;
    private static final long HOUR = 3600 * SECOND;

    /** A monotonic source and a wall clock that move only when the test says. */
    private static final class Sources {
        final AtomicLong monotonic = new AtomicLong(42);
        final AtomicLong wall = new AtomicLong(T);
        final SystemClock clock = new SystemClock(monotonic::get, wall::get);

        /** Both move by {@code nanos}, as on a host whose clocks agree. */
        void both(long nanos) {
            monotonic.addAndGet(nanos);
            wall.addAndGet(nanos);
        }
    }

    @Nested
    class Readings {
        @Test
        void startAtTheWallClockAndAdvanceWithTheMonotonicSource() {
            Sources s = new Sources();
            assertThat(s.clock.nanos()).isEqualTo(T);
            s.monotonic.addAndGet(123_456_789);
            assertThat(s.clock.nanos()).isEqualTo(T + 123_456_789);
            assertThat(s.clock.instant()).isEqualTo(Instant.parse("2026-01-01T00:00:00.123456789Z"));
        }

        @Test
        void followAWallClockSteppedForwardAtTheNextPiece() {
            Sources s = new Sources();
            s.both(PIECE / 2);
            s.wall.addAndGet(HOUR);
            assertThat(s.clock.nanos()).as("within the piece").isEqualTo(T + PIECE / 2);
            s.both(PIECE / 2);
            assertThat(s.clock.nanos())
                    .as("the next piece starts on the wall clock")
                    .isEqualTo(T + PIECE + HOUR);
            s.both(1000);
            assertThat(s.clock.nanos()).isEqualTo(T + PIECE + HOUR + 1000);
        }

        @Test
        void neverGoBackWhenTheWallClockIsSteppedBackButRunAtSevenEighthsUntilLevelWithIt() {
            Sources s = new Sources();
            s.both(PIECE / 2);
            s.wall.addAndGet(-10 * SECOND);
            s.both(PIECE / 2);
            long previous = s.clock.nanos();
            assertThat(previous).isEqualTo(T + PIECE);

            s.both(PIECE / 2);
            assertThat(s.clock.nanos()).as("half a piece at 7/8 speed").isEqualTo(previous + PIECE / 2 - MAX_SLEW / 2);
            s.both(PIECE / 2);
            previous = s.clock.nanos();

            int pieces = 1;
            while (previous != s.wall.get()) {
                s.both(PIECE);
                long reading = s.clock.nanos();
                assertThat(reading - previous).isEqualTo(PIECE - Math.min(MAX_SLEW, previous - s.wall.get() + PIECE));
                assertThat(reading).isGreaterThanOrEqualTo(s.wall.get());
                previous = reading;
                pieces++;
            }
            assertThat(pieces).as("10 s caught up at 1/8 of a piece per piece").isEqualTo(75);
            s.both(PIECE / 3);
            assertThat(s.clock.nanos()).as("level again: full speed").isEqualTo(s.wall.get());
        }

        @Test
        void stayWithinOnePiecesDriftOfTheWallClockWhenTheMonotonicSourceRunsFastOrSlow() {
            for (long ppm : new long[] {-20_000, -500, 500, 20_000}) {
                Sources s = new Sources();
                long previous = s.clock.nanos();
                long worst = 0;
                for (int i = 0; i < 10_000; i++) {
                    long step = PIECE / 7;
                    s.monotonic.addAndGet(step);
                    s.wall.addAndGet(step + step * ppm / 1_000_000);
                    long reading = s.clock.nanos();
                    assertThat(reading).isGreaterThanOrEqualTo(previous);
                    worst = Math.max(worst, Math.abs(reading - s.wall.get()));
                    previous = reading;
                }
                assertThat(worst)
                        .as("largest distance from the wall clock at %d ppm", ppm)
                        .isLessThanOrEqualTo(2 * PIECE * Math.abs(ppm) / 1_000_000 + 1);
            }
        }

        @Test
        void neverDecreaseNorRunSlowerThanSevenEighthsWhateverTheWallClockDoes() {
            Random random = new Random(20261201);
            for (int run = 0; run < 20; run++) {
                Sources s = new Sources();
                long previous = s.clock.nanos();
                for (int i = 0; i < 5_000; i++) {
                    long step = random.nextInt(4) == 0 ? random.nextLong(3 * PIECE) : random.nextLong(PIECE / 50);
                    s.both(step);
                    if (random.nextInt(200) == 0) {
                        s.wall.addAndGet(random.nextLong(-60 * SECOND, 60 * SECOND));
                    }
                    long reading = s.clock.nanos();
                    assertThat(reading - previous).isGreaterThanOrEqualTo(step - (step + 7) / 8 - 1);
                    previous = reading;
                }
                for (int i = 0; i < 10_000; i++) {
                    s.both(PIECE);
                    s.clock.nanos();
                }
                assertThat(s.clock.nanos()).as("settled on the wall clock").isEqualTo(s.wall.get());
            }
        }

        @Test
        void trustNoWallReadingThatTookTooLongAndCorrectAtTheNextPiece() {
            AtomicLong monotonic = new AtomicLong(0);
            AtomicLong wall = new AtomicLong(T);
            AtomicInteger slowReads = new AtomicInteger(0);
            SystemClock clock = new SystemClock(monotonic::get, () -> {
                if (slowReads.getAndDecrement() > 0) {
                    monotonic.addAndGet(SystemClock.MAX_READ_SPAN + 1); // descheduled while reading the wall
                }
                return wall.get();
            });
            monotonic.addAndGet(PIECE);
            wall.addAndGet(PIECE + HOUR);
            slowReads.set(1);
            assertThat(clock.nanos()).as("not trusted: the piece goes on").isEqualTo(T + PIECE);
            monotonic.addAndGet(PIECE);
            wall.addAndGet(PIECE + SystemClock.MAX_READ_SPAN + 1);
            assertThat(clock.nanos()).isEqualTo(wall.get());
        }

        @Test
        void neverGoBackAcrossThreadsWhileItReAnchorsOnAJitteringWallClock() throws Exception {
            AtomicLong monotonic = new AtomicLong(0);
            AtomicLong wallOffset = new AtomicLong(T);
            SystemClock clock = new SystemClock(
                    () -> monotonic.addAndGet(ThreadLocalRandom.current().nextLong(PIECE / 8)), () -> {
                        long offset =
                                wallOffset.addAndGet(ThreadLocalRandom.current().nextLong(-SECOND, SECOND));
                        return monotonic.get() + offset;
                    });
            AtomicLong latest = new AtomicLong(Long.MIN_VALUE);
            AtomicLong backwards = new AtomicLong();
            List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                readers.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < 100_000; i++) {
                        long seen = latest.get();
                        long reading = clock.nanos();
                        if (reading < seen) {
                            backwards.incrementAndGet();
                        }
                        latest.accumulateAndGet(reading, Math::max);
                    }
                }));
            }
            for (Thread reader : readers) {
                reader.join();
            }
            assertThat(backwards.get())
                    .as("readings below one that happened before them")
                    .isZero();
        }
    }

    @Nested
    class Timers {
        private final SystemClock clock =
                new SystemClock(System::nanoTime, () -> SluiceClock.toEpochNanos(Instant.now()));

        @Test
        void aCancelledTimerIsDequeuedAndItsTaskReleasedAtOnce() {
            Runnable task = new Counter();
            WeakReference<Runnable> released = new WeakReference<>(task);
            SluiceClock.Timer timer = clock.schedule(HOUR, task);
            assertThat(clock.queuedTimers()).isEqualTo(1);

            assertThat(timer.cancel()).isTrue();
            task = null;
            assertThat(clock.queuedTimers()).isZero();
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                System.gc();
                return released.get() == null;
            });
            assertThat(timer.cancel()).as("already cancelled").isFalse();
        }

        @Test
        void aHundredThousandCancelledTimersLeaveNothingQueued() {
            List<SluiceClock.Timer> timers = new ArrayList<>();
            for (int i = 0; i < 100_000; i++) {
                timers.add(clock.schedule(HOUR, new Counter()));
            }
            assertThat(clock.queuedTimers()).isEqualTo(100_000);
            timers.forEach(SluiceClock.Timer::cancel);
            assertThat(clock.queuedTimers()).isZero();
        }

        @Test
        void aDueTaskRunsOnceOnAVirtualThreadAndCannotBeCancelledAfter() throws Exception {
            CompletableFuture<Thread> ranOn = new CompletableFuture<>();
            SluiceClock.Timer timer = clock.schedule(0, () -> ranOn.complete(Thread.currentThread()));
            assertThat(ranOn.get(10, TimeUnit.SECONDS).isVirtual()).isTrue();
            assertThat(timer.cancel()).isFalse();
            assertThat(clock.queuedTimers()).isZero();
        }

        @Test
        void aTaskWaitsUntilTheClockItselfHasMovedByTheDelay() {
            AtomicLong monotonic = new AtomicLong(0);
            SystemClock frozen = new SystemClock(monotonic::get, () -> T);
            Counter task = new Counter();
            frozen.schedule(1_000_000, task);

            await().atMost(Duration.ofSeconds(10)).until(() -> frozen.timerFirings() >= 1);
            assertThat(task.runs.get())
                    .as("due on the executor, but the clock has not moved")
                    .isZero();
            // the timer keeps falling due every millisecond and is off the queue while it re-arms: wait for it
            await().atMost(Duration.ofSeconds(10))
                    .alias("armed again for what is left")
                    .until(() -> frozen.queuedTimers() == 1);

            monotonic.addAndGet(1_000_000);
            await().atMost(Duration.ofSeconds(10)).until(() -> task.runs.get() == 1);
            assertThat(frozen.queuedTimers()).isZero();
        }

        @Test
        void aNullTaskIsRejectedWithAMessage() {
            assertThatThrownBy(() -> clock.schedule(0, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("a clock schedules a task to run, was null");
            assertThat(clock.queuedTimers()).isZero();
        }

        @Test
        void sleepingReturnsOnceTheClockHasMovedByTheAmount() throws InterruptedException {
            long before = clock.nanos();
            clock.sleep(2_000_000);
            assertThat(clock.nanos() - before).isGreaterThanOrEqualTo(2_000_000);
        }
    }

    private static final class Counter implements Runnable {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public void run() {
            runs.incrementAndGet();
        }
    }
}
