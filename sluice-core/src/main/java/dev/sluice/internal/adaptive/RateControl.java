package dev.sluice.internal.adaptive;

/**
 * The rule of an adaptive rate: the next {@link ControlState} as a function of the settings, the state, a {@link
 * Signal} and {@code now}. Every engine applies it (the Redis engine in its scripts, held to it by a differential
 * test), so that processes sharing a rate move one number.
 *
 * <ul>
 *   <li>A loss cuts the rate once per congestion episode: to {@code cut} times the rate, or, where the downstream
 *       delivered of late even less (a sudden drop), to what it delivered; never below the floor. The climb returns
 *       to the rate cut from, or after a drop to what was delivered.
 *       Losses within the episode's time, or of attempts that started before the cut, change nothing (a burst of
 *       429s answering requests sent at the old rate is one signal, not many). A retry-after is the queue's to
 *       honour (the job, or the scope it names, waits): it does not move the rate.
 *   <li>After the episode the rate climbs as CUBIC's window does, over utilised time only: quickly back toward the
 *       rate it was cut from (reached after {@code climb}), then flat near it, then probing beyond, slowly at first,
 *       doubling every two thirds of a climb time once two climb times passed without a loss.
 *       A tick whose utilisation is under {@code appLimited} adds no time: demand below the rate teaches nothing.
 *   <li>Processing time above {@code latencyTolerance} times its long-run average, or a gauge above its threshold,
 *       lowers the rate in proportion (at most as far as a cut), once per episode.
 *   <li>A quota that allows less than the rate sets the rate to it, and the rate does not grow until the quota's
 *       window resets.
 *   <li>A stale signal holds the rate: no growth until it is heard again (losses still cut).
 * </ul>
 */
public final class RateControl {
    /** {@link ControlState#cutAt} before any cut. */
    public static final long NO_CUT = Long.MIN_VALUE;

    /** Processing times heard before they are judged against their long-run average. */
    public static final int LATENCY_WARM_UP = 20;

    /** A climb is told each time the rate rose by this factor since the last change told. */
    static final double TOLD_STEP = 1.1;

    private static final double SHORT_WEIGHT = 0.2;
    private static final double LONG_WEIGHT = 0.01;
    private static final double DELIVERED_WEIGHT = 0.3;

    private RateControl() {}

    /** The state followed by a signal, and the change it made (null if the rate did not change in a way told). */
    public record Step(ControlState state, RateChange change) {}

    /** The state of a rate that starts at {@code now}: at the settings' start, ready to probe beyond it. */
    public static ControlState start(ControlSettings settings, long now) {
        double start = settings.start();
        return new ControlState(
                start,
                start,
                start * settings.cut(),
                NO_CUT,
                now,
                now,
                settings.climbNanos(),
                now,
                0,
                0,
                0,
                0,
                start,
                null,
                0);
    }

    /** The state after {@code signal} at {@code now}. */
    public static Step next(ControlSettings settings, ControlState state, Signal signal, long now) {
        return switch (signal) {
            case Signal.Loss loss -> loss(settings, state, loss, now);
            case Signal.Tick tick -> tick(settings, state, tick, now);
            case Signal.Latency latency -> latency(settings, state, latency, now);
            case Signal.Gauge gauge -> gauge(settings, state, gauge, now);
            case Signal.Quota quota -> quota(settings, state, quota, now);
        };
    }

    /**
     * The rate the climb reaches after {@code grown} nanoseconds of utilised time past a cut: CUBIC's curve through
     * the cut's base, the last good rate (after one climb time) and as far above it again (after two); from there,
     * with no loss for so long, the capacity is plainly higher, and the rate doubles every two thirds of a climb time.
     */
    static double climbed(ControlSettings settings, ControlState state, long grown) {
        double k = settings.climbNanos();
        double x = (grown - k) / k;
        double rise = state.lastGood() - state.cutTo();
        if (x <= 1) {
            return state.lastGood() + rise * x * x * x;
        }
        return (state.lastGood() + rise) * Math.pow(2, 1.5 * (x - 1));
    }

    private static boolean inEpisode(ControlState state, long now) {
        return now < state.episodeEnds();
    }

