package dev.sluice.bench;

import java.util.Map;

/**
 * The CPU time both sides of a Redis benchmark spend over one measured phase: the Redis server's ({@code INFO cpu}
 * {@code used_cpu_sys + used_cpu_user}, every thread of the server) and this JVM's ({@link QueueMeter}: every
 * thread of the process, the workers', Lettuce's, the JIT's and the collector's). Redis is read before the JVM's
 * meter starts and after it stops, so that the benchmark's own {@code INFO} round trips fall outside the JVM's
 * figure.
 */
final class PhaseCpu {
    /**
     * CPU time spent over a phase, in microseconds.
     *
     * @param redisMicros the Redis server's
     * @param clientMicros this JVM's (the client of Redis: the benchmark's process)
     */
    record Use(double redisMicros, double clientMicros) {
        /** Both phases together (an untimed add and the timed processing of the same jobs: a job lifecycle). */
        Use plus(Use other) {
            return new Use(redisMicros + other.redisMicros, clientMicros + other.clientMicros);
        }

        /**
         * Puts {@code <name>_redis_cpu_us_per_job} and {@code <name>_client_cpu_us_per_job} into {@code figures}:
         * each side's microseconds over {@code jobs}.
         *
         * @throws IllegalArgumentException if {@code jobs} is below 1
         */
        void putPerJob(Map<String, Double> figures, String name, int jobs) {
            if (jobs < 1) {
                throw new IllegalArgumentException("jobs must be 1 or more, was " + jobs);
            }
            figures.put(name + "_redis_cpu_us_per_job", redisMicros / jobs);
            figures.put(name + "_client_cpu_us_per_job", clientMicros / jobs);
        }
    }

    /**
     * The CPU figures of a job lifecycle, {@code <name>_add_}, {@code <name>_process_} and {@code
     * <name>_lifecycle_} (both) {@code redis_cpu_us_per_job} and {@code client_cpu_us_per_job}.
     */
    static void putLifecycle(Map<String, Double> figures, String name, Use add, Use process, int n) {
        add.putPerJob(figures, name + "_add", n);
        process.putPerJob(figures, name + "_process", n);
        add.plus(process).putPerJob(figures, name + "_lifecycle", n);
    }

    private final RedisBenchAdmin admin;
    private final double redisMicros;
    private final QueueMeter meter;

    private PhaseCpu(RedisBenchAdmin admin) {
        this.admin = admin;
        this.redisMicros = redisMicros(admin);
        this.meter = QueueMeter.start();
    }

    /** Reads Redis's CPU time, then starts this JVM's meter. */
    static PhaseCpu start(RedisBenchAdmin admin) {
        return new PhaseCpu(admin);
    }

    /** Stops this JVM's meter, then reads Redis's CPU time: what each spent since {@link #start}. */
    Use stop() {
        QueueMeter.Timing jvm = meter.stop();
        return new Use(redisMicros(admin) - redisMicros, jvm.cpuNanos() / 1e3);
    }

    /** Redis's CPU time since it started, in microseconds. */
    static double redisMicros(RedisBenchAdmin admin) {
        return admin.cpuSeconds().process() * 1e6;
    }
}
