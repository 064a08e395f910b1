package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limit.TokenBucket;
import dev.sluice.queue.QueueOptions.WhenFull;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class QueueOptionsTest {
    @Test
    void defaultsAreTheOnesTheJavadocLists() {
        QueueOptions defaults = QueueOptions.defaults();

        assertThat(defaults.maxQueued()).isEqualTo(1_000_000).isEqualTo(QueueOptions.DEFAULT_MAX_QUEUED);
        assertThat(defaults.whenFull()).isEqualTo(WhenFull.reject());
        assertThat(defaults.whenFull().blockFor()).isZero();
        assertThat(defaults.rate()).isNull();
        assertThat(defaults.concurrency()).isEqualTo(Integer.MAX_VALUE);
        assertThat(defaults.groupDefaults()).isEqualTo(GroupLimits.none());
        assertThat(defaults.jobDefaults()).isEqualTo(JobOptions.defaults());
        assertThat(QueueOptions.builder().build()).isEqualTo(defaults);
    }

    @Test
    void builderKeepsEveryValue() {
        TokenBucket rate = TokenBucket.perSecond(50);
        GroupLimits groups = GroupLimits.builder()
                .rate(TokenBucket.perSecond(5))
                .concurrency(2)
                .build();

        QueueOptions options = QueueOptions.builder()
                .maxQueued(10)
                .whenFull(WhenFull.block(Duration.ofSeconds(3)))
                .rate(rate)
                .concurrency(16)
                .groupDefaults(groups)
                .jobDefaults(JobOptions.defaults())
                .maxPayloadBytes(1000)
                .build();

        assertThat(options)
                .isEqualTo(new QueueOptions(
                        10, WhenFull.block(Duration.ofSeconds(3)), rate, 16, groups, JobOptions.defaults(), 1000));
        assertThat(options.toBuilder().build()).isEqualTo(options);
        assertThat(options.toString()).contains("maxPayloadBytes=1000");
        assertThat(QueueOptions.defaults().maxPayloadBytes()).isEqualTo(512 * 1024);
        assertThat(QueueOptions.defaults().toString()).doesNotContain("maxPayloadBytes");
        assertThat(options.toBuilder().concurrency(1).build().concurrency()).isEqualTo(1);
    }

    @Test
    void jobDefaultsAreResolvedAgainstTheBuiltInJobDefaults() {
        JobOptions partial = JobOptions.builder()
                .attempts(5)
                .timeout(Duration.ofSeconds(30))
                .group("shared")
                .build();

        JobOptions resolved =
                QueueOptions.builder().jobDefaults(partial).build().jobDefaults();

        assertThat(resolved).isEqualTo(partial.orElse(JobOptions.defaults()));
        assertThat(resolved.attempts()).isEqualTo(5);
        assertThat(resolved.timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(resolved.group()).isEqualTo("shared");
        assertThat(resolved.delay()).isEqualTo(Duration.ZERO);
        assertThat(resolved.backoff()).isEqualTo(Backoff.none());
        assertThat(resolved.priority()).isEqualTo(0);
        assertThat(resolved.keepCompleted()).isEqualTo(Retention.keepLast(1_000));
        assertThat(resolved.keepFailed()).isEqualTo(Retention.keepLast(10_000));
        assertThat(resolved.maxRateLimits()).isEqualTo(100);
    }

    @Test
    void emptyJobDefaultsBecomeTheBuiltInJobDefaults() {
        assertThat(QueueOptions.builder()
                        .jobDefaults(JobOptions.empty())
                        .build()
                        .jobDefaults())
                .isEqualTo(JobOptions.defaults());
    }

    @Test
    void jobDefaultsWithAJobIdAreRejected() {
        JobOptions withId = JobOptions.builder().jobId("same-for-all").build();

        assertThatThrownBy(() -> QueueOptions.builder().jobDefaults(withId).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("jobDefaults must not set a job id: ids must differ between jobs");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void maxQueuedBelowOneIsRejectedNamingTheValueAndRange(int maxQueued) {
        assertThatThrownBy(() -> QueueOptions.builder().maxQueued(maxQueued).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxQueued must be between 1 and 2147483647, was " + maxQueued);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -7})
    void concurrencyBelowOneIsRejectedNamingTheValueAndRange(int concurrency) {
        assertThatThrownBy(() -> QueueOptions.builder().concurrency(concurrency).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("queue concurrency must be between 1 and 2147483647, was " + concurrency);
    }

    @Test
    void boundsOfMaxQueuedAndConcurrencyAreAccepted() {
        QueueOptions smallest =
                QueueOptions.builder().maxQueued(1).concurrency(1).build();
        QueueOptions largest = QueueOptions.builder()
                .maxQueued(Integer.MAX_VALUE)
                .concurrency(Integer.MAX_VALUE)
                .build();

        assertThat(smallest.maxQueued()).isEqualTo(1);
        assertThat(smallest.concurrency()).isEqualTo(1);
        assertThat(largest.maxQueued()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void nullRateMeansNoQueueRate() {
        assertThat(QueueOptions.builder()
                        .rate(TokenBucket.perSecond(1))
                        .rate(null)
                        .build()
                        .rate())
                .isNull();
    }

    @Test
    void nullWhenFullGroupDefaultsOrJobDefaultsAreRejectedWithAHint() {
        assertThatThrownBy(() -> QueueOptions.builder().whenFull(null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("whenFull must be WhenFull.reject() or WhenFull.block(timeout), was null");
        assertThatThrownBy(() -> QueueOptions.builder().groupDefaults(null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("groupDefaults must not be null; use GroupLimits.none()");
        assertThatThrownBy(() -> QueueOptions.builder().jobDefaults(null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("jobDefaults must not be null; use JobOptions.defaults()");
    }

    @Test
    void theCanonicalConstructorValidatesToo() {
        assertThatThrownBy(() ->
                        new QueueOptions(0, WhenFull.reject(), null, 1, GroupLimits.none(), JobOptions.defaults(), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("maxQueued must be between 1 and");
    }

    @Test
    void whenFullBlockKeepsItsTimeoutAndRejectIsAZeroBlock() {
        assertThat(WhenFull.block(Duration.ofMillis(250)).blockFor()).isEqualTo(Duration.ofMillis(250));
        assertThat(WhenFull.reject()).isEqualTo(WhenFull.block(Duration.ZERO));
    }

    @Test
    void whenFullRejectsANegativeOrNullTimeoutNamingTheValueAndRange() {
        assertThatThrownBy(() -> WhenFull.block(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("whenFull blockFor must be between 0 and about 73 years, was -1 s");
        assertThatThrownBy(() -> WhenFull.block(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("whenFull blockFor must be between 0 and about 73 years, was null");
    }

    /**
     * GroupLimits' initializer validates its rate through QueueOptions, and QueueOptions' defaults use
     * GroupLimits.none(): whichever class a program touches first, both must initialize. Each order is tried
     * in a class loader of its own, where neither class has been initialized yet.
     */
    @ParameterizedTest
    @ValueSource(strings = {"dev.sluice.queue.GroupLimits", "dev.sluice.queue.QueueOptions"})
    void groupLimitsAndQueueOptionsInitializeWhicheverIsUsedFirst(String first) throws Exception {
        URL mainClasses =
                QueueOptions.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader fresh = new URLClassLoader(new URL[] {mainClasses}, ClassLoader.getPlatformClassLoader())) {
            Class.forName(first, true, fresh);

            Class<?> groupLimits = Class.forName("dev.sluice.queue.GroupLimits", true, fresh);
            Class<?> queueOptions = Class.forName("dev.sluice.queue.QueueOptions", true, fresh);
            Object none = groupLimits.getMethod("none").invoke(null);
            Object defaults = queueOptions.getMethod("defaults").invoke(null);

            assertThat(groupLimits).isNotSameAs(GroupLimits.class);
            assertThat(none).isNotNull();
            assertThat(queueOptions.getMethod("groupDefaults").invoke(defaults)).isSameAs(none);
        }
    }

    @Test
    void toStringShowsTheBoundWhatAFullQueueDoesAndTheLimitsThatAreSet() {
        assertThat(WhenFull.reject()).hasToString("reject");
        assertThat(WhenFull.block(Duration.ofSeconds(30))).hasToString("block(30 s)");
        assertThat(QueueOptions.builder()
                        .maxQueued(500)
                        .whenFull(WhenFull.block(Duration.ofMillis(1500)))
                        .concurrency(10)
                        .jobDefaults(JobOptions.builder().attempts(3).build())
                        .build())
                .hasToString("QueueOptions{maxQueued=500, whenFull=block(1.5 s), concurrency=10,"
                        + " groupDefaults=GroupLimits.none(), jobDefaults=JobOptions{delay=0 ns, attempts=3,"
                        + " backoff=Backoff.none(), priority=0, keepCompleted=Retention.keepLast(1000),"
                        + " keepFailed=Retention.keepLast(10000), maxRateLimits=100}}");
    }
}
