package dev.sluice.internal.adaptive;

import dev.sluice.queue.RateChange.Reason;

/**
 * The rule of an adaptive rate: the next {@link ControlState} as a function of the settings, the state, a {@link
 * Signal} and {@code now}, for every engine to apply (the Redis engine's copy, adaptive-rule.lua, is held to it by a
 * differential test), so that processes sharing a rate move one number: each process reports what it saw, and the
 * rule judges whole windows of {@link #WINDOW} of every process's reports.
 *
 * <ul>
 *   <li>A loss cuts the rate once per congestion episode: to {@code cut} times the rate, or, where the downstream
 *       delivered of late even less (a sudden drop), to what it delivered but no less than {@link #DEEPEST_CUT} of
 *       the rate; never below the floor. The climb returns to what the downstream delivered of late (the rate cut
 *       from if it delivered more or nothing yet): a rate that overshot the capacity is not the one to come back to.
 *       Losses within the episode's time, or of attempts that started before the cut, change nothing (a burst of
 *       429s answering requests sent at the old rate is one signal, not many). A retry-after is the queue's to
 *       honour (the job, or the scope it names, waits): it does not move the rate.
 *   <li>After the episode the rate climbs as CUBIC's window does, over utilised time only: quickly back toward the
 *       rate it was cut from (reached after {@code climb}), then flat near it, then probing beyond, slowly at first,
 *       doubling every two thirds of a climb time once two climb times passed without a loss; never above twice
 *       what the downstream delivered of late.
 *       A window of reports that started under {@code appLimited} of what the rate allowed adds no time: demand
 *       below the rate teaches nothing.
 *   <li>Processing time above {@code latencyTolerance} times its baseline (the lowest of late: the time without
 *       waiting in the downstream's queues), or a gauge above its threshold, lowers the rate in proportion, once per
 *       episode: at most as far as a cut, or for processing time to what was delivered when that is less (no less
 *       than {@link #DEEPEST_CUT} of the rate); never while the rate is no more than the downstream delivered, as
 *       its queue then drains and a slow answer tells of the past.
 *   <li>A quota that allows less than the rate sets the rate to it, and the rate does not grow until the quota's
 *       window resets.
 *   <li>A stale signal (a report naming it) holds the rate: no growth until that signal is heard again (a gauge of
 *       its name), however many fresh reports come meanwhile; losses still cut.
 * </ul>
 */
public final class RateControl {
    /** {@link ControlState#cutAt} before any cut. */
    public static final long NO_CUT = Long.MIN_VALUE;

    /** Processing times heard before they are judged against their baseline. */
    public static final int LATENCY_WARM_UP = 20;

    /** The reports of every process are added up over windows of this many nanoseconds (a tenth of a second). */
    public static final long WINDOW = 100_000_000L;

    /** A climb is told each time the rate rose by this factor since the last change told. */
    static final double TOLD_STEP = 1.1;

    private static final double SHORT_WEIGHT = 0.2;
    private static final double BASELINE_DOUBLING = 60e9;

    /** The rate grows to at most this many times what the downstream delivered of late. */
    static final double GROWTH_OVER_DELIVERED = 2;

    private static final double DELIVERED_WEIGHT = 0.3;

