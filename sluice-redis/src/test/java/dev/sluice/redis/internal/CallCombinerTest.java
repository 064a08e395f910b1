package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
            super(mostPerCall, Thread.ofVirtual().name("test-async").factory());
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
}
