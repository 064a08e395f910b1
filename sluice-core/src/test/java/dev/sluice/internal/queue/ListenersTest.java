package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.QueueListener;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

class ListenersTest {
    private final ReentrantLock lock = new ReentrantLock();
    private final Listeners<String> listeners = new Listeners<>("q", lock);
    /** Who heard which drained event, in order: "a1" is listener a hearing event 1. */
    private final List<String> heard = Collections.synchronizedList(new ArrayList<>());

    private QueueListener<String> named(String name) {
        return new QueueListener<>() {
            @Override
            public void onDrained() {
                heard.add(name);
            }
        };
    }

    private final QueueListener<String> a = named("a");
    private final QueueListener<String> b = named("b");
    private final QueueListener<String> c = named("c");

    private void addABC() {
        listeners.add(a);
        listeners.add(b);
        listeners.add(c);
    }

    /** Records one event as the queue does, and waits until it was told (unless a listener records it). */
    private void drained() {
        record();
        if (!listeners.onLane()) {
            awaitTold();
        }
    }

    private void awaitTold() {
        try {
            assertThat(listeners.awaitTold(TimeUnit.SECONDS.toNanos(10)))
                    .as("told in time")
                    .isTrue();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Records one event under the lock, as the queue does, and fires it after. */
    private void record() {
        Events<String> batch;
        lock.lock();
        try {
            batch = listeners.batch();
            if (batch != null) {
                batch.add(QueueListener::onDrained);
            }
        } finally {
            lock.unlock();
        }
        listeners.fire(batch);
    }

    private void assertNothingRecorded() {
        lock.lock();
        try {
            assertThat(listeners.batch()).isNull();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void withNoListenerNothingIsRecorded() {
        assertNothingRecorded();
    }

    @Test
    void removingTheOnlyListenerStopsRecordingEvents() {
        assertThat(listeners.remove(a)).as("not registered").isFalse();
        listeners.add(a);

        assertThat(listeners.remove(a)).isTrue();

        assertNothingRecorded();
    }

    @Test
    void everyListenerHearsEachEventInTheOrderTheyWereAdded() {
        addABC();

        drained();
        drained();

        assertThat(heard).containsExactly("a", "b", "c", "a", "b", "c");
    }

    @Test
    void removingTheMiddleOfThreeKeepsTheOthersInOrder() {
        addABC();

        assertThat(listeners.remove(b)).isTrue();
        drained();

        assertThat(heard).containsExactly("a", "c");
        assertThat(listeners.remove(b)).as("no longer registered").isFalse();
    }

    @Test
    void removingTheFirstAndTheLastLeavesTheMiddleOne() {
        addABC();

        assertThat(listeners.remove(c)).isTrue();
        drained();
        assertThat(listeners.remove(a)).isTrue();
        drained();
        assertThat(listeners.remove(b)).isTrue();
        drained();

        assertThat(heard).containsExactly("a", "b", "b");
    }

    @Test
    void aListenerAddedTwiceHearsTwiceAndIsRemovedOnceAtATime() {
        listeners.add(a);
        listeners.add(b);
        listeners.add(a);

        drained();
        assertThat(listeners.remove(a)).isTrue();
        drained();

        assertThat(heard).containsExactly("a", "b", "a", "b", "a");
    }

    @Test
    void anEventRecordedWhileABatchIsDeliveredIsToldAfterThatBatch() {
        listeners.add(new QueueListener<>() {
            private boolean first = true;

            @Override
            public void onDrained() {
                heard.add("a");
                if (first) {
                    first = false;
                    drained(); // a change made by a listener, as a listener calling the queue would
                }
            }
        });
        listeners.add(named("b"));

        drained();
        awaitTold(); // the listener's own change was fired while the first batch was told: it is told next

        assertThat(heard).containsExactly("a", "b", "a", "b");
    }

    @Test
    void listenersAreToldOnTheQueuesOwnThreadAndTheCallerDoesNotWaitForThem() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> tellers = Collections.synchronizedList(new ArrayList<>());
        listeners.add(new QueueListener<>() {
            @Override
            public void onDrained() {
                tellers.add(Thread.currentThread());
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });

        record(); // the listener blocks: the change returns all the same
        record();

        assertThat(listeners.awaitTold(TimeUnit.MILLISECONDS.toNanos(50)))
                .as("not told while the listener blocks")
                .isFalse();
        release.countDown();
        awaitTold();
        assertThat(tellers).hasSize(2).doesNotContain(Thread.currentThread());
    }

    @Test
    void aListenerThatAwaitsTheListenersIsRefusedRatherThanWaitingForItself() {
        List<Throwable> thrown = Collections.synchronizedList(new ArrayList<>());
        listeners.add(new QueueListener<>() {
            @Override
            public void onDrained() {
                try {
                    listeners.awaitTold(TimeUnit.SECONDS.toNanos(10));
                } catch (Throwable e) {
                    thrown.add(e);
                }
            }
        });

        drained();

        assertThat(thrown)
                .singleElement()
                .isInstanceOf(IllegalStateException.class)
                .extracting(Throwable::getMessage)
                .asString()
                .contains("awaitListeners", "listener", "'q'");
    }

    @Test
    void aChangeMadeButNotYetFiredIsWaitedForAndTold() {
        // pins the race CI met: awaitIdle saw a worker's completion, whose maker had released the lock but not yet
        // fired its batch, and awaitListeners returned before the completion was heard
        addABC();
        lock.lock();
        try {
            listeners.batch().add(QueueListener::onDrained);
        } finally {
            lock.unlock();
        }

        awaitTold();

        assertThat(heard).containsExactly("a", "b", "c");
    }

    @Test
    void awaitingWithNothingQueuedReturnsAtOnce() throws Exception {
        addABC();

        assertThat(listeners.awaitTold(0)).isTrue();
    }
}
