package dev.sluice.limit;

/** {@link LimiterListener#none()}. */
final class NoLimiterListener implements LimiterListener {
    static final LimiterListener INSTANCE = new NoLimiterListener();

    private NoLimiterListener() {}
}
