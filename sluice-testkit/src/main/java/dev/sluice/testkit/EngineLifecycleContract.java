package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyKeyLimiter;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.Decision;
import dev.sluice.limit.KeyLimiter;
import dev.sluice.limit.LimitChain;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import dev.sluice.queue.Codec;
import dev.sluice.queue.JobQueue;
import dev.sluice.queue.JobState;
import dev.sluice.queue.Result;
import dev.sluice.queue.Worker;
import dev.sluice.queue.WorkerOptions;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * After {@link Sluice#close()}: every use of the engine and of what it handed out throws an {@link
 * IllegalStateException} naming the engine; what an object is stays readable; closing again does nothing.
 * Also what engines and limiters say they are ({@code toString}). Every method of a queue and a worker after
 * close, and callers waiting when it happens, are pinned by {@link QueueClosedEngineContract}, which runs with
 * the queue contract on the engines that keep queues.
 */
public abstract class EngineLifecycleContract extends ContractSupport {
    private static final TokenBucket TEN_PER_SECOND = TokenBucket.of(10, 10, Duration.ofSeconds(1));

    /** For subclasses, one per engine. */
    protected EngineLifecycleContract() {}

    private void assertClosed(ThrowingCallable call) {
        assertThatThrownBy(call)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(engine.toString())
                .hasMessageContaining("closed");
    }

    @Test
    void limitersKeyLimitersAndChainsRefuseEveryUseAfterClose() {
        RateLimiter limiter = engine.limiter("api", TEN_PER_SECOND);
        ConcurrencyLimiter leases = engine.concurrencyLimiter("conc", ConcurrencyLimit.of(2, Duration.ofSeconds(10)));
        KeyLimiter bound = limiter.forKey("k");
        bound.tryAcquire();
        ConcurrencyKeyLimiter boundLease = leases.forKey("k");
        LimitChain<String> chain =
                engine.<String>chain().layer(limiter, key -> key).build();
        LimitChain.Builder<String> builder = engine.chain();

        engine.close();

        assertClosed(() -> limiter.tryAcquire("k"));
        assertClosed(() -> limiter.tryAcquireAsync("k", 1));
        assertClosed(() -> limiter.tryConsume("k"));
        assertClosed(() -> limiter.acquire("k", 1, Duration.ZERO));
        assertClosed(() -> limiter.acquireAsync("k", 1, Duration.ZERO));
        assertClosed(() -> limiter.peek("k", 1));
        assertClosed(() -> limiter.available("k"));
        assertClosed(() -> limiter.refund("k", 1));
        assertClosed(() -> limiter.reset("k"));
        assertClosed(() -> limiter.forKey("k"));
        assertClosed(() -> limiter.setPolicy(TokenBucket.perSecond(1)));
        assertClosed(() -> leases.tryAcquire("k"));
        assertClosed(() -> leases.tryAcquireAsync("k", 1));
        assertClosed(() -> leases.acquire("k", 1, Duration.ZERO));
        assertClosed(() -> leases.acquireAsync("k", 1, Duration.ZERO));
        assertClosed(() -> leases.peek("k", 1));
        assertClosed(() -> leases.available("k"));
        assertClosed(() -> leases.reset("k"));
        assertClosed(() -> leases.forKey("k"));
        assertClosed(() -> leases.setPolicy(ConcurrencyLimit.of(1, Duration.ofSeconds(1))));
        assertClosed(boundLease::tryAcquire);
        assertClosed(boundLease::available);
        assertClosed(bound::tryAcquire);
        assertClosed(bound::tryConsume);
        assertClosed(bound::available);
        assertClosed(() -> chain.tryAcquire("k"));
        assertClosed(() -> chain.tryAcquireAsync("k", 1));
        assertClosed(() -> chain.acquire("k", 1, Duration.ZERO));
        assertClosed(() -> builder.layer(limiter, "k").build());

        assertThat(limiter.name()).isEqualTo("api");
        assertThat(limiter.policy()).isEqualTo(TEN_PER_SECOND);
        assertThat(limiter.toString()).contains("api");
    }

    @Test
    void theEngineRefusesNewLimitersChainsAndQueuesAfterClose() {
        engine.limiter("api", TEN_PER_SECOND);

        engine.close();

        assertClosed(() -> engine.limiter("api", TEN_PER_SECOND));
        assertClosed(() -> engine.limiter("new", TEN_PER_SECOND));
        assertClosed(() -> engine.concurrencyLimiter("pool", ConcurrencyLimit.of(1, Duration.ofSeconds(1))));
        assertClosed(() -> engine.chain());
        assertClosed(() -> engine.queue("jobs", Codec.utf8()));
    }

    @Test
    void closeIsIdempotentAndSilent() {
        engine.limiter("api", TEN_PER_SECOND).tryAcquire("k");

        engine.close();

        assertThatCode(engine::close).doesNotThrowAnyException();
        assertThatCode(engine::close).doesNotThrowAnyException();
        assertClosed(() -> engine.limiter("api", TEN_PER_SECOND));
    }

    @Test
    void aLeaseTakenBeforeCloseReleasesNothingAfterItAndDoesNotThrow() {
        Decision held = engine.concurrencyLimiter("conc", ConcurrencyLimit.of(2, Duration.ofSeconds(10)))
                .tryAcquire("k");

        engine.close();

        assertThat(held.release()).isFalse();
        assertThat(held.release()).isFalse();
    }

    @Test
    void queuesAndWorkersRefuseEveryUseAfterClose() {

        JobQueue<String> queue = engine.queue("jobs", Codec.utf8());
        queue.add("job", "payload");
        Worker<String> worker = queue.worker(job -> Result.done(), WorkerOptions.manual());

        engine.close();

        assertClosed(() -> queue.add("job", "payload"));
        assertClosed(() -> queue.addBulk(List.of()));
        assertClosed(queue::counts);
        assertClosed(() -> queue.jobs(JobState.WAITING, 0, 10));
        assertClosed(queue::pause);
        assertClosed(() -> queue.worker(job -> Result.done(), WorkerOptions.manual()));
        assertClosed(worker::start);
        assertClosed(worker::runDue);
        assertThat(queue.name()).isEqualTo("jobs");
        assertThatCode(() -> worker.close(Duration.ZERO)).doesNotThrowAnyException();
    }

    @Test
    void enginesAndLimitersSayWhatTheyAre() {
        RateLimiter limiter = engine.limiter("api", TEN_PER_SECOND);

        assertThat(engine.toString()).isNotBlank().doesNotContain("@");
        assertThat(limiter.toString())
                .contains("api")
                .contains(TEN_PER_SECOND.toString())
                .contains(engine.toString());
        assertThat(limiter.forKey("tenant-1").toString()).contains("api").contains("tenant-1");
        assertThat(engine.<String>chain().layer(limiter, "k").build().toString())
                .contains("api");
    }
}