    private static Step loss(ControlSettings settings, ControlState state, Signal.Loss loss, long now) {
        if (inEpisode(state, now) || loss.sentAt() < state.cutAt()) {
            return new Step(state, null);
        }
        String signal = loss.kind() == Signal.Loss.Kind.RATE_LIMITED ? "rate-limited" : "overloaded";
        // a downstream that delivered less than a cut would leave (a sudden drop): straight to what it delivered,
        // and the climb returns there; else a cut as CUBIC's, back to the rate cut from
        double from = state.rate();
        boolean drop = state.delivered() > 0 && state.delivered() < from * settings.cut();
        return cut(
                settings,
                state,
                drop ? state.delivered() / from : settings.cut(),
                drop ? state.delivered() : from,
                saturatedAdd(now, settings.episodeNanos()),
                now,
                RateChange.Reason.CUT,
                signal,
                loss.retryAfterNanos() / 1e9);
    }

    /**
     * Cuts the rate by {@code factor}: a new episode ending at {@code episodeEnds}, the climb from the new rate back
     * to {@code good}.
     */
    private static Step cut(
            ControlSettings settings,
            ControlState state,
            double factor,
            double good,
            long episodeEnds,
            long now,
            RateChange.Reason reason,
            String signal,
            double value) {
        double from = state.rate();
        double to = settings.clamp(from * factor);
        // the climb has the shape of a full cut's, wherever the floor or a gentler factor left the rate: it grows
        // from the rate once it passes it
        ControlState next = Draft.of(state)
                .rate(to)
                .lastGood(good)
                .cutTo(good * settings.cut())
                .cutAt(now)
                .episodeEnds(episodeEnds)
                .grown(0)
                .lastTick(now)
                .told(to)
                .cuts(state.cuts() + 1)
                .done();
        return new Step(next, new RateChange(reason, signal, value, from, to, now));
    }

    private static Step tick(ControlSettings settings, ControlState state, Signal.Tick tick, long now) {
        double delivered = state.delivered();
        if (now > state.lastTick()) {
            double lately = tick.succeeded() * 1e9 / (now - state.lastTick());
            // most attempts refused: the downstream's capacity is what it delivered, not what it used to
            boolean mostRefused = tick.refused() > tick.succeeded();
            delivered = delivered == 0 || mostRefused
                    ? lately
                    : delivered * (1 - DELIVERED_WEIGHT) + lately * DELIVERED_WEIGHT;
        }
        if (tick.stale() != null) {
            ControlState held = Draft.of(state)
                    .lastTick(now)
                    .delivered(delivered)
                    .held(tick.stale())
                    .done();
            RateChange change = state.held() == null
                    ? new RateChange(RateChange.Reason.HELD, tick.stale(), 0, state.rate(), state.rate(), now)
                    : null;
            return new Step(held, change);
        }
        long from = Math.max(state.lastTick(), Math.max(state.episodeEnds(), state.quietUntil()));
        long grown = state.grown();
        if (now > from && tick.utilisation() >= settings.appLimited()) {
            grown = saturatedAdd(grown, now - from);
        }
        double rate = settings.clamp(Math.max(state.rate(), climbed(settings, state, grown)));
        Draft next = Draft.of(state)
                .grown(grown)
                .lastTick(now)
                .delivered(delivered)
                .rate(rate)
                .held(null);
        if (state.held() != null) {
            next.told(rate);
            return new Step(
                    next.done(), new RateChange(RateChange.Reason.RESUMED, state.held(), 0, state.told(), rate, now));
        }
        boolean step = rate >= state.told() * TOLD_STEP
                || rate > state.told()
                        && (rate >= state.lastGood() && state.told() < state.lastGood() || rate >= settings.ceiling());
        if (!step) {
            return new Step(next.done(), null);
        }
        next.told(rate);
        return new Step(
                next.done(),
                new RateChange(RateChange.Reason.CLIMB, "climb", state.lastGood(), state.told(), rate, now));
    }

    private static Step latency(ControlSettings settings, ControlState state, Signal.Latency latency, long now) {
        double sample = latency.nanos();
        boolean first = state.latencies() == 0;
        double shortRun = first ? sample : state.shortLatency() * (1 - SHORT_WEIGHT) + sample * SHORT_WEIGHT;
        double longRun = first ? sample : state.longLatency() * (1 - LONG_WEIGHT) + sample * LONG_WEIGHT;
        if (shortRun < longRun) {
            // the long run drifts down with the short run, so that it does not keep a slow past
            longRun = longRun * (1 - SHORT_WEIGHT) + shortRun * SHORT_WEIGHT;
        }
        int heard = Math.min(LATENCY_WARM_UP, state.latencies() + 1);
        ControlState measured = Draft.of(state)
                .shortLatency(shortRun)
                .longLatency(longRun)
                .latencies(heard)
                .done();
        double allowed = longRun * settings.latencyTolerance();
        if (heard < LATENCY_WARM_UP || shortRun <= allowed || inEpisode(state, now)) {
            return new Step(measured, null);
        }
        return cut(
                settings,
                measured,
                Math.max(settings.cut(), allowed / shortRun),
                measured.rate(),
                saturatedAdd(now, settings.episodeNanos()),
                now,
                RateChange.Reason.GRADIENT,
                "latency",
                shortRun / 1e6);
    }

