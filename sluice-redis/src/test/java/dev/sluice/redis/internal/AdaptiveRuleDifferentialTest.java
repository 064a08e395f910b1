package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.internal.adaptive.ControlSettings;
import dev.sluice.internal.adaptive.ControlState;
import dev.sluice.internal.adaptive.RateChange;
import dev.sluice.internal.adaptive.RateControl;
import dev.sluice.internal.adaptive.Signal;
import dev.sluice.queue.RateChange.Reason;
import dev.sluice.testkit.redis.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * adaptive-rule.lua, run in a real Redis, moves a rate as sluice-core's {@link RateControl} does, step by step, over
 * random histories of every kind of signal (times in microseconds there, nanoseconds here).
 */
class AdaptiveRuleDifferentialTest {
    private static final Path RULE = Path.of("src/main/resources/dev/sluice/redis/internal/queue-adaptive-rule.lua");
    private static final long US = 1_000;

    /** Reads the signals of ARGV from the 10th on, applies each, and replies each step's state and change. */
    private static final String DRIVER = """
            local function num(i) return tonumber(ARGV[i]) end
            local settings = { floor = num(1), ceiling = num(2), start = num(3), cut = num(4), episode = num(5),
              climb = num(6), appLimited = num(7), latencyTolerance = num(8) }
            local state = adaptive.start(settings, num(9))
            local function text(x)
              if x == false or x == nil then return '-' end
              if type(x) == 'number' then return string.format('%.17g', x) end
              return x
            end
            local out, i = {}, 10
            while i <= #ARGV do
              local kind, now, signal = ARGV[i], num(i + 1), nil
              if kind == 'loss' then
                signal = { kind = kind, lossKind = ARGV[i + 2], sentAt = num(i + 3), retryAfter = num(i + 4) }
                i = i + 5
              elseif kind == 'report' then
                signal = { kind = kind, started = num(i + 2), succeeded = num(i + 3), refused = num(i + 4),
                  stale = ARGV[i + 5] ~= '' and ARGV[i + 5] or false }
                i = i + 6
              elseif kind == 'latency' then
                signal = { kind = kind, us = num(i + 2) }
                i = i + 3
              elseif kind == 'gauge' then
                signal = { kind = kind, name = ARGV[i + 2], value = num(i + 3), threshold = num(i + 4) }
                i = i + 5
              else
                signal = { kind = kind, remaining = num(i + 2), reset = num(i + 3) }
                i = i + 4
              end
              local change
              state, change = adaptive.next(settings, state, signal, now)
              local fields = {}
              for _, f in ipairs({ 'rate', 'lastGood', 'cutTo', 'cutAt', 'episodeEnds', 'quietUntil', 'grown',
                  'windowStart', 'windowStarted', 'windowSucceeded', 'windowRefused', 'delivered', 'shortLatency',
                  'baselineLatency', 'latencyAt', 'latencies', 'told', 'held', 'cuts' }) do
                fields[#fields + 1] = text(state[f])
              end
              for _, f in ipairs({ 'reason', 'signal', 'value', 'from', 'to', 'at' }) do
                fields[#fields + 1] = text(change and change[f])
              end
              out[#out + 1] = table.concat(fields, '|')
            end
            return out
            """;

    private static RedisServer redis;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static String script;

    @BeforeAll
    static void start() throws IOException {
        redis = RedisServer.start();
        client = RedisClient.create(redis.uri());
        connection = client.connect();
        script = Files.readString(RULE) + "\n" + DRIVER;
    }

    @AfterAll
    static void stop() {
        connection.close();
        client.shutdown();
        redis.close();
    }

    @Test
    void theLuaRuleMovesTheRateAsTheJavaRuleDoesOverRandomHistories() {
        ControlSettings settings =
                new ControlSettings(5, 400, 120, 0.85, Duration.ofMillis(250), Duration.ofSeconds(3), 0.8, 3);
        Set<Reason> seen = EnumSet.noneOf(Reason.class);
        for (long seed = 1; seed <= 40; seed++) {
            Random random = new Random(seed);
            long start = 1_700_000_000_000_000L + random.nextInt(1_000_000);
            List<String> args = new ArrayList<>(
                    List.of("5", "400", "120", "0.85", "250000", "3000000", "0.8", "3", Long.toString(start)));
            List<Signal> signals = new ArrayList<>();
            List<Long> times = new ArrayList<>();
            long now = start;
            for (int step = 0; step < 300; step++) {
                now += random.nextInt(random.nextBoolean() ? 120_000 : 1_500_000);
                times.add(now);
                signals.add(signal(random, now, args));
            }
            List<Object> lua =
                    connection.sync().eval(script, ScriptOutputType.MULTI, new String[0], args.toArray(String[]::new));
            ControlState state = RateControl.start(settings, start * US);
            for (int step = 0; step < signals.size(); step++) {
                RateControl.Step next = RateControl.next(settings, state, signals.get(step), times.get(step) * US);
                state = next.state();
                if (next.change() != null) {
                    seen.add(next.change().reason());
                }
                assertSame(
                        (String) lua.get(step),
                        state,
                        next.change(),
                        "seed " + seed + ", step " + step + ", " + signals.get(step));
            }
        }
    }

