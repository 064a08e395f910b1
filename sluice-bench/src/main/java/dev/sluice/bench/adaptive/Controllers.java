package dev.sluice.bench.adaptive;

import dev.sluice.internal.adaptive.ControlSettings;
import dev.sluice.internal.adaptive.ControlState;
import dev.sluice.internal.adaptive.RateControl;
import dev.sluice.internal.adaptive.Signal;

/**
 * The controllers the simulation compares, each written from its documented behaviour (none of their code): a static
 * rate, an oracle that knows the capacity, BullMQ's pause-then-full-rate, the first seed's controller as written and
 * with its CPU reading corrected, Netflix concurrency-limits' AIMD and Gradient2 (from their documented formulas:
 * the library is not on Maven Central here), the AWS SDK's adaptive retry mode (a CUBIC token bucket), and Sluice's
 * {@link RateControl}.
 */
final class Controllers {
    static final long SECOND = Downstream.SECOND;

    private Controllers() {}

    /** A rate that never changes. */
    record Static(String name, double rate) implements Controller {
        @Override
        public Mode mode() {
            return Mode.RATE;
        }

        @Override
        public double limit(long now) {
            return rate;
        }
    }

    /** The capacity itself, known at every instant. */
    record Oracle(Profile capacity) implements Controller {
        @Override
        public String name() {
            return "oracle";
        }

        @Override
        public Mode mode() {
            return Mode.RATE;
        }

        @Override
        public double limit(long now) {
            return capacity.at(now);
        }
    }

    /** What most controllers here have in common: a name, how their limit applies, and a count of their cuts. */
    abstract static class Named implements Controller {
        private final String name;
        private final Mode mode;
        long cuts;

        Named(String name, Mode mode) {
            this.name = name;
            this.mode = mode;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Mode mode() {
            return mode;
        }

        @Override
        public long cuts() {
            return cuts;
        }
    }

    /** BullMQ: a fixed rate; a 429 pauses the queue for its Retry-After (1 s if none), then the full rate again. */
    static final class BullmqPause extends Named {
        private final double rate;
        private long pausedUntil;

        BullmqPause(double rate) {
            super("bullmq-pause", Mode.RATE);
            this.rate = rate;
        }

        @Override
        public double limit(long now) {
            return rate;
        }

        @Override
        public long pausedUntil() {
            return pausedUntil;
        }

        @Override
        public void refused(long sentAt, long retryAfter, int inFlight, long now) {
            long until = now + (retryAfter > 0 ? retryAfter : SECOND);
            if (until > pausedUntil) {
                if (now >= pausedUntil) {
                    cuts++;
                }
                pausedUntil = until;
            }
        }
    }

    /**
     * The first seed's controller: every 5 s (after a 5 s cooldown since its last change), a pressure score from
     * Redis's CPU and the downstream's p99 (threshold 50 ms); over 1 it cuts by up to 75%, under 0.7 it grows by
     * up to 20%. As written it reads Redis's cumulative CPU seconds as a ratio; corrected, their change over the
     * wall time. Redis is simulated at 50 µs of CPU per job on a server up for an hour at 2%. It hears no 429.
     */
    static final class Seed extends Named {
        private static final long POLL = 5 * SECOND;
        private final boolean corrected;
        private final double min;
        private final double max;
        private double current;
        private long lastPoll;
        private long lastAdjustment = Long.MIN_VALUE / 2;
        private double cpuSeconds = 3600 * 0.02;
        private double cpuAtPoll = cpuSeconds;
        private final LatencyWindow window = new LatencyWindow();

        Seed(boolean corrected, double min, double max) {
            super(corrected ? "seed-cpu-corrected" : "seed-as-written", Mode.RATE);
            this.corrected = corrected;
            this.min = min;
            this.max = max;
            this.current = max;
        }

        @Override
        public double limit(long now) {
            return current;
        }

        @Override
        public void served(long sentAt, long latency, int inFlight, long now) {
            cpuSeconds += 50e-6;
            window.add(latency);
        }

        @Override
        public void refused(long sentAt, long retryAfter, int inFlight, long now) {
            cpuSeconds += 50e-6;
        }

        @Override
        public void tick(int started, int succeeded, int refused, double utilisation, long now) {
            if (now - lastPoll < POLL) {
                return;
            }
            double cpu = corrected ? (cpuSeconds - cpuAtPoll) / ((double) (now - lastPoll) / SECOND) : cpuSeconds;
            cpuAtPoll = cpuSeconds;
            lastPoll = now;
            double p99Ms = window.p99() / 1e6;
            window.clear();
            if (now - lastAdjustment < POLL) {
                return;
            }
            double pressure = Math.max(cpu / 0.8, p99Ms / 50);
            double next = current;
            if (pressure > 1.0) {
                next = Math.max(min, Math.round(current * (1 - Math.min(0.75, (pressure - 1.0) * 0.5))));
            } else if (pressure <= 0.7) {
                next = Math.min(max, Math.round(current * (1 + (1 - pressure) * 0.2)));
            }
            if (next != current) {
                if (next < current) {
                    cuts++;
                }
                current = next;
                lastAdjustment = now;
            }
        }
    }

    /** Netflix AIMD: a concurrency limit cut to 90% at each drop, grown by 1 per success while half used. */
    static final class Aimd extends Named {
        private double limit;

        Aimd() {
            this(20);
        }

        /** Starting at a concurrency of {@code start}. */
        Aimd(double start) {
            super("netflix-aimd", Mode.CONCURRENCY);
            this.limit = start;
        }

        @Override
        public double limit(long now) {
            return limit;
        }

        @Override
        public void served(long sentAt, long latency, int inFlight, long now) {
            if (inFlight * 2 >= limit) {
                limit = Math.min(200, limit + 1);
            }
        }

