package dev.sluice.internal.adaptive;

/**
 * Where a controlled rate stands (see {@link RateControl}); every engine keeps these values, so that many processes
 * update one rate. Rates in jobs per second, times in engine nanoseconds.
 *
 * @param rate the rate in force
 * @param lastGood the rate the last cut was made from (the rate the climb returns to), or the start
 * @param cutTo where the climb's curve starts: the last good rate times the settings' cut (the rate itself may lie
 *     above, where the floor or a gradient left it; it grows once the curve passes it)
 * @param cutAt when the last cut was made; {@link RateControl#NO_CUT} before any
 * @param episodeEnds the end of the last cut's episode: losses before it are the same episode's, and the rate does
 *     not grow before it
 * @param quietUntil the rate does not grow before this either: a downstream's quota bound it until its window resets
 * @param grown the utilised time since the episode's end that counts toward the climb
 * @param windowStart when the window of reports now open began: growth is accounted for when it closes
 * @param windowStarted the jobs the window's reports started
 * @param windowSucceeded the attempts they saw succeed
 * @param windowRefused the attempts they saw refused
 * @param delivered the attempts that succeeded per second of late, a moving average over windows (0: none heard),
 *     or the last window's alone when it refused most
 * @param shortLatency recent processing time, a fast-moving average (0: none heard)
 * @param baselineLatency the lowest processing time of late, creeping up slowly (0: none heard)
 * @param latencyAt when the last processing time was heard
 * @param latencies how many processing times were heard, up to {@link RateControl#LATENCY_WARM_UP}
 * @param told the rate the last change told (a climb is told in steps)
 * @param held the signal gone stale that holds the rate, null if none
 * @param cuts how many cuts were made
 */
public record ControlState(
        double rate,
        double lastGood,
        double cutTo,
        long cutAt,
        long episodeEnds,
        long quietUntil,
        long grown,
        long windowStart,
        long windowStarted,
        long windowSucceeded,
        long windowRefused,
        double delivered,
        double shortLatency,
        double baselineLatency,
        long latencyAt,
        int latencies,
        double told,
        String held,
        long cuts) {}
