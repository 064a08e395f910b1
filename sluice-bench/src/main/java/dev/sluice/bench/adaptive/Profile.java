package dev.sluice.bench.adaptive;

import java.util.List;

/**
 * A value over virtual time in phases: each phase holds from its start (seconds) until the next phase's, optionally
 * drifting linearly to the next phase's value. A capacity or a demand, in jobs per second.
 */
record Profile(List<Phase> phases) {
    record Phase(double startSeconds, double value, boolean drifts) {}

    static Profile constant(double value) {
        return new Profile(List.of(new Phase(0, value, false)));
    }

    /** Steps: value0 from 0 s, value1 from t1, ... given as (t, value) pairs, t0 = 0. */
    static Profile steps(double... pairs) {
        List<Phase> phases = new java.util.ArrayList<>();
        for (int i = 0; i < pairs.length; i += 2) {
            phases.add(new Phase(pairs[i], pairs[i + 1], false));
        }
        return new Profile(List.copyOf(phases));
    }

    /** The highest value it takes. */
    double max() {
        return phases.stream().mapToDouble(Phase::value).max().orElseThrow();
    }

    /** The value at {@code now} nanoseconds. */
    double at(long now) {
        double t = now / 1e9;
        Phase current = phases.get(0);
        int index = 0;
        for (int i = 1; i < phases.size(); i++) {
            if (phases.get(i).startSeconds() <= t) {
                current = phases.get(i);
                index = i;
            }
        }
        if (current.drifts() && index + 1 < phases.size()) {
            Phase next = phases.get(index + 1);
            double share = (t - current.startSeconds()) / (next.startSeconds() - current.startSeconds());
            return current.value() + (next.value() - current.value()) * share;
        }
        return current.value();
    }
}
