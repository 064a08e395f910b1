package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

class CallCombinerTest {
    private static final class Request extends CallCombiner.Queued {
        final int number;

        Request(int number, int size) {
            super(size);
            this.number = number;
        }
    }

    /** Records the calls it sends; the first waits until {@code firstMayGo} opens, so that requests pile up. */
    private static final class Recording extends CallCombiner<Request> {
        final List<List<Integer>> calls = Collections.synchronizedList(new ArrayList<>());
        final List<Thread> senders = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch firstSending = new CountDownLatch(1);
        final CountDownLatch firstMayGo = new CountDownLatch(1);

        Recording(int mostPerCall) {
            this(mostPerCall, Thread::yield);
        }

        Recording(int mostPerCall, Runnable pause) {
            super(mostPerCall, Thread.ofVirtual().name("test-async").factory(), pause);
        }

        @Override
        void send(List<Request> batch) {
            if (calls.isEmpty()) {
                firstSending.countDown();
                try {
                    firstMayGo.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            calls.add(batch.stream().map(r -> r.number).toList());
            senders.add(Thread.currentThread());
        }
    }

    @Test
    void requestsOfOneThreadAsyncAndSyncMixedAreSentInCallOrderWithinTheMostPerCall() throws Exception {
        Recording combiner = new Recording(10);
        CountDownLatch answered = new CountDownLatch(60);
        combiner.combineAsync(new Request(0, 1), answered::countDown);
        combiner.firstSending.await();
        for (int i = 1; i < 60; i++) {
            combiner.combineAsync(new Request(i, i == 30 ? 25 : 1), answered::countDown);
        }
        combiner.firstMayGo.countDown();
        combiner.combine(new Request(60, 1));

        assertThat(answered.await(10, TimeUnit.SECONDS)).isTrue();
        List<Integer> sent = combiner.calls.stream().flatMap(List::stream).toList();
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i <= 60; i++) {
            expected.add(i);
        }
        assertThat(sent).containsExactlyElementsOf(expected);
        assertThat(combiner.calls)
                .as("at most 10 a call; request 30, of 25, alone")
                .allSatisfy(call -> assertThat(call.size() <= 10 || call.equals(List.of(30)))
                        .isTrue())
                .contains(List.of(30));
    }

