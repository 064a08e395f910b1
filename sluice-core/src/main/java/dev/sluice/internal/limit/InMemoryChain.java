package dev.sluice.internal.limit;

import dev.sluice.limit.Decision;
import dev.sluice.limit.LimitChain;
import dev.sluice.time.SluiceClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A chain on the in-memory engine: each layer is acquired in order; at the first denial the later layers
 * are only asked (nothing taken) so the longest retry-after is known, and the earlier grants are undone.
 */
final class InMemoryChain<C> implements LimitChain<C> {
    private final List<Layer<C>> layers;
    private final InMemoryLimiter<?>[] limiters;
    private final SluiceClock clock;
    private final InMemoryLimiters owner;

    InMemoryChain(InMemoryLimiters owner, List<Layer<C>> layers) {
        this.owner = owner;
        this.layers = layers;
        this.limiters = new InMemoryLimiter<?>[layers.size()];
        for (int i = 0; i < limiters.length; i++) {
            if (!(layers.get(i).limiter() instanceof InMemoryLimiter<?> limiter) || limiter.owner != owner) {
                throw Limits.foreignLayer(i, layers.get(i).limiter().name());
            }
            limiters[i] = limiter;
        }
        this.clock = owner.clock();
    }

    @Override
    public List<Layer<C>> layers() {
        return layers;
    }

    @Override
    public Decision tryAcquire(C context, long permits) {
        owner.checkOpen();
        int n = limiters.length;
        String[] keys = new String[n];
        Algorithm[] algorithms = new Algorithm[n];
        for (int i = 0; i < n; i++) {
            keys[i] = layers.get(i).key().apply(context);
            algorithms[i] = limiters[i].algorithm();
            limiters[i].checkKey(keys[i]);
            limiters[i].checkPermits(algorithms[i], permits);
        }
        long now = clock.nanos();
        KeyState[] states = new KeyState[n];
        Decision[] decisions = new Decision[n];
        int deniedBy = -1;
        long retryAfter = 0;
        for (int i = 0; i < n; i++) {
            decisions[i] = limiters[i].table.decide(keys[i], algorithms[i], now, permits, deniedBy < 0, states, i);
            if (decisions[i].denied()) {
                deniedBy = deniedBy < 0 ? i : deniedBy;
                retryAfter = Math.max(retryAfter, decisions[i].retryAfterNanos());
            }
        }
        if (deniedBy >= 0) {
            for (int i = 0; i < deniedBy; i++) {
                algorithms[i].undo(states[i], clock.nanos(), permits, decisions[i]);
            }
            Decision first = decisions[deniedBy];
            limiters[deniedBy].listener.onDenied(first.limiter(), keys[deniedBy], permits, first);
            return Limits.chainDenial(first, retryAfter);
        }
        for (int i = 0; i < n; i++) {
            limiters[i].listener.onAllowed(decisions[i].limiter(), keys[i], permits, decisions[i]);
        }
        return Limits.chainGrant(decisions);
    }

    @Override
    public CompletableFuture<Decision> tryAcquireAsync(C context, long permits) {
        return CompletableFuture.completedFuture(tryAcquire(context, permits));
    }

    @Override
    public Decision acquire(C context, long permits, Duration timeout) throws InterruptedException {
        return Waiting.acquire(this, clock, this::maxStepNanos, context, permits, timeout);
    }

    @Override
    public CompletableFuture<Decision> acquireAsync(C context, long permits, Duration timeout) {
        return Waiting.acquireAsync(this, clock, this::maxStepNanos, context, permits, timeout);
    }

    private long maxStepNanos(Decision denial) {
        long step = Long.MAX_VALUE;
        for (InMemoryLimiter<?> limiter : limiters) {
            step = Math.min(step, limiter.maxStepNanos(denial));
        }
        return step;
    }

    @Override
    public String toString() {
        return Limits.describeChain(layers);
    }
}
