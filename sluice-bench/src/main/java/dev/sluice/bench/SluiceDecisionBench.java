package dev.sluice.bench;

import dev.sluice.Sluice;
import dev.sluice.limit.RateLimiter;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Sluice only: the one-key workload of {@link LocalLimiterBench} through {@code tryAcquire}, with the whole
 * {@code Decision} sunk into a Blackhole, so it escapes and must be allocated: the price of the full answer,
 * against {@code tryConsume}'s yes or no in {@code LocalLimiterBench}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class SluiceDecisionBench {
    @Param({"open", "throttled"})
    public String regime;

    Sluice engine;
    RateLimiter limiter;
    String key;

    @Setup(Level.Trial)
    public void setUp() {
        engine = Sluice.inMemory();
        limiter = Contender.sluice(engine, Regime.valueOf(regime));
        key = Keys.ONE_KEY;
        limiter.tryAcquire(key, 1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        engine.close();
    }

    @Benchmark
    @Threads(1)
    public void oneKey_1thread(Blackhole blackhole) {
        blackhole.consume(limiter.tryAcquire(key, 1));
    }

    @Benchmark
    @Threads(2)
    public void oneKey_2threads(Blackhole blackhole) {
        blackhole.consume(limiter.tryAcquire(key, 1));
    }
}
