package dev.sluice.bench.adaptive;

import java.util.Random;

/**
 * A simulated partner API on virtual time, in one of three kinds: it serves at most its capacity C(t) per second (a
 * token bucket holding a tenth of a second's worth) and answers 429 beyond, with a Retry-After as its mode says, its
 * latency growing with its load ({@link Kind#REFUSES}) or not ({@link Kind#REFUSES_FLAT}); or it refuses nothing and
 * queues what it cannot serve at once ({@link Kind#QUEUES}), its latency the queue's wait. Times in nanoseconds.
 */
final class Downstream {
    /** How it answers more than its capacity. */
    enum Kind {
        /** 429s, and a latency that grows with the load offered: both signals. */
        REFUSES,
        /** 429s, and a flat latency: a 429-only signal. */
        REFUSES_FLAT,
        /** No 429: a queue served at the capacity, its wait the latency: a latency-only signal. */
        QUEUES
    }

    /** What a 429 says of when to come back. */
    enum RetryAfter {
        /** One second, as many APIs say. */
        ONE_SECOND,
        /** Nothing. */
        ABSENT,
        /** Half a second: wrong by half. */
        HALF
    }

    /** An answer: when it arrives, whether it was served, its Retry-After (0: none). */
    record Answer(long at, boolean served, long retryAfterNanos) {}

    static final long SECOND = 1_000_000_000L;
    private static final long BASE_LATENCY = 20_000_000L;

    private final Profile capacity;
    private final Kind kind;
    private final RetryAfter retryAfter;
    private final Random random;
    private double tokens;
    private long refilled;
    /** Requests offered in about the last second, for the latency (a decaying count). */
    private double load;

    private long loadAt;
    /** When the queue of a {@link Kind#QUEUES} downstream is served up to. */
    private long busyUntil;

    Downstream(Profile capacity, Kind kind, RetryAfter retryAfter, Random random) {
        this.capacity = capacity;
        this.kind = kind;
        this.retryAfter = retryAfter;
        this.random = random;
    }

    /** A request sent at {@code now}: served if a token is there, else refused. */
    Answer request(long now) {
        double c = capacity.at(now);
        double noise = 0.8 + 0.4 * random.nextDouble();
        if (kind == Kind.QUEUES) {
            busyUntil = Math.max(busyUntil, now) + (long) (SECOND / c);
            return new Answer(busyUntil + (long) (BASE_LATENCY * noise), true, 0);
        }
        tokens = Math.min(c / 10, tokens + c * (now - refilled) / SECOND);
        refilled = now;
        decayLoad(now);
        load += 1;
        // latency grows with the load offered: 20 ms idle, about 40 ms at capacity, 340 ms at twice it, with noise
        double utilisation = kind == Kind.REFUSES ? Math.min(2, load / Math.max(1, c)) : 0;
        double latency = BASE_LATENCY * (1 + Math.pow(utilisation, 4)) * noise;
        if (tokens >= 1) {
            tokens -= 1;
            return new Answer(now + (long) latency, true, 0);
        }
        long after = switch (retryAfter) {
            case ONE_SECOND -> SECOND;
            case ABSENT -> 0;
            case HALF -> SECOND / 2;
        };
        // a refusal costs a round trip, without the work
        return new Answer(now + (long) (BASE_LATENCY * noise), false, after);
    }

    private void decayLoad(long now) {
        double elapsed = (double) (now - loadAt) / SECOND;
        load *= Math.exp(-elapsed);
        loadAt = now;
    }
}
