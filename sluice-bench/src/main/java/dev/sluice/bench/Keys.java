package dev.sluice.bench;

import java.util.SplittableRandom;

/** The distinct keys of the many-key scenarios. */
final class Keys {
    static final int COUNT = 100_000;
    static final String ONE_KEY = "user:42";

    private Keys() {}

    /** {@code count} distinct keys such as {@code "user:12345"}, in creation order. */
    static String[] distinct(int count) {
        String[] keys = new String[count];
        for (int i = 0; i < count; i++) {
            keys[i] = "user:" + i;
            keys[i].hashCode(); // cache the hash, as a long-lived key would have it
        }
        return keys;
    }

    /** A copy of {@code keys} in a fixed pseudo-random order (seeded, the same in every run). */
    static String[] shuffled(String[] keys) {
        String[] order = keys.clone();
        SplittableRandom random = new SplittableRandom(42);
        for (int i = order.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            String swap = order[i];
            order[i] = order[j];
            order[j] = swap;
        }
        return order;
    }
}
