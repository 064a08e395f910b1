package dev.sluice.limit;

/**
 * Hears what limiters decide. Methods are called on the deciding thread and must be quick and must not
 * throw; every method does nothing by default.
 */
public interface LimiterListener {
    /** The listener that ignores everything. */
    LimiterListener NONE = new LimiterListener() {};

    /** {@code permits} were granted to {@code key}. */
    default void onAllowed(String limiter, String key, long permits, Decision decision) {}

    /** {@code permits} were denied to {@code key}. */
    default void onDenied(String limiter, String key, long permits, Decision decision) {}

    /**
     * {@code key}'s state was dropped because it was idle: back at its full limit, so dropping it changes no
     * future decision.
     */
    default void onEvicted(String limiter, String key) {}

    /**
     * The limiter tracks as many keys as it may, none of them idle, so {@code key} was decided against the
     * limiter's shared overflow state (see {@link LimiterOptions#maxKeys()}).
     */
    default void onKeyTableFull(String limiter, String key) {}

    /**
     * The limiter's engine could not be reached ({@code cause} says why); until {@link #onRecovered}, the
     * limiter answers by its {@link WhenUnavailable} option, and each such decision says so in {@link
     * Decision#basis()}. Called once per outage.
     */
    default void onUnavailable(String limiter, Throwable cause) {}

    /** The limiter's engine answers again after {@link #onUnavailable}; decisions rest on the limit again. */
    default void onRecovered(String limiter) {}
}
