package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import dev.sluice.time.SluiceClock;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A claimed job's payload is decoded once, when first needed (by the processor or for a listener), not on the
 * worker's call lane for every job it claims.
 */
class RedisPayloadDecodingTest {
    private final AtomicInteger decodes = new AtomicInteger();
    private final Codec<String> counting = Codec.of("counting-utf8", s -> s.getBytes(StandardCharsets.UTF_8), bytes -> {
        decodes.incrementAndGet();
        return new String(bytes, StandardCharsets.UTF_8);
    });

    @Test
    void aProcessorReadingThePayloadDecodesItOnceAndOneThatDoesNotDecodesNothing() throws Exception {
        try (Sluice sluice = TestEngines.on(SluiceClock.system())) {
            JobQueue<String> queue = sluice.queue("q", counting);
            queue.add("read", "a");
            queue.add("skip", "b");
            List<String> read = new CopyOnWriteArrayList<>();
            CountDownLatch ran = new CountDownLatch(2);
            try (Worker<String> worker = queue.worker(
                    ctx -> {
                        if (ctx.attempt() == 1 && read.isEmpty() && ran.getCount() == 2) {
                            read.add(ctx.payload());
                            read.add(ctx.payload());
                        }
                        ran.countDown();
                        return Result.done();
                    },
                    WorkerOptions.concurrency(1))) {
                assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(read).containsExactly("a", "a");
            assertThat(decodes.get()).isEqualTo(1);
        }
    }

    @Test
    void aListenerHearsTheStartedJobWithItsPayloadDecodedOnceWithTheProcessors() throws Exception {
        try (Sluice sluice = TestEngines.on(SluiceClock.system())) {
            JobQueue<String> queue = sluice.queue("q", counting);
            List<Job<String>> started = new CopyOnWriteArrayList<>();
            CountDownLatch heard = new CountDownLatch(1);
            queue.addListener(new QueueListener<>() {
                @Override
                public void onActive(Job<String> job) {
                    started.add(job);
                    heard.countDown();
                }
            });
            queue.add("n", "a");
            int afterAdd = decodes.get();
            AtomicInteger whileRunning = new AtomicInteger(-1);
            CountDownLatch ran = new CountDownLatch(1);
            try (Worker<String> worker = queue.worker(
                    ctx -> {
                        heard.await(10, TimeUnit.SECONDS);
                        String payload = ctx.payload();
                        whileRunning.set(decodes.get() - afterAdd);
                        ran.countDown();
                        return Result.done(payload);
                    },
                    WorkerOptions.concurrency(1))) {
                assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(started).extracting(Job::payload).containsExactly("a");
            assertThat(whileRunning.get())
                    .as("decodes of the claimed payload for the listener and the processor")
                    .isEqualTo(1);
        }
    }
}
