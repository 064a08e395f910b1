package dev.sluice.bench.adaptive;

import java.util.List;

/**
 * One simulated stretch: the downstream's capacity over time and its kind, the demand (jobs arriving per second;
 * infinite: a backlog that never empties), how long it runs, what a 429 says, when the capacity drops and returns
 * (the metrics' phases; negative: none), how many processes are live over time (null: as many as the contender runs),
 * and when the application's gauge goes stale and is heard again (seconds; negative: never).
 */
record Scenario(
        String name,
        Profile capacity,
        Profile demand,
        int seconds,
        Downstream.Kind kind,
        Downstream.RetryAfter retryAfter,
        int dropAt,
        int returnAt,
        Profile processes,
        int staleFrom,
        int staleUntil) {

    private static final Profile ENDLESS = Profile.constant(Double.POSITIVE_INFINITY);
    private static final Profile DROP = Profile.steps(0, 200, 60, 50, 120, 200);

    /** A scenario whose processes are the contender's, its gauge never stale. */
    Scenario(
            String name,
            Profile capacity,
            Profile demand,
            int seconds,
            Downstream.Kind kind,
            Downstream.RetryAfter retryAfter,
            int dropAt,
            int returnAt) {
        this(name, capacity, demand, seconds, kind, retryAfter, dropAt, returnAt, null, -1, -1);
    }

    /** 200 jobs/s, 50 for a minute, 200 again; a backlog that never empties; 429s with latency growing. */
    static Scenario dropAndReturn(Downstream.RetryAfter retryAfter) {
        String suffix = switch (retryAfter) {
            case ONE_SECOND -> "";
            case ABSENT -> ", no Retry-After";
            case HALF -> ", Retry-After wrong by half";
        };
        return new Scenario(
                "200 -> 50 -> 200" + suffix, DROP, ENDLESS, 180, Downstream.Kind.REFUSES, retryAfter, 60, 120);
    }

    /**
     * The drop of {@link #dropAndReturn} (Retry-After 1 s), its downstream shared by {@link Tenants#COUNT} tenants with
     * equal, endless demand, each with a controller of its own (run by {@link Tenants}, not {@link Simulation}).
     */
    static Scenario sharedByTenants() {
        return theDrop("200 -> 50 -> 200, " + Tenants.COUNT + " tenants");
    }

    /** The same drop, its downstream answering 429s at a flat latency. */
    static Scenario refusalsOnly() {
        return new Scenario(
                "200 -> 50 -> 200, 429s only (flat latency)",
                DROP,
                ENDLESS,
                180,
                Downstream.Kind.REFUSES_FLAT,
                Downstream.RetryAfter.ONE_SECOND,
                60,
                120);
    }

    /** The same drop, its downstream refusing nothing: what it cannot serve waits in its queue. */
    static Scenario latencyOnly() {
        return new Scenario(
                "200 -> 50 -> 200, latency only (no 429s)",
                DROP,
                ENDLESS,
                180,
                Downstream.Kind.QUEUES,
                Downstream.RetryAfter.ABSENT,
                60,
                120);
    }

    /** A noisy neighbour takes half the quota for a minute. */
    static Scenario noisyNeighbour() {
        return new Scenario(
                "noisy neighbour: 200 -> 100 -> 200",
                Profile.steps(0, 200, 60, 100, 120, 200),
                ENDLESS,
                180,
                Downstream.Kind.REFUSES,
                Downstream.RetryAfter.ONE_SECOND,
                60,
                120);
    }

    /** The capacity drifts from 200 down to 100 and up to 300 over three minutes. */
    static Scenario slowDrift() {
        Profile drift = new Profile(List.of(
                new Profile.Phase(0, 200, true), new Profile.Phase(60, 100, true), new Profile.Phase(180, 300, false)));
        return new Scenario(
                "slow drift 200 -> 100 -> 300",
                drift,
                ENDLESS,
                180,
                Downstream.Kind.REFUSES,
                Downstream.RetryAfter.ONE_SECOND,
                -1,
                -1);
    }

    /** Demand of 20 jobs/s (well under the capacity of 200) for a minute, then a backlog of 10,000 at once. */
    static Scenario appLimitedThenBacklog() {
        return new Scenario(
                "app-limited, then a backlog of 10,000",
                Profile.constant(200),
                Profile.steps(0, 20, 60, 10_000, 61, 20),
                150,
                Downstream.Kind.REFUSES,
                Downstream.RetryAfter.ONE_SECOND,
                -1,
                60);
    }

    /**
     * The drop of {@link #dropAndReturn} (Retry-After 1 s) with processes joining and leaving: 16 at first, 4 from
     * 30 s (twelve leave as a process dies: what they had not reported is lost), 64 from 90 s, 16 from 150 s.
     */
    static Scenario processesJoiningAndLeaving() {
        return theDrop("200 -> 50 -> 200, processes 16 -> 4 -> 64 -> 16")
                .with(Profile.steps(0, 16, 30, 4, 90, 64, 150, 16), -1, -1);
    }

    /**
     * The drop of {@link #dropAndReturn} (Retry-After 1 s) with the application's gauge stale from 90 s to 140 s,
     * over the capacity's return at 120 s.
     */
    static Scenario staleGauge() {
        return theDrop("200 -> 50 -> 200, gauge stale 90-140 s").with(null, 90, 140);
    }

    /** This scenario with {@code processes} live over time and its gauge stale from {@code staleFrom}. */
    private Scenario with(Profile processes, int staleFrom, int staleUntil) {
        return new Scenario(
                name, capacity, demand, seconds, kind, retryAfter, dropAt, returnAt, processes, staleFrom, staleUntil);
    }

    /** The drop of {@link #dropAndReturn} with a Retry-After of 1 s, called {@code name}. */
    private static Scenario theDrop(String name) {
        return new Scenario(
                name, DROP, ENDLESS, 180, Downstream.Kind.REFUSES, Downstream.RetryAfter.ONE_SECOND, 60, 120);
    }
}
