package dev.sluice.bench;

/**
 * The rate every library is configured to in one benchmark trial: {@code capacity} permits at once, refilled at
 * {@code permitsPerSecond}.
 */
enum Regime {
    /** 10^9 permits per second, capacity 10^9: far above any achievable call rate, so every call is granted. */
    open(1_000_000_000L, 1_000_000_000L),
    /** 1,000 permits per second, capacity 1,000: on one hot key almost every call is denied. */
    throttled(1_000L, 1_000L);

    final long capacity;
    final long permitsPerSecond;

    Regime(long capacity, long permitsPerSecond) {
        this.capacity = capacity;
        this.permitsPerSecond = permitsPerSecond;
    }
}
