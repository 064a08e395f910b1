package dev.sluice.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The failure policy of limiters on a shared engine, and the decisions that carry its outcome. */
class WhenUnavailableTest {

    @Test
    void limitersFailClosedUnlessToldOtherwise() {
        assertThat(LimiterOptions.defaults().whenUnavailable()).isEqualTo(WhenUnavailable.failClosed());
        assertThat(LimiterOptions.builder()
                        .maxKeys(10)
                        .listener(LimiterListener.none())
                        .build()
                        .whenUnavailable())
                .isEqualTo(WhenUnavailable.failClosed());
        LimiterOptions sharing = LimiterOptions.builder()
                .whenUnavailable(WhenUnavailable.fallBack(0.25))
                .build();
        assertThat(sharing.whenUnavailable().action()).isEqualTo(WhenUnavailable.Action.FALL_BACK);
        assertThat(sharing.whenUnavailable().share()).isEqualTo(0.25);
        assertThat(sharing.toBuilder()
                        .maxKeys(7)
                        .listener(LimiterListener.none())
                        .build()
                        .whenUnavailable())
                .as("kept by the other withers")
                .isEqualTo(WhenUnavailable.fallBack(0.25));
    }

    @Test
    void aShareMustBeAbove0AndAtMost1AndOnlyForFallingBack() {
        assertThat(WhenUnavailable.fallBack(1).share()).isEqualTo(1);
        for (double bad : new double[] {0, -0.5, 1.0001, Double.NaN}) {
            assertThatThrownBy(() -> WhenUnavailable.fallBack(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("share must be above 0 and at most 1")
                    .hasMessageContaining(String.valueOf(bad));
        }
        assertThatThrownBy(() -> new WhenUnavailable(WhenUnavailable.Action.DENY, 0.5))
                .hasMessageContaining("share applies only to FALL_BACK");
        assertThatThrownBy(() -> new WhenUnavailable(null, 1))
                .hasMessageContaining("DENY")
                .hasMessageContaining("ALLOW")
                .hasMessageContaining("FALL_BACK");
        assertThatThrownBy(() -> LimiterOptions.builder().whenUnavailable(null).build())
                .hasMessageContaining("whenUnavailable must not be null")
                .hasMessageContaining("failClosed()");
    }

    @Test
    void aDecisionSaysWhatItRestsOn() {
        Decision normal = new Decision(true, 1, 2, 0, 0, "l", Lease.none());
        assertThat(normal.basis()).isEqualTo(Decision.Basis.LIMIT);
        assertThat(normal.degraded()).isFalse();
        for (Decision.Basis basis : Decision.Basis.values()) {
            Decision decision = new Decision(false, 0, 2, 1, 0, "l", Lease.none(), basis);
            assertThat(decision.degraded()).isEqualTo(basis != Decision.Basis.LIMIT);
        }
        assertThatThrownBy(() -> new Decision(true, 1, 2, 0, 0, "l", Lease.none(), null))
                .hasMessageContaining("basis must be one of")
                .hasMessageContaining("UNAVAILABLE_DENIED");
        assertThatThrownBy(() -> new Decision(true, 1, 2, 0, 0, "l", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease must not be null")
                .hasMessageContaining("Lease.none()");
    }
}
