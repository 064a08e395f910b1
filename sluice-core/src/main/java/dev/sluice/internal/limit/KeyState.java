package dev.sluice.internal.limit;

/**
 * The state one key holds under one policy. Each {@link Algorithm} defines its own subclass; a state is
 * retired (and then never used again) when its key is dropped from the table.
 */
abstract class KeyState {
    /** A state guarded by its own monitor, for policies whose state is more than one word. */
    abstract static class Locked extends KeyState {
        boolean retired;
    }
}
