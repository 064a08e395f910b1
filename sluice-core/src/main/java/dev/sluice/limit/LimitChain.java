package dev.sluice.limit;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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

    /** The layers, in the order they are acquired. */
    List<Layer<C>> layers();

    /**
     * One limit in a chain, and how a request's context names the key within it.
     *
     * @param limiter the limiter
     * @param key derives the limiter's key from the request's context
     */
    record Layer<C>(RateLimiter limiter, Function<? super C, String> key) {
        /** Checks that neither part is null. */
        public Layer {
            Objects.requireNonNull(limiter, "limiter");
            Objects.requireNonNull(key, "key");
        }
    }

    /** Builds a chain; obtained from {@link dev.sluice.Sluice#chain()}. Not thread-safe. */
    final class Builder<C> {
        private final Function<List<Layer<C>>, LimitChain<C>> factory;
        private final List<Layer<C>> layers = new ArrayList<>();

        /** For engines: {@code factory} makes the chain from the validated layers. */
        public Builder(Function<List<Layer<C>>, LimitChain<C>> factory) {
            this.factory = Objects.requireNonNull(factory, "factory");
        }

        /** Adds a layer whose key is derived from the request's context. */
        public Builder<C> layer(RateLimiter limiter, Function<? super C, String> key) {
            layers.add(new Layer<>(limiter, key));
            return this;
        }

        /** Adds a layer whose key is the same for every request: a global limit. */
        public Builder<C> layer(RateLimiter limiter, String fixedKey) {
            Objects.requireNonNull(fixedKey, "fixedKey");
            return layer(limiter, ignored -> fixedKey);
        }

        /**
         * Builds the chain.
         *
         * @throws IllegalArgumentException if there are no layers, or a layer belongs to another engine
         */
        public LimitChain<C> build() {
            if (layers.isEmpty()) {
                throw new IllegalArgumentException("a chain needs at least 1 layer, had 0");
            }
            return factory.apply(List.copyOf(layers));
        }
    }
}
