package dev.sluice.bench.adaptive;

/**
 * One simulated stretch: the downstream's capacity over time, the demand (jobs arriving per second; infinite: a
 * backlog that never empties), how long it runs, what a 429 says, and when the capacity drops and returns (the
 * metrics' phases; negative: none).
 */
record Scenario(
        String name,
        Profile capacity,
        Profile demand,
        int seconds,
        Downstream.RetryAfter retryAfter,
        int dropAt,
        int returnAt) {

    /** 200 jobs/s, 50 for a minute, 200 again; a backlog that never empties; Retry-After 1 s. */
    static Scenario dropAndReturn(Downstream.RetryAfter retryAfter) {
        String suffix = switch (retryAfter) {
            case ONE_SECOND -> "";
            case ABSENT -> ", no Retry-After";
            case HALF -> ", Retry-After wrong by half";
        };
        return new Scenario(
                "200 -> 50 -> 200" + suffix,
                Profile.steps(0, 200, 60, 50, 120, 200),
                Profile.constant(Double.POSITIVE_INFINITY),
                180,
                retryAfter,
                60,
                120);
    }

    /** The capacity drifts from 200 down to 100 and up to 300 over three minutes. */
    static Scenario slowDrift() {
        Profile drift = new Profile(java.util.List.of(
                new Profile.Phase(0, 200, true), new Profile.Phase(60, 100, true), new Profile.Phase(180, 300, false)));
        return new Scenario(
                "slow drift 200 -> 100 -> 300",
                drift,
                Profile.constant(Double.POSITIVE_INFINITY),
                180,
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
                Downstream.RetryAfter.ONE_SECOND,
                -1,
                60);
    }
}