    @Test
    void anAsyncRequestIsAnsweredOffTheThreadThatSentItSoItsCallbackMaySendAgain() throws Exception {
        Recording combiner = new Recording(10);
        CompletableFuture<Thread> answeredOn = new CompletableFuture<>();
        CompletableFuture<Boolean> againSent = new CompletableFuture<>();
        combiner.combineAsync(new Request(0, 1), () -> {});
        combiner.firstSending.await();
        combiner.combineAsync(new Request(1, 1), () -> {});
        combiner.combineAsync(new Request(2, 1), () -> {
            answeredOn.complete(Thread.currentThread());
            // run on the thread of request 1, which sent request 2 and still sends, this would wait for ever
            Request again = new Request(3, 1);
            combiner.combine(again);
            againSent.complete(again.done);
        });
        combiner.firstMayGo.countDown();

        assertThat(againSent.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(combiner.calls).containsExactly(List.of(0), List.of(1, 2), List.of(3));
        assertThat(answeredOn.get()).isNotSameAs(combiner.senders.get(1));
    }

    /** A combiner whose pauses run {@code onPause} with the number of the pause, counted from 1. */
    private static Recording pausing(IntConsumer onPause, AtomicInteger pauses) {
        return new Recording(100, () -> onPause.accept(pauses.incrementAndGet()));
    }

    /** Sends request 0 alone, then requests 1 to {@code n} in the next call, and returns once all are answered. */
    private static void callOfMany(Recording combiner, int n) throws InterruptedException {
        CountDownLatch answered = new CountDownLatch(n + 1);
        combiner.combineAsync(new Request(0, 1), answered::countDown);
        combiner.firstSending.await();
        for (int i = 1; i <= n; i++) {
            combiner.combineAsync(new Request(i, 1), answered::countDown);
        }
        combiner.firstMayGo.countDown();
        assertThat(answered.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aSenderWithFewerRequestsThanTheLastCallCarriedLetsThoseOnTheirWayJoin() throws Exception {
        AtomicInteger pauses = new AtomicInteger();
        List<Request> latecomers = new ArrayList<>();
        Recording[] combiner = new Recording[1];
        combiner[0] = pausing(
                pause -> {
                    if (pause <= 2) {
                        Request late = new Request(10 + pause, 1);
                        latecomers.add(late);
                        combiner[0].combineAsync(late, () -> {});
                    }
                },
                pauses);
        callOfMany(combiner[0], 3);

        combiner[0].combine(new Request(10, 1));

        assertThat(combiner[0].calls).containsExactly(List.of(0), List.of(1, 2, 3), List.of(10, 11, 12));
        assertThat(pauses)
                .as("no pause once as many wait as the last call carried")
                .hasValue(2);
        assertThat(latecomers).allSatisfy(r -> assertThat(r.done).isTrue());
    }

    @Test
    void aSenderWaitsNoLongerOncePausesBringNothing() throws Exception {
        AtomicInteger pauses = new AtomicInteger();
        Recording combiner = pausing(pause -> {}, pauses);
        callOfMany(combiner, 3);

        combiner.combine(new Request(10, 1));

        assertThat(combiner.calls).last().isEqualTo(List.of(10));
        assertThat(pauses).hasValue(CallCombiner.FRUITLESS_YIELDS);
    }

    @Test
    void aSenderPausesAtMostTheMostYieldsBeforeACall() throws Exception {
        AtomicInteger pauses = new AtomicInteger();
        Recording[] combiner = new Recording[1];
        // a request every other pause: never fruitless for long, never as many as the last call's 50
        combiner[0] = pausing(
                pause -> {
                    if (pause % 2 == 0) {
                        combiner[0].combineAsync(new Request(100 + pause, 1), () -> {});
                    }
                },
                pauses);
        callOfMany(combiner[0], 50);

        combiner[0].combine(new Request(100, 1));

        assertThat(pauses).hasValue(CallCombiner.MOST_YIELDS);
        assertThat(combiner[0].calls.get(2)).hasSize(1 + CallCombiner.MOST_YIELDS / 2);
    }

    @Test
    void aLoneThreadNeverPauses() throws Exception {
        AtomicInteger pauses = new AtomicInteger();
        Recording combiner = pausing(pause -> {}, pauses);
        combiner.firstMayGo.countDown();

        for (int i = 0; i < 20; i++) {
            combiner.combine(new Request(i, 1));
        }

        assertThat(combiner.calls).hasSize(20);
        assertThat(pauses).hasValue(0);
    }

    /**
     * Writes its calls and reads their replies as two steps, two calls on their way at most; logs both. The first
     * write waits until {@code firstMayGo} opens, so that requests pile up behind it.
     */
    private static final class Pipelined extends CallCombiner<Request> {
        final List<String> log = Collections.synchronizedList(new ArrayList<>());
        final List<Thread> readers = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch firstWriting = new CountDownLatch(1);
        final CountDownLatch firstMayGo = new CountDownLatch(1);
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger mostInFlight = new AtomicInteger();

        Pipelined() {
            super(100, Thread.ofVirtual().name("test-async").factory(), Thread::yield, 2);
        }

        @Override
        void send(List<Request> batch) {
            complete(batch, dispatch(batch));
        }

        @Override
        Object dispatch(List<Request> batch) {
            List<Integer> numbers = batch.stream().map(r -> r.number).toList();
            if (log.isEmpty()) {
                firstWriting.countDown();
                try {
                    firstMayGo.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            log.add("write " + numbers);
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            return numbers;
        }

        @Override
        void complete(List<Request> batch, Object sent) {
            inFlight.decrementAndGet();
            log.add("read " + sent);
            readers.add(Thread.currentThread());
        }
    }

    @Test
    void aSecondCallIsWrittenBeforeTheFirstReplyIsReadAndTheNextSenderReadsItsReply() throws Exception {
        Pipelined combiner = new Pipelined();
        CountDownLatch answered = new CountDownLatch(4);
        combiner.combineAsync(new Request(0, 1), answered::countDown);
        combiner.firstWriting.await();
        for (int i = 1; i <= 3; i++) {
            combiner.combineAsync(new Request(i, 1), answered::countDown);
        }
        combiner.firstMayGo.countDown();

        assertThat(answered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(combiner.log).containsExactly("write [0]", "write [1, 2, 3]", "read [0]", "read [1, 2, 3]");
        assertThat(combiner.readers.get(1))
                .as("the reply of a call on its way is read by the thread the sending passed to")
                .isNotSameAs(combiner.readers.get(0));
    }

    @Test
    void withTwoCallsOnTheirWayEachThreadsRequestsAreWrittenAndAnsweredInItsCallOrder() throws Exception {
        for (int round = 0; round < 20; round++) {
            Pipelined combiner = new Pipelined();
            combiner.firstMayGo.countDown();
            int threads = 6;
            int each = 300;
            List<Thread> producers = new ArrayList<>();
            List<Request> all = Collections.synchronizedList(new ArrayList<>());
            for (int t = 0; t < threads; t++) {
                int first = t * each;
                producers.add(Thread.ofVirtual().start(() -> {
                    for (int i = 0; i < each; i++) {
                        Request request = new Request(first + i, 1);
                        all.add(request);
                        if (i % 3 == 0) {
                            combiner.combine(request);
                        } else {
                            combiner.combineAsync(request, () -> {});
                        }
                    }
                }));
            }
            for (Thread producer : producers) {
                producer.join();
            }
            org.awaitility.Awaitility.await().until(() -> all.stream().allMatch(r -> r.done));

            List<Integer> written = new ArrayList<>();
            List<String> reads = new ArrayList<>();
            List<String> writes = new ArrayList<>();
            synchronized (combiner.log) {
                for (String entry : combiner.log) {
                    (entry.startsWith("write") ? writes : reads).add(entry.substring(entry.indexOf('[')));
                }
            }
            for (String call : writes) {
                for (String n : call.substring(1, call.length() - 1).split(", ")) {
                    written.add(Integer.parseInt(n));
                }
            }
            assertThat(reads)
                    .as("replies read in the order the calls were written")
                    .isEqualTo(writes);
            assertThat(written).hasSize(threads * each).doesNotHaveDuplicates();
            for (int t = 0; t < threads; t++) {
                int from = t * each;
                List<Integer> own = written.stream()
                        .filter(n -> n >= from && n < from + each)
                        .toList();
                assertThat(own).as("thread %d's requests in its call order", t).isSorted();
            }
            assertThat(combiner.mostInFlight.get()).isLessThanOrEqualTo(2);
        }
    }
}