    private static Step gauge(ControlSettings settings, ControlState state, Signal.Gauge gauge, long now) {
        if (gauge.value() <= gauge.threshold() || inEpisode(state, now)) {
            return new Step(state, null);
        }
        return cut(
                settings,
                state,
                Math.max(settings.cut(), gauge.threshold() / gauge.value()),
                state.rate(),
                saturatedAdd(now, settings.episodeNanos()),
                now,
                RateChange.Reason.GRADIENT,
                gauge.name(),
                gauge.value());
    }

    private static Step quota(ControlSettings settings, ControlState state, Signal.Quota quota, long now) {
        double allows = quota.remaining() / (quota.resetNanos() / 1e9);
        long resets = saturatedAdd(now, quota.resetNanos());
        if (allows >= state.rate()) {
            return new Step(state, null);
        }
        double to = settings.clamp(allows);
        ControlState next = Draft.of(state)
                .rate(to)
                .lastGood(to)
                .cutTo(to * settings.cut())
                .grown(settings.climbNanos())
                .quietUntil(Math.max(state.quietUntil(), resets))
                .lastTick(now)
                .told(to)
                .done();
        return new Step(next, new RateChange(RateChange.Reason.QUOTA, "quota", allows, state.rate(), to, now));
    }

    /** {@code a + b} for a duration {@code b} of 0 or more, or the end of time if that overflows. */
    private static long saturatedAdd(long a, long b) {
        return b > Long.MAX_VALUE - a ? Long.MAX_VALUE : a + b;
    }

    /** A state being changed: a copy of one, with some values replaced. */
    private static final class Draft {
        private double rate;
        private double lastGood;
        private double cutTo;
        private long cutAt;
        private long episodeEnds;
        private long quietUntil;
        private long grown;
        private long lastTick;
        private double delivered;
        private double shortLatency;
        private double longLatency;
        private int latencies;
        private double told;
        private String held;
        private long cuts;

        static Draft of(ControlState s) {
            Draft d = new Draft();
            d.rate = s.rate();
            d.lastGood = s.lastGood();
            d.cutTo = s.cutTo();
            d.cutAt = s.cutAt();
            d.episodeEnds = s.episodeEnds();
            d.quietUntil = s.quietUntil();
            d.grown = s.grown();
            d.lastTick = s.lastTick();
            d.delivered = s.delivered();
            d.shortLatency = s.shortLatency();
            d.longLatency = s.longLatency();
            d.latencies = s.latencies();
            d.told = s.told();
            d.held = s.held();
            d.cuts = s.cuts();
            return d;
        }

        Draft rate(double v) {
            rate = v;
            return this;
        }

        Draft lastGood(double v) {
            lastGood = v;
            return this;
        }

        Draft cutTo(double v) {
            cutTo = v;
            return this;
        }

        Draft cutAt(long v) {
            cutAt = v;
            return this;
        }

        Draft episodeEnds(long v) {
            episodeEnds = v;
            return this;
        }

        Draft quietUntil(long v) {
            quietUntil = v;
            return this;
        }

        Draft grown(long v) {
            grown = v;
            return this;
        }

        Draft lastTick(long v) {
            lastTick = v;
            return this;
        }

        Draft delivered(double v) {
            delivered = v;
            return this;
        }

        Draft shortLatency(double v) {
            shortLatency = v;
            return this;
        }

        Draft longLatency(double v) {
            longLatency = v;
            return this;
        }

        Draft latencies(int v) {
            latencies = v;
            return this;
        }

        Draft told(double v) {
            told = v;
            return this;
        }

        Draft held(String v) {
            held = v;
            return this;
        }

        Draft cuts(long v) {
            cuts = v;
            return this;
        }

        ControlState done() {
            return new ControlState(
                    rate,
                    lastGood,
                    cutTo,
                    cutAt,
                    episodeEnds,
                    quietUntil,
                    grown,
                    lastTick,
                    delivered,
                    shortLatency,
                    longLatency,
                    latencies,
                    told,
                    held,
                    cuts);
        }
    }
}
