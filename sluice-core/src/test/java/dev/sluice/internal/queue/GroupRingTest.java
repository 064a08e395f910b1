package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.GroupLimits;
import dev.sluice.time.ManualClock;
import org.junit.jupiter.api.Test;

class GroupRingTest {
    /** How many released groups' statistics a ring keeps. */
    private static final int KEPT = 10_000;

    private final ManualClock clock = new ManualClock();
    private final long now = clock.nanos();
    private final GroupRing ring = new GroupRing("q", clock, GroupLimits.none(), new WakeTimer(clock, () -> {}));

    private static Group.Key key(int i) {
        return Group.Key.of("g" + i);
    }

    /** Uses group {@code i} and lets it go, as a job that ran in it and left would. */
    private Group useAndRelease(int i) {
        Group group = ring.group(key(i));
        ring.releaseIfIdle(group, now);
        return group;
    }

    @Test
    void anIdleGroupIsReleasedAndABusyOneIsNot() {
        Group idle = useAndRelease(1);
        Group busy = ring.group(key(2));
        busy.delayed = 1;
        ring.releaseIfIdle(busy, now);

        assertThat(idle.released).isTrue();
        assertThat(ring.find(key(1))).isNull();
        assertThat(busy.released).isFalse();
        assertThat(ring.find(key(2))).isSameAs(busy);
        assertThat(ring.group(key(1))).as("used again: a new group").isNotSameAs(idle);
    }

    @Test
    void aReleasedGroupKeepsItsStatisticsWhenUsedAgain() {
        Group first = useAndRelease(1);
        first.stats.completed = 3;

        Group again = ring.group(key(1));

        assertThat(again.stats).isSameAs(first.stats);
        assertThat(ring.statsOf(key(1)).completed).isEqualTo(3);
        assertThat(ring.statsOf(key(2))).as("never used").isNull();
    }

    @Test
    void theStatisticsOfTheLeastRecentlyUsedReleasedGroupsAreForgottenBeyondTenThousand() {
        for (int i = 0; i < KEPT; i++) {
            useAndRelease(i);
        }
        assertThat(ring.statsOf(key(0))).as("ten thousand are kept").isNotNull(); // g0 is now the most recent

        useAndRelease(KEPT);

        assertThat(ring.statsOf(key(1))).as("the least recently used").isNull();
        assertThat(ring.statsOf(key(0))).isNotNull();
        assertThat(ring.statsOf(key(2))).isNotNull();
        assertThat(ring.statsOf(key(KEPT))).isNotNull();
    }

    /** Regression: a kept or live group that was least recently used shielded every other group from being forgotten. */
    @Test
    void theStatisticsOfAGroupWithKeptJobsOrStillLiveAreNotForgottenNorShieldTheOthers() {
        ring.group(key(0)).stats.keptCompleted = 1;
        ring.releaseIfIdle(ring.group(key(0)), now);
        Group live = ring.group(key(1));
        live.waiting = 1;
        Group failedKept = useAndRelease(2);
        failedKept.stats.keptFailed = 1;
        for (int i = 3; i <= KEPT + 4; i++) {
            useAndRelease(i);
        }

        assertThat(ring.statsOf(key(0))).as("a completed job is still kept").isNotNull();
        assertThat(ring.statsOf(key(1))).as("the group is live").isSameAs(live.stats);
        assertThat(ring.statsOf(key(2))).as("a failed job is still kept").isNotNull();
        assertThat(ring.statsOf(key(3)))
                .as("the least recently used of the others")
                .isNull();
        assertThat(ring.statsOf(key(4))).isNull();
        assertThat(ring.statsOf(key(5))).isNotNull();
    }
}
