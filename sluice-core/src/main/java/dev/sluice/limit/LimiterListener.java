package dev.sluice.limit;

/**
 * Hears what limiters decide. Methods are called on the deciding thread (for an asynchronous call on a shared
 * engine, on its client's thread) and must be quick; every method does nothing by default. What a method
 * throws changes no decision: the engine logs it (SLF4J, logger {@code dev.sluice.internal.limit.SafeListener};
 * the first failure of a limiter's listener as a warning, later ones at debug level) and goes on.
 */
public interface LimiterListener {
    /**
     * The listener that ignores everything.
     *
     * @return the listener, always the same instance
     */
    static LimiterListener none() {
        return NoLimiterListener.INSTANCE;
    }

    /**
     * {@code permits} were granted to {@code key}.
     *
     * @param limiter the limiter's name
     * @param key the key
     * @param permits the permits asked for
     * @param decision the decision returned to the caller
     */
    default void onAllowed(String limiter, String key, long permits, Decision decision) {}

    /**
     * {@code permits} were denied to {@code key}.
     *
     * @param limiter the limiter's name
     * @param key the key
     * @param permits the permits asked for
     * @param decision the decision returned to the caller
     */
    default void onDenied(String limiter, String key, long permits, Decision decision) {}

    /**
     * {@code key}'s state was dropped because it was idle: back at its full limit, so dropping it changes no
     * future decision.
     *
     * @param limiter the limiter's name
     * @param key the key dropped
     */
    default void onEvicted(String limiter, String key) {}

    /**
     * The limiter tracks as many keys as it may, none of them idle, so {@code key} was decided against the
     * limiter's shared overflow state (see {@link LimiterOptions#maxKeys()}).
     *
     * @param limiter the limiter's name
     * @param key the key decided against the overflow
     */
    default void onKeyTableFull(String limiter, String key) {}

    /**
     * The limiter's engine could not be reached ({@code cause} says why); until {@link #onRecovered}, the
     * limiter answers by its {@link WhenUnavailable} option, and each such decision says so in {@link
     * Decision#basis()}. Called once per outage.
     *
     * @param limiter the limiter's name
     * @param cause why the engine could not be reached
     */
    default void onUnavailable(String limiter, Throwable cause) {}

    /**
     * The limiter's engine answers again after {@link #onUnavailable}; decisions rest on the limit again.
     *
     * @param limiter the limiter's name
     */
    default void onRecovered(String limiter) {}
}
