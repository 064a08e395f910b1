package dev.sluice.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.Sluice;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** The options' defaults, copies, and every refusal naming the bad value and what is allowed. */
class MetricsOptionsTest {
    private static void refused(ThrowingCallable call, String... fragments) {
        assertThatThrownBy(call)
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage()).contains(fragments));
    }

    @Test
    void defaultsPublishThreePercentilesAndNoGroupMeters() {
        MetricsOptions defaults = MetricsOptions.defaults();

        assertThat(defaults.percentiles()).containsExactly(0.5, 0.9, 0.99);
        assertThat(defaults.percentileHistogram()).isFalse();
        assertThat(defaults.groups()).isEmpty();
        assertThat(defaults.busiestGroups()).isZero();
        assertThat(defaults.rankEvery()).isEqualTo(Duration.ofMinutes(1));
        assertThat(defaults.tags()).isEqualTo(Tags.empty());
    }

    @Test
    void toBuilderKeepsEverythingAndTheOptionsDoNotShareTheirArrays() {
        MetricsOptions options = MetricsOptions.builder()
                .percentiles(0.95)
                .percentileHistogram(true)
                .groups("a", "b")
                .busiestGroups(5)
                .rankEvery(Duration.ofSeconds(30))
                .tag("app", "x")
                .build();
        MetricsOptions copy = options.toBuilder().groups("c").build();

        assertThat(copy.groups()).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(copy.percentiles()).containsExactly(0.95);
        assertThat(copy.percentileHistogram()).isTrue();
        assertThat(copy.busiestGroups()).isEqualTo(5);
        assertThat(copy.rankEvery()).isEqualTo(Duration.ofSeconds(30));
        assertThat(copy.tags()).isEqualTo(Tags.of("app", "x"));
        options.percentiles()[0] = 0.1;
        assertThat(options.percentiles()).containsExactly(0.95);
        assertThat(options.toString()).contains("busiestGroups=5", "0.95");
    }

    @Test
    void everyBadValueIsRefusedWithTheValueAndWhatIsAllowed() {
        MetricsOptions.Builder builder = MetricsOptions.builder();

        refused(() -> builder.percentiles(0.5, 1.5), "from 0 to 1", "1.5");
        refused(() -> builder.percentiles(Double.NaN), "from 0 to 1", "NaN");
        refused(() -> builder.percentiles((double[]) null), "percentiles", "null");
        refused(() -> builder.busiestGroups(-1), "0 to " + MetricsOptions.MAX_BUSIEST_GROUPS, "-1");
        refused(() -> builder.busiestGroups(1_001), "0 to 1000", "1001");
        refused(() -> builder.rankEvery(Duration.ZERO), "rankEvery must be positive and at most 1 d", "was 0 ns");
        refused(() -> builder.rankEvery(null), "positive", "null");
        refused(() -> builder.rankEvery(MetricsOptions.MAX_RANK_EVERY.plusSeconds(1)), "at most 1 d", "was 1 d 1 s");
        refused(() -> builder.groups("ok", ""), "1 or more characters", "empty");
        refused(() -> builder.groups((String[]) null), "groups", "null");
        refused(() -> builder.tag("app", null), "key and a value", "null");
        refused(() -> builder.tag("queue", "x"), "'queue'", "Sluice's own", "choose another key");
        refused(() -> builder.tags(null), "tags", "Tags.empty()");
    }

    @Test
    void theEntryPointsRefuseNulls() {
        try (Sluice sluice = Sluice.inMemory()) {
            refused(() -> SluiceMetrics.of(null), "sluice");
            refused(() -> SluiceMetrics.of(sluice, null), "options", "MetricsOptions.defaults()");
            refused(() -> SluiceMetrics.of(sluice).bindTo(null), "registry");
            SluiceMetrics metrics = SluiceMetrics.of(sluice);
            metrics.close();
            assertThatThrownBy(() -> metrics.bindTo(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
        }
    }
}
