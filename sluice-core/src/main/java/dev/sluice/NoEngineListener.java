package dev.sluice;

/** {@link EngineListener#none()}. */
final class NoEngineListener implements EngineListener {
    static final EngineListener INSTANCE = new NoEngineListener();

    private NoEngineListener() {}
}
