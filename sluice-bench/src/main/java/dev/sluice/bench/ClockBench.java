package dev.sluice.bench;

import dev.sluice.time.SluiceClock;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;

/**
 * Control for {@link LocalLimiterBench}: how fast this machine reads the clocks the limiters read on every
 * call (Sluice and Guava: {@code System.nanoTime()}; Bucket4j by default: {@code System.currentTimeMillis()}).
 * No limiter that reads a clock per decision can be faster than this on one thread.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(1)
public class ClockBench {
    private static final SluiceClock SYSTEM = SluiceClock.system();

    /** What every in-memory limiter decision reads: {@code SluiceClock.system().nanos()}. */
    @Benchmark
    public long sluiceSystemClock() {
        return SYSTEM.nanos();
    }

    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }

    @Benchmark
    public long currentTimeMillis() {
        return System.currentTimeMillis();
    }
}
