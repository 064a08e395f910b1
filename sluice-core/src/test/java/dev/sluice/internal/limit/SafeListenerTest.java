package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.Decision;
import dev.sluice.limit.LimiterListener;
import dev.sluice.limit.LimiterOptions;
import dev.sluice.limit.RateLimiter;
import dev.sluice.limit.TokenBucket;
import dev.sluice.time.ManualClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A listener that throws is logged through SLF4J (here slf4j-simple, which writes to System.err): the first
 * failure of a limiter's listener as a warning naming the limiter, the event and the exception, later ones at
 * debug level, which slf4j-simple does not print by default.
 */
class SafeListenerTest {
    @Test
    void aThrowingListenerIsLoggedOnceAsAWarningAndTheDecisionStands() {
        LimiterListener throwing = new LimiterListener() {
            @Override
            public void onAllowed(String limiter, String key, long permits, Decision decision) {
                throw new IllegalStateException("broken metrics");
            }
        };
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.err;
        Decision first;
        Decision second;
        try (Sluice sluice = Sluice.inMemory(new ManualClock())) {
            RateLimiter limiter = sluice.limiter(
                    "api",
                    TokenBucket.of(2, Duration.ofSeconds(1)),
                    LimiterOptions.builder().listener(throwing).build());
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            try {
                first = limiter.tryAcquire("k");
                second = limiter.tryAcquire("k");
            } finally {
                System.setErr(original);
            }
        }

        assertThat(first.allowed()).isTrue();
        assertThat(second.allowed()).isTrue();
        assertThat(second.remaining()).isZero();
        String log = captured.toString(StandardCharsets.UTF_8);
        assertThat(log)
                .contains("WARN")
                .contains("limiter 'api'")
                .contains("onAllowed")
                .contains("the decision stands")
                .contains("IllegalStateException: broken metrics");
        assertThat(log.split("WARN", -1)).as("one warning for two failures").hasSize(2);
    }

    /** Hears the engine's unavailability and recovery, then throws. */
    static final class ThrowingAvailabilityListener implements LimiterListener {
        final List<String> heard = new ArrayList<>();

        @Override
        public void onUnavailable(String limiter, Throwable cause) {
            heard.add("unavailable " + limiter + " " + cause.getMessage());
            throw new IllegalStateException("broken alerting");
        }

        @Override
        public void onRecovered(String limiter) {
            heard.add("recovered " + limiter);
            throw new IllegalStateException("broken alerting");
        }
    }

    /** What {@code event} writes to System.err. */
    private static String logOf(Runnable event) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            event.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void unavailabilityReachesTheListenerAndWhatItThrowsIsLoggedNotThrown() {
        ThrowingAvailabilityListener listener = new ThrowingAvailabilityListener();
        LimiterListener safe = SafeListener.of(listener);

        String log = logOf(() -> safe.onUnavailable("api", new IllegalStateException("redis down")));

        assertThat(listener.heard).containsExactly("unavailable api redis down");
        assertThat(log).contains("WARN").contains("limiter 'api'").contains("onUnavailable");
    }

    @Test
    void recoveryReachesTheListenerAndWhatItThrowsIsLoggedNotThrown() {
        ThrowingAvailabilityListener listener = new ThrowingAvailabilityListener();
        LimiterListener safe = SafeListener.of(listener);

        String log = logOf(() -> safe.onRecovered("api"));

        assertThat(listener.heard).containsExactly("recovered api");
        assertThat(log).contains("WARN").contains("limiter 'api'").contains("onRecovered");
    }

    @ParameterizedTest
    @ValueSource(strings = {"onAllowed", "onDenied", "onEvicted", "onKeyTableFull"})
    void theFirstFailureOfAListenerIsAWarningNamingTheEvent(String event) {
        LimiterListener throwing = (LimiterListener) Proxy.newProxyInstance(
                LimiterListener.class.getClassLoader(),
                new Class<?>[] {LimiterListener.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("toString")) {
                        return "an always-throwing listener";
                    }
                    throw new IllegalStateException("broken " + method.getName());
                });
        LimiterListener safe = SafeListener.of(throwing);
        Decision decision = new Decision(true, 1, 2, 0, 0, "api", dev.sluice.limit.Lease.none());

        String log = logOf(() -> {
            switch (event) {
                case "onAllowed" -> safe.onAllowed("api", "k", 1, decision);
                case "onDenied" -> safe.onDenied("api", "k", 1, decision);
                case "onEvicted" -> safe.onEvicted("api", "k");
                default -> safe.onKeyTableFull("api", "k");
            }
        });

        assertThat(log).contains("WARN").contains("limiter 'api'").contains(event);
    }

    @Test
    void theDoNothingListenerIsUsedAsItIs() {
        assertThat(SafeListener.of(LimiterListener.none())).isSameAs(LimiterListener.none());
    }
}
