package dev.sluice.limit;

import dev.sluice.time.Arguments;

/**
 * How a limiter treats its keys, beyond the policy.
 *
 * <h2>Bounded keys</h2>
 *
 * A limiter tracks at most {@code maxKeys} keys. A key whose state is back at its full limit is idle, and
 * dropping it changes nothing, since a new key starts at its full limit too. Idle keys are dropped by a
 * sweep, which runs when a new key finds the table full (at most once per second of clock time, or after
 * {@code maxKeys / 4} new keys found it full, so a flood of new keys cannot make every request pay for a
 * sweep) and at least once a minute. When the table is full and no sweep is due, a new key is not tracked on
 * its own: it shares one overflow state with every other untracked key, so together they get one key's
 * limit. Nothing throws, no tracked key is dropped early, and no key gains permits by being dropped and
 * coming back: a key that later gets its own slot starts from the overflow's state. An attacker sending
 * millions of distinct keys therefore costs at most {@code maxKeys} entries and competes with the other
 * new keys for one key's worth of permits.
 *
 * <p>{@code maxKeys} bounds the in-memory engine. A shared engine such as Redis keeps every key's state
 * there and lets it expire by itself once it is back at its full limit, so it does not need the bound.
 *
 * @param maxKeys the most keys tracked at once by the in-memory engine, 1 to 2^30
 * @param listener hears decisions and evictions
 * @param whenUnavailable what to answer while a shared engine cannot be reached; {@link
 *     WhenUnavailable#failClosed()} by default
 */
public record LimiterOptions(int maxKeys, LimiterListener listener, WhenUnavailable whenUnavailable) {
    /** The default {@link #maxKeys()}: at most about 7 MB of token-bucket state (67 bytes a key), key strings aside. */
    public static final int DEFAULT_MAX_KEYS = 100_000;

    private static final LimiterOptions DEFAULTS =
            new LimiterOptions(DEFAULT_MAX_KEYS, LimiterListener.none(), WhenUnavailable.failClosed());

    /** Validates the arguments; each {@link IllegalArgumentException} names the bad value and the range. */
    public LimiterOptions {
        Arguments.inRange("maxKeys", maxKeys, 1, 1 << 30);
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null; use LimiterListener.none()");
        }
        if (whenUnavailable == null) {
            throw new IllegalArgumentException(
                    "whenUnavailable must not be null; use WhenUnavailable.failClosed(), failOpen() or fallBack(share)");
        }
    }

    /**
     * {@link #DEFAULT_MAX_KEYS} keys, no listener, failing closed.
     *
     * @return the default options
     */
    public static LimiterOptions defaults() {
        return DEFAULTS;
    }

    /**
     * A builder starting from the {@link #defaults()}.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding these options, to make a variant.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return new Builder().maxKeys(maxKeys).listener(listener).whenUnavailable(whenUnavailable);
    }

    /** Builds {@link LimiterOptions}; each value is checked by {@link #build()}. */
    public static final class Builder {
        private int maxKeys = DEFAULT_MAX_KEYS;
        private LimiterListener listener = LimiterListener.none();
        private WhenUnavailable whenUnavailable = WhenUnavailable.failClosed();

        private Builder() {}

        /**
         * The most keys the in-memory engine tracks at once; {@link #DEFAULT_MAX_KEYS} by default.
         *
         * @param maxKeys 1 to 2^30
         * @return this builder
         */
        public Builder maxKeys(int maxKeys) {
            this.maxKeys = maxKeys;
            return this;
        }

        /**
         * Who hears decisions and evictions; {@link LimiterListener#none()} by default.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder listener(LimiterListener listener) {
            this.listener = listener;
            return this;
        }

        /**
         * The answer while a shared engine cannot be reached; {@link WhenUnavailable#failClosed()} by default.
         *
         * @param whenUnavailable the answer
         * @return this builder
         */
        public Builder whenUnavailable(WhenUnavailable whenUnavailable) {
            this.whenUnavailable = whenUnavailable;
            return this;
        }

        /**
         * The options.
         *
         * @return the options
         * @throws IllegalArgumentException if a value is out of range or null
         */
        public LimiterOptions build() {
            return new LimiterOptions(maxKeys, listener, whenUnavailable);
        }
    }
}
