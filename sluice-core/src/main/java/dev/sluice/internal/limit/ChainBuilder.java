package dev.sluice.internal.limit;

import dev.sluice.limit.LimitChain;
import dev.sluice.limit.NamedLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** The one {@link LimitChain.Builder}: gathers and checks the layers; the engine makes the chain from them. */
public final class ChainBuilder<C> implements LimitChain.Builder<C> {
    private final Function<List<LimitChain.Layer<C>>, LimitChain<C>> factory;
    private final List<LimitChain.Layer<C>> layers = new ArrayList<>();

    /** A builder whose {@link #build()} hands the layers to {@code factory}. */
    public ChainBuilder(Function<List<LimitChain.Layer<C>>, LimitChain<C>> factory) {
        this.factory = factory;
    }

    @Override
    public LimitChain.Builder<C> layer(NamedLimiter limiter, Function<? super C, String> key) {
        layers.add(new LimitChain.Layer<>(limiter, key));
        return this;
    }

    @Override
    public LimitChain.Builder<C> layer(NamedLimiter limiter, String fixedKey) {
        Limits.checkKey(fixedKey);
        return layer(limiter, ignored -> fixedKey);
    }

    @Override
    public LimitChain<C> build() {
        if (layers.isEmpty()) {
            throw new IllegalArgumentException("a chain needs at least 1 layer, had 0");
        }
        return factory.apply(List.copyOf(layers));
    }
}
