package dev.sluice.internal.queue;

import dev.sluice.queue.Codec;
import dev.sluice.queue.Job;
import java.util.ArrayList;
import java.util.List;

/**
 * A job's snapshot taken under the queue's lock with its payload still encoded: the codec, user code, decodes it
 * only when {@link #job()} is first asked, which callers do after the lock is released. A payload the codec cannot
 * decode reads as null, as in every snapshot.
 */
final class Undecoded<T> {
    private final Job<T> withoutPayload;
    private final byte[] payload;
    private final Codec<T> codec;
    private Job<T> job;

    Undecoded(Job<T> withoutPayload, byte[] payload, Codec<T> codec) {
        this.withoutPayload = withoutPayload;
        this.payload = payload;
        this.codec = codec;
    }

    /** The job's id. */
    String id() {
        return withoutPayload.id();
    }

    /** The jobs of {@code page}, each decoded; called after the queue's lock is released. */
    static <T> List<Job<T>> decodeAll(List<Undecoded<T>> page) {
        List<Job<T>> jobs = new ArrayList<>(page.size());
        for (Undecoded<T> job : page) {
            jobs.add(job.job());
        }
        return jobs;
    }

    /** The snapshot with its payload decoded (once, whoever asks first). */
    synchronized Job<T> job() {
        if (job == null) {
            T decoded;
            try {
                decoded = codec.decode(payload);
            } catch (RuntimeException e) {
                decoded = null;
            }
            Job<T> j = withoutPayload;
            job = new Job<>(
                    j.id(),
                    j.name(),
                    decoded,
                    j.group(),
                    j.state(),
                    j.options(),
                    j.attemptsMade(),
                    j.rateLimits(),
                    j.createdAt(),
                    j.runAt(),
                    j.startedAt(),
                    j.finishedAt(),
                    j.progress(),
                    j.encodedResult(),
                    j.failure(),
                    j.attempts());
        }
        return job;
    }
}