    /** A random signal at {@code now} (microseconds), its arguments added to {@code args}. */
    private static Signal signal(Random random, long now, List<String> args) {
        args.add(
                switch (random.nextInt(10)) {
                    case 0, 1 -> "loss";
                    case 2, 3, 4, 5 -> "report";
                    case 6, 7 -> "latency";
                    case 8 -> "gauge";
                    default -> "quota";
                });
        String kind = args.getLast();
        args.add(Long.toString(now));
        switch (kind) {
            case "loss" -> {
                boolean limited = random.nextBoolean();
                long sentAt = now - random.nextInt(300_000);
                long retryAfter = random.nextInt(3) == 0 ? 0 : random.nextInt(3_000_000);
                args.addAll(List.of(
                        limited ? "rate-limited" : "overloaded", Long.toString(sentAt), Long.toString(retryAfter)));
                return new Signal.Loss(
                        limited ? Signal.Loss.Kind.RATE_LIMITED : Signal.Loss.Kind.OVERLOADED,
                        sentAt * US,
                        retryAfter * US);
            }
            case "report" -> {
                long started = random.nextInt(60);
                long succeeded = random.nextInt(40);
                long refused = random.nextInt(4) == 0 ? random.nextInt(40) : 0;
                String stale = random.nextInt(10) == 0 ? "redis-cpu" : null;
                args.addAll(List.of(
                        Long.toString(started),
                        Long.toString(succeeded),
                        Long.toString(refused),
                        stale == null ? "" : stale));
                return new Signal.Report(started, succeeded, refused, stale);
            }
            case "latency" -> {
                long us = 1_000 + random.nextInt(random.nextInt(5) == 0 ? 2_000_000 : 60_000);
                args.add(Long.toString(us));
                return new Signal.Latency(us * US);
            }
            case "gauge" -> {
                double value = random.nextInt(300) / 100.0;
                String name = random.nextBoolean() ? "pool" : "redis-cpu";
                args.addAll(List.of(name, Double.toString(value), "1"));
                return new Signal.Gauge(name, value, 1);
            }
            default -> {
                long remaining = random.nextInt(400);
                long reset = 1_000 + random.nextInt(5_000_000);
                args.addAll(List.of(Long.toString(remaining), Long.toString(reset)));
                return new Signal.Quota(remaining, reset * US);
            }
        }
    }

    private static void assertSame(String lua, ControlState state, RateChange change, String where) {
        String[] f = lua.split("\\|", -1);
        double[] expected = {state.rate(), state.lastGood(), state.cutTo()};
        for (int i = 0; i < expected.length; i++) {
            assertThat(Double.parseDouble(f[i]))
                    .as(where + ": field " + i)
                    .isCloseTo(expected[i], within(tolerance(expected[i])));
        }
        assertThat(f[3])
                .as(where + ": cutAt")
                .isEqualTo(state.cutAt() == RateControl.NO_CUT ? "-" : Long.toString(state.cutAt() / US));
        long[] times = {state.episodeEnds(), state.quietUntil(), state.grown(), state.windowStart()};
        for (int i = 0; i < times.length; i++) {
            assertThat(Long.parseLong(f[4 + i])).as(where + ": time " + (4 + i)).isEqualTo(times[i] / US);
        }
        long[] counts = {state.windowStarted(), state.windowSucceeded(), state.windowRefused()};
        for (int i = 0; i < counts.length; i++) {
            assertThat(Long.parseLong(f[8 + i]))
                    .as(where + ": count " + (8 + i))
                    .isEqualTo(counts[i]);
        }
        assertThat(Double.parseDouble(f[11]))
                .as(where + ": delivered")
                .isCloseTo(state.delivered(), within(tolerance(state.delivered())));
        assertThat(Double.parseDouble(f[12]) * US)
                .as(where + ": shortLatency")
                .isCloseTo(state.shortLatency(), within(tolerance(state.shortLatency())));
        assertThat(Double.parseDouble(f[13]) * US)
                .as(where + ": baselineLatency")
                .isCloseTo(state.baselineLatency(), within(tolerance(state.baselineLatency())));
        assertThat(Long.parseLong(f[14])).as(where + ": latencyAt").isEqualTo(state.latencyAt() / US);
        assertThat(Integer.parseInt(f[15])).as(where + ": latencies").isEqualTo(state.latencies());
        assertThat(Double.parseDouble(f[16]))
                .as(where + ": told")
                .isCloseTo(state.told(), within(tolerance(state.told())));
        assertThat(f[17]).as(where + ": held").isEqualTo(state.held() == null ? "-" : state.held());
        assertThat(Long.parseLong(f[18])).as(where + ": cuts").isEqualTo(state.cuts());
        if (change == null) {
            assertThat(f[19]).as(where + ": no change").isEqualTo("-");
            return;
        }
        assertThat(f[19]).as(where + ": reason").isEqualTo(change.reason().name());
        assertThat(f[20]).as(where + ": signal").isEqualTo(change.signal());
        assertThat(Double.parseDouble(f[21]))
                .as(where + ": value")
                .isCloseTo(change.value(), within(tolerance(change.value())));
        assertThat(Double.parseDouble(f[22]))
                .as(where + ": from")
                .isCloseTo(change.from(), within(tolerance(change.from())));
        assertThat(Double.parseDouble(f[23])).as(where + ": to").isCloseTo(change.to(), within(tolerance(change.to())));
        assertThat(Long.parseLong(f[24])).as(where + ": at").isEqualTo(change.at() / US);
    }

    private static double tolerance(double value) {
        return 1e-9 * Math.max(1, Math.abs(value));
    }
}