    /** A loss cuts the rate to no less than this share of it, however little was delivered. */
    static final double DEEPEST_CUT = 0.5;

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
                0,
                0,
                now,
                0,
                start,
                null,
                0);
    }

    /** The state after {@code signal} at {@code now}. */
    public static Step next(ControlSettings settings, ControlState state, Signal signal, long now) {
        return switch (signal) {
            case Signal.Loss loss -> loss(settings, state, loss, now);
            case Signal.Report report -> report(settings, state, report, now);
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
        // a downstream that delivered less than a cut would leave (a sudden drop): down to what it delivered, but to
        // no less than half the rate at once (right after a drop, slowed successes lag fast refusals, and what was
        // delivered reads low); else a cut as CUBIC's. Either way the climb returns to what it delivered (the rate cut
        // from if more, or nothing heard yet): a rate that overshot the capacity is not the one to come back to.
        double from = state.rate();
        boolean drop = state.delivered() > 0 && state.delivered() < from * settings.cut();
        return cut(
                settings,
                state,
                drop ? Math.max(DEEPEST_CUT, state.delivered() / from) : settings.cut(),
                state.delivered() > 0 ? Math.min(from, state.delivered()) : from,
                saturatedAdd(now, settings.episodeNanos()),
                now,
                Reason.CUT,
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
            Reason reason,
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
                .told(to)
                .cuts(state.cuts() + 1)
                .done();
        return new Step(next, new RateChange(reason, signal, value, from, to, now));
    }

    private static Step report(ControlSettings settings, ControlState state, Signal.Report report, long now) {
        long started = state.windowStarted() + report.started();
        long succeeded = state.windowSucceeded() + report.succeeded();
        long refused = state.windowRefused() + report.refused();
        // a stale signal holds the rate until that signal is heard again (see gauge): fresh reports do not lift it
        String held = report.stale() != null ? report.stale() : state.held();
        RateChange told = null;
        if (report.stale() != null && state.held() == null) {
            told = new RateChange(Reason.HELD, held, 0, state.rate(), state.rate(), now);
        }
        long elapsed = now - state.windowStart();
        if (elapsed < WINDOW) {
            Draft open = Draft.of(state)
                    .windowStarted(started)
                    .windowSucceeded(succeeded)
                    .windowRefused(refused)
                    .held(held);
            return new Step(open.done(), told);
        }
        double lately = succeeded * 1e9 / elapsed;
        // most attempts refused: the downstream's capacity is what it delivered, not what it used to
        double delivered = state.delivered() == 0 || refused > succeeded
                ? lately
                : state.delivered() * (1 - DELIVERED_WEIGHT) + lately * DELIVERED_WEIGHT;
        double allowed = state.rate() * elapsed / 1e9;
        double utilisation = started / allowed;
        Draft next = Draft.of(state)
                .windowStart(now)
                .windowStarted(0)
                .windowSucceeded(0)
                .windowRefused(0)
                .delivered(delivered)
                .held(held);
        if (held != null) {
            return new Step(next.done(), told);
        }
        long from = Math.max(state.windowStart(), Math.max(state.episodeEnds(), state.quietUntil()));
        long grown = state.grown();
        if (now > from && utilisation >= settings.appLimited()) {
            grown = saturatedAdd(grown, now - from);
        }
        double climbed = climbed(settings, state, grown);
        if (delivered > 0) {
            // a rate far above what the downstream delivers learns nothing more about it
            climbed = Math.min(climbed, GROWTH_OVER_DELIVERED * delivered);
        }
        double rate = settings.clamp(Math.max(state.rate(), climbed));
        next.grown(grown).rate(rate);
        boolean step = rate >= state.told() * TOLD_STEP
                || rate > state.told()
                        && (rate >= state.lastGood() && state.told() < state.lastGood() || rate >= settings.ceiling());
        if (!step) {
            return new Step(next.done(), null);
        }
        next.told(rate);
        return new Step(next.done(), new RateChange(Reason.CLIMB, "climb", state.lastGood(), state.told(), rate, now));
    }

    private static Step latency(ControlSettings settings, ControlState state, Signal.Latency latency, long now) {
        double sample = latency.nanos();
        boolean first = state.latencies() == 0;
        double shortRun = first ? sample : state.shortLatency() * (1 - SHORT_WEIGHT) + sample * SHORT_WEIGHT;
        // the lowest short-run average of late: the downstream's own time, without waiting in its queues (the average,
        // creeping up, doubling in a minute, so that a downstream that became slower for good is taken as it is;
        // not the fastest sample, so that a downstream whose times merely vary is not taken for a queueing one); it
        // follows the short run until the warm-up is over
        double creep = Math.pow(2, (double) Math.max(0, now - state.latencyAt()) / BASELINE_DOUBLING);
        int heard = Math.min(LATENCY_WARM_UP, state.latencies() + 1);
        double baseline = heard < LATENCY_WARM_UP ? shortRun : Math.min(shortRun, state.baselineLatency() * creep);
        ControlState measured = Draft.of(state)
                .shortLatency(shortRun)
                .baselineLatency(baseline)
                .latencyAt(now)
                .latencies(heard)
                .done();
        double allowed = baseline * settings.latencyTolerance();
        // a rate no more than the downstream delivers lets its queue drain: a slow answer is the queue's past
        boolean draining = state.delivered() > 0 && state.rate() <= state.delivered();
        if (heard < LATENCY_WARM_UP || shortRun <= allowed || inEpisode(state, now) || draining) {
            return new Step(measured, null);
        }
        double from = state.rate();
        double factor = Math.max(settings.cut(), allowed / shortRun);
        // jobs queue at the downstream: no more than it delivered of late (as a loss's cut, no less than half)
        if (state.delivered() > 0 && state.delivered() < from * factor) {
            factor = Math.max(DEEPEST_CUT, state.delivered() / from);
        }
        return cut(
                settings,
                measured,
                factor,
                state.delivered() > 0 ? Math.min(from, state.delivered()) : from,
                saturatedAdd(now, settings.episodeNanos()),
                now,
                Reason.GRADIENT,
                "latency",
                shortRun / 1e6);
    }

    private static Step gauge(ControlSettings settings, ControlState state, Signal.Gauge gauge, long now) {
        RateChange resumed = null;
        if (gauge.name().equals(state.held())) {
            // the stale signal is heard again: the rate may move again, from the next window
            resumed = new RateChange(Reason.RESUMED, gauge.name(), gauge.value(), state.rate(), state.rate(), now);
            state = Draft.of(state).held(null).windowStart(now).done();
        }
        if (gauge.value() <= gauge.threshold() || inEpisode(state, now)) {
            return new Step(state, resumed);
        }
        return cut(
                settings,
                state,
                Math.max(settings.cut(), gauge.threshold() / gauge.value()),
                state.rate(),
                saturatedAdd(now, settings.episodeNanos()),
                now,
                Reason.GRADIENT,
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
                .told(to)
                .done();
        return new Step(next, new RateChange(Reason.QUOTA, "quota", allows, state.rate(), to, now));
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
        private long windowStart;
        private long windowStarted;
        private long windowSucceeded;
        private long windowRefused;
        private double delivered;
        private double shortLatency;
        private double baselineLatency;
        private long latencyAt;
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
            d.windowStart = s.windowStart();
            d.windowStarted = s.windowStarted();
            d.windowSucceeded = s.windowSucceeded();
            d.windowRefused = s.windowRefused();
            d.delivered = s.delivered();
            d.shortLatency = s.shortLatency();
            d.baselineLatency = s.baselineLatency();
            d.latencyAt = s.latencyAt();
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

        Draft windowStart(long v) {
            windowStart = v;
            return this;
        }

        Draft windowStarted(long v) {
            windowStarted = v;
            return this;
        }

        Draft windowSucceeded(long v) {
            windowSucceeded = v;
            return this;
        }

        Draft windowRefused(long v) {
            windowRefused = v;
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

        Draft baselineLatency(double v) {
            baselineLatency = v;
            return this;
        }

        Draft latencyAt(long v) {
            latencyAt = v;
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
                    windowStart,
                    windowStarted,
                    windowSucceeded,
                    windowRefused,
                    delivered,
                    shortLatency,
                    baselineLatency,
                    latencyAt,
                    latencies,
                    told,
                    held,
                    cuts);
        }
    }
}
