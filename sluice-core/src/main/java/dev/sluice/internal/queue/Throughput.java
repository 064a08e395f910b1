package dev.sluice.internal.queue;

/** Events per second over the last minute, in one-second slots. Guarded by the queue's lock. */
final class Throughput {
    private static final long SECOND = 1_000_000_000L;
    private final int[] slots = new int[60];
    private long currentSecond = Long.MIN_VALUE;

    void record(long now) {
        advance(now);
        slots[(int) Math.floorMod(currentSecond, 60L)]++;
    }

    double perSecond(long now) {
        advance(now);
        long sum = 0;
        for (int slot : slots) {
            sum += slot;
        }
        return sum / 60.0;
    }

    /** Clears the slots of the seconds after the current one up to {@code now}'s, at most the whole minute. */
    private void advance(long now) {
        long second = Math.floorDiv(now, SECOND);
        for (long s = Math.max(currentSecond + 1, second - 59); s <= second; s++) {
            slots[(int) Math.floorMod(s, 60L)] = 0;
        }
        currentSecond = Math.max(currentSecond, second);
    }
}
