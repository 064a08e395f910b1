package dev.sluice.bench.adaptive;

/**
 * Something that decides how fast the simulation's worker sends to the downstream: a rate (jobs per second, paced)
 * or a concurrency (requests in flight), from what it hears. Times in nanoseconds.
 */
interface Controller {
    /** How its limit is applied. */
    enum Mode {
        RATE,
        CONCURRENCY
    }

    String name();

    Mode mode();

    /** The rate (jobs per second) or the concurrency it allows at {@code now}. */
    double limit(long now);

    /** Nothing is sent before this (a pause); 0 for none. */
    default long pausedUntil() {
        return 0;
    }

    /** An attempt sent at {@code sentAt} was served, {@code inFlight} requests (itself included) on their way. */
    default void served(long sentAt, long latency, int inFlight, long now) {}

    /** An attempt sent at {@code sentAt} was refused (429) with {@code retryAfter} (0: none given). */
    default void refused(long sentAt, long retryAfter, int inFlight, long now) {}

    /**
     * A process reports what it saw over the last tenth of a second: jobs started, attempts succeeded and refused;
     * {@code utilisation}, the share of what the rate allowed that all processes started over the tenth that ended
     * with the first process's report.
     */
    default void tick(int started, int succeeded, int refused, double utilisation, long now) {}

    /** The application's gauge went stale ({@code true}) or is heard again ({@code false}) at {@code now}. */
    default void gaugeStale(boolean stale, long now) {}

    /** How many times it lowered its limit. */
    default long cuts() {
        return 0;
    }

    /** Whether a refused job waits for the Retry-After (with jitter) before it may be sent again. */
    default boolean honoursRetryAfter() {
        return false;
    }
}
