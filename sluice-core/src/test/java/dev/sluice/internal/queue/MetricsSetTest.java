package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.Job;
import dev.sluice.queue.QueueMetrics;
import dev.sluice.queue.Result;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class MetricsSetTest {
    private final MetricsSet set = new MetricsSet("orders");
    private final List<String> told = new CopyOnWriteArrayList<>();

    private QueueMetrics named(String name) {
        return new QueueMetrics() {
            @Override
            public void added(String group) {
                told.add(name + " added " + group);
            }

            @Override
            public void rateLimited(String group, Result.Scope scope, Duration processing) {
                told.add(name + " rate-limited " + group + " " + scope + " " + processing);
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    @Test
    void eachRegisteredMetricsIsToldInTheOrderAddedUntilRemoved() {
        QueueMetrics a = named("a");
        QueueMetrics b = named("b");
        QueueMetrics c = named("c");
        set.add(a);
        set.add(b);
        set.add(c);

        assertThat(set.remove(b)).isTrue();
        set.tell(m -> m.added("g"));
        assertThat(told).containsExactly("a added g", "c added g");

        told.clear();
        assertThat(set.remove(b)).isFalse();
        assertThat(set.remove(a)).isTrue();
        set.tell(m -> m.added(null));
        assertThat(told).containsExactly("c added null");

        assertThat(set.isEmpty()).isFalse();
        assertThat(set.remove(c)).isTrue();
        assertThat(set.isEmpty()).isTrue();
        told.clear();
        set.tell(m -> m.added("g"));
        assertThat(told).isEmpty();
        assertThatThrownBy(() -> set.add(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anEndingIsToldToTheMethodOfWhatBecameOfTheJob() {
        set.add(named("a"));

        set.ended(
                "g",
                MetricsSet.Ending.RATE_LIMITED,
                Job.Attempt.Outcome.RATE_LIMITED,
                Result.Scope.QUEUE,
                Duration.ofMillis(5));

        assertThat(told).containsExactly("a rate-limited g QUEUE PT0.005S");
        assertThat(MetricsSet.Ending.ofWord("rate-limited")).isEqualTo(MetricsSet.Ending.RATE_LIMITED);
        assertThat(MetricsSet.Ending.ofWord("")).isNull();
    }

    @Test
    void metricsThatThrowAreLoggedOnceAndTheOthersAreStillTold() {
        set.add(new QueueMetrics() {
            @Override
            public void added(String group) {
                throw new IllegalStateException("metrics bug");
            }

            @Override
            public String toString() {
                return "BuggyMetrics";
            }
        });
        set.add(named("b"));
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            for (int i = 0; i < 3; i++) {
                set.tell(m -> m.added("g"));
            }
        } finally {
            System.setErr(err);
        }

        String log = captured.toString(StandardCharsets.UTF_8);
        assertThat(log.split("BuggyMetrics", -1))
                .as("one line for three failures")
                .hasSize(2);
        assertThat(log).contains("WARN").contains("'orders'").contains("metrics bug");
        assertThat(told).containsExactly("b added g", "b added g", "b added g");
    }
}
