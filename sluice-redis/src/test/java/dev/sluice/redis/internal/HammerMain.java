package dev.sluice.redis.internal;

import dev.sluice.limit.Decision;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.LimitPolicy;
import dev.sluice.testkit.ContractSupport;
import dev.sluice.time.SluiceClock;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A child process of {@link ManyProcessesTest}: one engine on the given Redis, one limiter per {@link
 * HammerPolicy} asked for, and several threads per limiter calling {@link RedisLimiter#acquireTimed} on one
 * key as fast as they can. Writes every grant's time to a file for the parent to check.
 *
 * <p>Arguments: {@code redisUri keyPrefix clockOffsetMillis scriptClock runMillis threadsPerPolicy outFile
 * POLICY[,POLICY...]}. The engine's clock is the system clock shifted by {@code clockOffsetMillis}; with {@code
 * scriptClock true} the scripts take their time from that skewed clock instead of Redis TIME (the control), and
 * times are logged from the unskewed system clock, since the server time is then the skewed one.
 *
 * <p>Protocol: prints {@code ready} once connected and the script is loaded, waits for a line {@code go} on
 * stdin, hammers for {@code runMillis}, printing {@code limited} the first time a thread is denied after it was
 * granted something (it has taken what the limit had), writes {@code outFile}, prints {@code done} and exits 0.
 * Any failure exits non-zero with its stack trace on stderr.
 *
 * <p>{@code outFile} lines: {@code POLICY G time} per grant; {@code POLICY L acquired heldAt} per lease (held at
 * least from {@code acquired} to {@code heldAt}: {@code heldAt} is the server time of a call made after holding,
 * just before releasing); one {@code POLICY S attempts degraded releaseFailures firstAttempt lastAttempt} per
 * policy. Times are epoch nanoseconds.
 */
