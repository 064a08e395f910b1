package dev.sluice.redis.internal;

import io.lettuce.core.SetArgs;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import java.util.function.DoubleSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Redis's CPU utilisation as a queue's gauge: the change of {@code used_cpu_sys + used_cpu_user} (seconds of CPU
 * since the server started) over the wall time between two readings, so 0.8 is 80% of one core. One process of those
 * following it reads {@code INFO CPU} at a time: the one holding the lease {@code <queue base>:cpu:reader}, which
 * publishes its figure in {@code <queue base>:cpu}; the others read that. NaN while nobody has published one (no
 * reader for three seconds): the rate then holds. Redis's errors are thrown, which the follower takes as a reading
 * that failed.
 */
public final class CpuUtilisation implements DoubleSupplier {
    private static final long LEASE_MILLIS = 3_000;
    private static final Pattern USED = Pattern.compile("(?m)^used_cpu_(?:sys|user):([0-9.]+)");

    private final RedisEngine engine;
    private final byte[] readerKey;
    private final byte[] valueKey;
    private final byte[] me = UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII);
    private double lastCpu = Double.NaN;
    private long lastNanos;

    /**
     * The utilisation of the Redis of {@code queue}.
     *
     * @throws IllegalArgumentException if {@code queue} is not a queue of a Redis engine
     */
    public static DoubleSupplier of(dev.sluice.queue.JobQueue<?> queue) {
        if (queue instanceof RedisJobQueue<?> redis) {
            return new CpuUtilisation(redis);
        }
        throw new IllegalArgumentException("not a queue of an engine built by RedisSluice: " + queue);
    }

    private CpuUtilisation(RedisJobQueue<?> queue) {
        this.engine = queue.engine;
        String base = new String(queue.key, StandardCharsets.UTF_8);
        this.readerKey = (base + ":cpu:reader").getBytes(StandardCharsets.UTF_8);
        this.valueKey = (base + ":cpu").getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public synchronized double getAsDouble() {
        Connection c = engine.connection;
        if (c == null) {
            throw new IllegalStateException("the engine is not connected to Redis");
        }
        boolean reader = "OK"
                .equals(engine.await(
                        c.keys.set(readerKey, me, SetArgs.Builder.nx().px(LEASE_MILLIS))));
        if (!reader && Arrays.equals(engine.await(c.keys.get(readerKey)), me)) {
            engine.await(c.keys.pexpire(readerKey, LEASE_MILLIS));
            reader = true;
        }
        if (!reader) {
            lastCpu = Double.NaN; // when this process reads again, it starts afresh
            byte[] published = engine.await(c.keys.get(valueKey));
            return published == null ? Double.NaN : Double.parseDouble(new String(published, StandardCharsets.UTF_8));
        }
        double cpu = usedSeconds(engine.await(c.server.info("cpu")));
        long now = System.nanoTime();
        double value = Double.isNaN(lastCpu) ? Double.NaN : Math.max(0, cpu - lastCpu) / ((now - lastNanos) / 1e9);
        lastCpu = cpu;
        lastNanos = now;
        if (Double.isNaN(value)) {
            byte[] published = engine.await(c.keys.get(valueKey));
            return published == null ? 0 : Double.parseDouble(new String(published, StandardCharsets.UTF_8));
        }
        engine.await(c.keys.set(
                valueKey, Double.toString(value).getBytes(StandardCharsets.UTF_8), SetArgs.Builder.px(LEASE_MILLIS)));
        return value;
    }

    /** {@code used_cpu_sys + used_cpu_user} of an {@code INFO CPU} reply. */
    static double usedSeconds(String info) {
        Matcher used = USED.matcher(info);
        double seconds = 0;
        int found = 0;
        while (used.find()) {
            seconds += Double.parseDouble(used.group(1));
            found++;
        }
        if (found != 2) {
            throw new IllegalStateException("INFO CPU did not give used_cpu_sys and used_cpu_user");
        }
        return seconds;
    }

    @Override
    public String toString() {
        return "CpuUtilisation[" + new String(valueKey, StandardCharsets.UTF_8) + "]";
    }
}
