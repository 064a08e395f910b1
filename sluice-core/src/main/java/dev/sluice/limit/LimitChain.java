package dev.sluice.limit;

import java.util.List;
import java.util.function.Function;

/**
 * Several limits acquired together, all or nothing: a tenant's limit AND a global one, say.
 *
 * <p>When any layer denies, no layer keeps permits: those already taken from earlier layers are returned.
 * The decision names the first layer that denied and carries the longest retry-after among the layers
 * that denied, which is when the whole chain would allow the request if nothing else arrived. When all
 * allow, the decision's lease releases the leases of every layer.
 *
 * <p>Obtained from an engine ({@link dev.sluice.Sluice#chain()}). Thread-safe.
 *
 * @param <C> what a request is identified by; each layer derives its key from it
 */
public interface LimitChain<C> extends Limiter<C> {

    /**
     * The layers, in the order they are acquired.
     *
     * @return the layers
     */
    List<Layer<C>> layers();

    /**
     * One limit in a chain, and how a request's context names the key within it.
     *
     * @param limiter the limiter
     * @param key derives the limiter's key from the request's context
     * @param <C> what a request is identified by
     */
    record Layer<C>(NamedLimiter limiter, Function<? super C, String> key) {
        /**
         * Checks that neither part is null.
         *
         * @throws IllegalArgumentException if the limiter or the key function is null
         */
        public Layer {
            if (limiter == null) {
                throw new IllegalArgumentException("limiter of a chain layer must not be null");
            }
            if (key == null) {
                throw new IllegalArgumentException("key of a chain layer must not be null: give a function of"
                        + " the request's context, or a fixed key");
            }
        }
    }

    /**
     * Builds a chain; obtained from {@link dev.sluice.Sluice#chain()}. Not thread-safe.
     *
     * @param <C> what a request is identified by
     */
    interface Builder<C> {
        /**
         * Adds a layer whose key is derived from the request's context.
         *
         * @param limiter a rate or concurrency limiter of the engine that builds the chain
         * @param key derives the limiter's key from the request's context
         * @return this builder
         * @throws IllegalArgumentException if an argument is null
         */
        Builder<C> layer(NamedLimiter limiter, Function<? super C, String> key);

        /**
         * Adds a layer whose key is the same for every request: a global limit.
         *
         * @param limiter a rate or concurrency limiter of the engine that builds the chain
         * @param fixedKey the key of every request
         * @return this builder
         * @throws IllegalArgumentException if an argument is null, or the key is empty or too long
         */
        Builder<C> layer(NamedLimiter limiter, String fixedKey);

        /**
         * Builds the chain.
         *
         * @return the chain
         * @throws IllegalArgumentException if there are no layers, or a layer belongs to another engine
         * @throws IllegalStateException if the engine is closed
         */
        LimitChain<C> build();
    }
}