public final class HammerMain {
    private HammerMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 8) {
            System.err.println("usage: HammerMain redisUri keyPrefix clockOffsetMillis scriptClock runMillis"
                    + " threadsPerPolicy outFile POLICY[,POLICY...]; had " + Arrays.toString(args));
            System.exit(2);
        }
        String uri = args[0];
        String prefix = args[1];
        SluiceClock skewed = new SkewedClock(
                SluiceClock.system(), Duration.ofMillis(Long.parseLong(args[2])).toNanos());
        boolean scriptClock = Boolean.parseBoolean(args[3]);
        long runNanos = Duration.ofMillis(Long.parseLong(args[4])).toNanos();
        int threadsPerPolicy = Integer.parseInt(args[5]);
        Path out = Path.of(args[6]);
        List<HammerPolicy> policies =
                Arrays.stream(args[7].split(",")).map(HammerPolicy::valueOf).toList();

        RedisEngine engine = RedisEngine.connect(new RedisSettings(
                uri,
                null,
                null,
                null,
                prefix,
                Duration.ofSeconds(10),
                Duration.ofSeconds(1),
                skewed,
                scriptClock ? skewed : null,
                true,
                0,
                null,
                10_000,
                false));
        try {
            // a limiter whose only use is telling the time: it never runs out
            RedisRateLimiter clock = (RedisRateLimiter)
                    engine.limiter("clock", FixedWindow.of(LimitPolicy.MAX_PERMITS, Duration.ofSeconds(1)));
            Decision warm = clock.acquireTimed("warm-" + ProcessHandle.current().pid(), 1)
                    .decision();
            if (warm.degraded()) {
                throw new IllegalStateException("Redis at " + uri + " is unavailable: " + warm);
            }

            AtomicBoolean told = new AtomicBoolean();
            Runnable limited = () -> {
                if (told.compareAndSet(false, true)) {
                    System.out.println("limited");
                    System.out.flush();
                }
            };
            List<Hammer> hammers = new ArrayList<>();
            for (HammerPolicy policy : policies) {
                RedisLimiter<?> limiter =
                        (RedisLimiter<?>) ContractSupport.limiterOf(engine, policy.name(), policy.policy);
                for (int i = 0; i < threadsPerPolicy; i++) {
                    hammers.add(new Hammer(policy, limiter, clock, scriptClock, limited));
                }
            }

            System.out.println("ready");
            System.out.flush();
            String go = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            if (!"go".equals(go)) {
                throw new IllegalStateException("expected 'go' on stdin, had " + go);
            }

            long end = System.nanoTime() + runNanos;
            List<Thread> threads = new ArrayList<>();
            for (Hammer hammer : hammers) {
                threads.add(Thread.ofPlatform().name("hammer-" + hammer.policy).start(() -> hammer.run(end)));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            for (Hammer hammer : hammers) {
                if (hammer.failure != null) {
                    throw new IllegalStateException("a thread hammering " + hammer.policy + " failed", hammer.failure);
                }
            }
            write(out, policies, hammers);
        } finally {
            engine.close();
        }
        System.out.println("done");
        System.out.flush();
        System.exit(0);
    }

    private static void write(Path out, List<HammerPolicy> policies, List<Hammer> hammers) throws IOException {
        try (Writer file = Files.newBufferedWriter(out);
                PrintWriter lines = new PrintWriter(file)) {
            for (HammerPolicy policy : policies) {
                long attempts = 0;
                long degraded = 0;
                long releaseFailures = 0;
                long first = Long.MAX_VALUE;
                long last = Long.MIN_VALUE;
                for (Hammer hammer : hammers) {
                    if (hammer.policy != policy) {
                        continue;
                    }
                    attempts += hammer.attempts;
                    degraded += hammer.degraded;
                    releaseFailures += hammer.releaseFailures;
                    first = Math.min(first, hammer.firstAttempt);
                    last = Math.max(last, hammer.lastAttempt);
                    for (int i = 0; i < hammer.grants.size(); i++) {
                        lines.println(policy + " G " + hammer.grants.get(i));
                    }
                    for (int i = 0; i < hammer.leases.size(); i++) {
                        long[] lease = hammer.leases.get(i);
                        lines.println(policy + " L " + lease[0] + " " + lease[1]);
                    }
                }
                lines.println(
                        policy + " S " + attempts + " " + degraded + " " + releaseFailures + " " + first + " " + last);
            }
            if (lines.checkError()) {
                throw new IOException("could not write " + out);
            }
        }
    }

    /** One thread's work on one limiter, and what it saw. */
    private static final class Hammer {
        final HammerPolicy policy;
        final RedisLimiter<?> limiter;
        final RedisRateLimiter clock;
        final boolean logLocalTime;
        final Runnable limited;
        final List<Long> grants = new ArrayList<>();
        final List<long[]> leases = new ArrayList<>();
        long attempts;
        long degraded;
        long releaseFailures;
        long firstAttempt = Long.MAX_VALUE;
        long lastAttempt = Long.MIN_VALUE;
        volatile Throwable failure;

        Hammer(
                HammerPolicy policy,
                RedisLimiter<?> limiter,
                RedisRateLimiter clock,
                boolean logLocalTime,
                Runnable limited) {
            this.policy = policy;
            this.limiter = limiter;
            this.clock = clock;
            this.logLocalTime = logLocalTime;
            this.limited = limited;
        }

        void run(long endTicks) {
            try {
                String clockKey = "clock-" + ProcessHandle.current().pid() + "-"
                        + Thread.currentThread().threadId();
                while (System.nanoTime() < endTicks) {
                    RedisLimiter.Outcome outcome = limiter.acquireTimed("hammered", 1);
                    long at = logLocalTime ? SluiceClock.system().nanos() : outcome.serverNanos();
                    attempts++;
                    firstAttempt = Math.min(firstAttempt, at);
                    lastAttempt = Math.max(lastAttempt, at);
                    Decision decision = outcome.decision();
                    if (decision.degraded()) {
                        degraded++;
                        continue;
                    }
                    if (!decision.allowed()) {
                        if (!grants.isEmpty() || !leases.isEmpty()) {
                            limited.run();
                        }
                        continue;
                    }
                    if (policy != HammerPolicy.CONCURRENCY) {
                        grants.add(at);
                        continue;
                    }
                    Thread.sleep(HammerPolicy.HOLD); // holding the lease is the work being limited
                    RedisLimiter.Outcome before = clock.acquireTimed(clockKey, 1);
                    long heldAt = logLocalTime ? SluiceClock.system().nanos() : before.serverNanos();
                    if (before.decision().degraded() || !decision.release()) {
                        releaseFailures++;
                    }
                    leases.add(new long[] {at, heldAt});
                }
            } catch (Throwable e) {
                failure = e;
            }
        }
    }

    /** The system clock shifted by a fixed offset: a host whose clock is wrong. */
    private record SkewedClock(SluiceClock system, long offsetNanos) implements SluiceClock {
        @Override
        public long nanos() {
            return system.nanos() + offsetNanos;
        }

        @Override
        public void sleep(long nanos) throws InterruptedException {
            system.sleep(nanos);
        }

        @Override
        public Timer schedule(long delayNanos, Runnable task) {
            return system.schedule(delayNanos, task);
        }
    }
}