        @Override
        public void refused(long sentAt, long retryAfter, int inFlight, long now) {
            limit = Math.max(1, limit * 0.9);
            cuts++;
        }
    }

    /**
     * Netflix Gradient2: a concurrency limit moved by the gradient of a long-run average latency (600 samples)
     * over the latest, with tolerance 1.5, smoothing 0.2 and a queue allowance of 4; drops are not its signal.
     */
    static final class Gradient2 extends Named {
        private double limit;
        private double longRtt;
        private long samples;

        Gradient2() {
            this(20);
        }

        /** Starting at a concurrency of {@code start}. */
        Gradient2(double start) {
            super("netflix-gradient2", Mode.CONCURRENCY);
            this.limit = start;
        }

        @Override
        public double limit(long now) {
            return limit;
        }

        @Override
        public void served(long sentAt, long latency, int inFlight, long now) {
            double shortRtt = latency;
            samples++;
            double weight = 2.0 / (Math.min(samples, 600) + 1);
            longRtt = samples == 1 ? shortRtt : longRtt * (1 - weight) + shortRtt * weight;
            if (longRtt / shortRtt > 2) {
                longRtt *= 0.95;
            }
            if (inFlight < limit / 2) {
                return;
            }
            double gradient = Math.max(0.5, Math.min(1.0, 1.5 * longRtt / shortRtt));
            double next = limit * gradient + 4;
            next = limit * 0.8 + next * 0.2;
            next = Math.max(1, Math.min(200, next));
            if (next < limit) {
                cuts++;
            }
            limit = next;
        }
    }

    /**
     * The AWS SDK's adaptive retry mode: no limit until the first throttle; then a token bucket whose fill rate
     * follows CUBIC (beta 0.7, C 0.4) from the measured send rate, at most twice that rate.
     */
    static final class AwsCubic extends Named {
        private static final double BETA = 0.7;
        private static final double C = 0.4;
        private final double ceiling;
        private boolean enabled;
        private double fillRate;
        private double lastMaxRate;
        private long lastThrottle;
        private double measured;
        private long bucketStart;
        private int sentInBucket;

        AwsCubic(double ceiling) {
            super("aws-cubic", Mode.RATE);
            this.ceiling = ceiling;
        }

        @Override
        public double limit(long now) {
            return enabled ? Math.min(ceiling, fillRate) : ceiling;
        }

        private void measure(long now) {
            sentInBucket++;
            if (now - bucketStart >= SECOND / 2) {
                double rate = sentInBucket / ((double) (now - bucketStart) / SECOND);
                measured = measured == 0 ? rate : rate * 0.8 + measured * 0.2;
                sentInBucket = 0;
                bucketStart = now;
            }
        }

        @Override
        public void served(long sentAt, long latency, int inFlight, long now) {
            measure(now);
            if (!enabled) {
                return;
            }
            double t = (double) (now - lastThrottle) / SECOND;
            double k = Math.cbrt(lastMaxRate * (1 - BETA) / C);
            double calculated = C * Math.pow(t - k, 3) + lastMaxRate;
            fillRate = Math.max(0.5, Math.min(calculated, 2 * measured));
        }

        @Override
        public void refused(long sentAt, long retryAfter, int inFlight, long now) {
            measure(now);
            double rateToUse = enabled ? Math.min(measured, fillRate) : measured;
            lastMaxRate = rateToUse;
            lastThrottle = now;
            fillRate = Math.max(0.5, rateToUse * BETA);
            enabled = true;
            cuts++;
        }
    }

    /**
     * Sluice's controller: {@link RateControl} hearing 429s, processing times and ticks; a refused job waits its
     * Retry-After (with jitter). With {@code pauses}, a 429 that cuts also pauses the queue for its Retry-After. While
     * the application's gauge is stale its reports name it (the rate holds); a reading of it when it is heard again
     * lets the rate move.
     */
    static final class Sluice extends Named {
        private static final String GAUGE = "gauge";
        private final ControlSettings settings;
        private final boolean pauses;
        private ControlState state;
        private long pausedUntil;
        private String stale;

        Sluice(String name, ControlSettings settings, boolean pauses) {
            super(name, Mode.RATE);
            this.settings = settings;
            this.pauses = pauses;
            this.state = RateControl.start(settings, 0);
        }

        @Override
        public double limit(long now) {
            return state.rate();
        }

        @Override
        public long pausedUntil() {
            return pausedUntil;
        }

        @Override
        public void served(long sentAt, long latency, int inFlight, long now) {
            state = RateControl.next(settings, state, new Signal.Latency(latency), now)
                    .state();
        }

        @Override
        public void refused(long sentAt, long retryAfter, int inFlight, long now) {
            Signal.Loss loss = new Signal.Loss(Signal.Loss.Kind.RATE_LIMITED, sentAt, retryAfter);
            RateControl.Step step = RateControl.next(settings, state, loss, now);
            if (pauses && step.change() != null && retryAfter > 0) {
                pausedUntil = Math.max(pausedUntil, now + retryAfter);
            }
            state = step.state();
        }

        @Override
        public void tick(int started, int succeeded, int refused, double utilisation, long now) {
            state = RateControl.next(settings, state, new Signal.Report(started, succeeded, refused, stale), now)
                    .state();
        }

        @Override
        public void gaugeStale(boolean stale, long now) {
            this.stale = stale ? GAUGE : null;
            if (!stale) {
                state = RateControl.next(settings, state, new Signal.Gauge(GAUGE, 0, 1), now)
                        .state();
            }
        }

        @Override
        public long cuts() {
            return state.cuts();
        }

        @Override
        public boolean honoursRetryAfter() {
            return true;
        }
    }
}
