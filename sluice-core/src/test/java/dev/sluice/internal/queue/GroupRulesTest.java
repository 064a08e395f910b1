package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.internal.queue.GroupRules.Place;
import org.junit.jupiter.api.Test;

class GroupRulesTest {
    private static final long NOW = 100;
    private static final long NONE = Long.MIN_VALUE;

    @Test
    void aGroupWithWaitingJobsAndRoomIsReady() {
        assertThat(GroupRules.place(1, 0, 0, 1, NONE, NONE, NOW)).isEqualTo(Place.READY);
        assertThat(GroupRules.place(3, 2, 1, 2, NOW, NOW, NOW))
                .as("a pause or park ending now no longer holds")
                .isEqualTo(Place.READY);
    }

    @Test
    void aGroupAtItsConcurrencyIsHeldWhateverItsPause() {
        assertThat(GroupRules.place(1, 0, 2, 2, NONE, NONE, NOW)).isEqualTo(Place.HELD);
        assertThat(GroupRules.place(1, 0, 3, 2, NOW + 50, NONE, NOW)).isEqualTo(Place.HELD);
    }

    @Test
    void aPausedOrRateParkedGroupIsParkedUntilTheLaterOfBoth() {
        assertThat(GroupRules.place(1, 0, 0, 1, NOW + 1, NONE, NOW)).isEqualTo(Place.PARKED);
        assertThat(GroupRules.place(1, 0, 0, 1, NONE, NOW + 1, NOW)).isEqualTo(Place.PARKED);
        assertThat(GroupRules.until(NOW + 5, NOW + 9)).isEqualTo(NOW + 9);
        assertThat(GroupRules.until(NOW + 9, NONE)).isEqualTo(NOW + 9);
        assertThat(GroupRules.parkedForRate(40, NOW)).isEqualTo(140);
        assertThat(GroupRules.parkedForRate(Long.MAX_VALUE, NOW)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aGroupWithNothingWaitingIsReleasedOnlyWhenItHoldsNothing() {
        assertThat(GroupRules.place(0, 0, 0, 1, NONE, NONE, NOW)).isEqualTo(Place.RELEASED);
        assertThat(GroupRules.place(0, 0, 0, 1, NOW, NOW, NOW)).isEqualTo(Place.RELEASED);
        assertThat(GroupRules.place(0, 1, 0, 1, NONE, NONE, NOW))
                .as("a delayed job")
                .isEqualTo(Place.IDLE);
        assertThat(GroupRules.place(0, 0, 1, 1, NONE, NONE, NOW))
                .as("a running job")
                .isEqualTo(Place.IDLE);
        assertThat(GroupRules.place(0, 0, 0, 1, NOW + 1, NONE, NOW))
                .as("a pause")
                .isEqualTo(Place.IDLE);
        assertThat(GroupRules.place(0, 0, 0, 1, NONE, NOW + 1, NOW))
                .as("a park")
                .isEqualTo(Place.IDLE);
        assertThat(GroupRules.isReleasable(1, 0, 0, NONE, NONE, NOW)).isFalse();
    }

    @Test
    void aRateLimitOnlyLengthensAPause() {
        assertThat(GroupRules.pausedUntil(NONE, NOW + 10)).isEqualTo(NOW + 10);
        assertThat(GroupRules.pausedUntil(NOW + 30, NOW + 10)).isEqualTo(NOW + 30);
    }
}
