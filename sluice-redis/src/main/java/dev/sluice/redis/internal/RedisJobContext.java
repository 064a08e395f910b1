package dev.sluice.redis.internal;

import dev.sluice.internal.queue.QueueChecks;
import dev.sluice.queue.Job;
import dev.sluice.queue.JobContext;
import dev.sluice.queue.QueueListener;
import dev.sluice.queue.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** What the processor sees of one attempt; the payload is decoded when the processor first asks for it. */
final class RedisJobContext<T> implements JobContext<T> {
    private final RedisJobQueue<T> queue;
    private final ClaimedJob<T> claimed;

    RedisJobContext(RedisJobQueue<T> queue, ClaimedJob<T> claimed) {
        this.queue = queue;
        this.claimed = claimed;
    }

    @Override
    public Job<T> job() {
        return queue.job(claimed.id).orElseGet(claimed::withPayload);
    }

    @Override
    public T payload() {
        return claimed.payload.get();
    }

    @Override
    public int attempt() {
        return claimed.attempt;
    }

    @Override
    public void progress(int percent) {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("progress must be between 0 and 100, was " + percent);
        }
        QueueCalls.Sequenced sequenced = queue.calls.callInOrder(
                true,
                queue.calls.arguments("progress", claimed.id, Long.toString(claimed.token), Integer.toString(percent)));
        List<Consumer<QueueListener<T>>> events = new ArrayList<>(1);
        try {
            if (sequenced.reply() != null) {
                Job<T> job = queue.snapshot(sequenced.reply(), null, false);
                events.add(l -> l.onProgress(job, percent));
            }
        } finally {
            queue.calls.deliver(sequenced.ticket(), events);
        }
    }

    @Override
    public void quota(Result.Scope scope, long remaining, Duration resetIn) {
        long resetNanos = QueueChecks.checkQuota(scope, remaining, resetIn);
        RedisAdmin.adapt(
                queue,
                claimed.scope,
                scope,
                "quota",
                Long.toString(remaining),
                Long.toString(Math.max(1, resetNanos / 1000)));
    }

    @Override
    public boolean isCancelled() {
        if (claimed.lost) {
            return true;
        }
        return Replies.number(queue.calls.call(false, "owns", claimed.id, Long.toString(claimed.token))) == 0;
    }
}
