package dev.sluice.server;

import java.util.Locale;

/**
 * What a caller of Sluice's HTTP API may do. Each scope includes the ones before it: an {@link #ADMIN} token can do
 * everything an {@link #OPERATE} token can.
 */
public enum Scope {
    /** Read queues, jobs, groups, workers, limiters and the dashboard. */
    READ,
    /** Also add, retry, remove and promote jobs, pause and resume queues and groups, ask limiters, run workers. */
    OPERATE,
    /** Also remove many jobs at once (clean, drain), remove a whole queue and change rates. */
    ADMIN;

    /**
     * Whether a caller with this scope may do what {@code needed} allows.
     *
     * @param needed the scope a request needs
     * @return true if this scope is {@code needed} or wider
     */
    public boolean includes(Scope needed) {
        return compareTo(needed) >= 0;
    }

    /**
     * The scope named {@code name}, in any case.
     *
     * @param name {@code read}, {@code operate} or {@code admin}
     * @return that scope
     * @throws IllegalArgumentException naming the allowed names if {@code name} is none of them
     */
    public static Scope named(String name) {
        if (name != null) {
            for (Scope scope : values()) {
                if (scope.name().equalsIgnoreCase(name.strip())) {
                    return scope;
                }
            }
        }
        throw new IllegalArgumentException("scope must be one of read, operate, admin; was " + name);
    }

    /** The scope's name as the API and the configuration file write it: {@code read}, {@code operate}, {@code admin}. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
