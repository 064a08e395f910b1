package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The CPU seconds of an INFO CPU reply. */
class CpuUtilisationTest {
    @Test
    void theCpuSecondsAreTheSystemsAndTheUsersWithoutTheChildren() {
        String info = "# CPU\r\nused_cpu_sys:1.50\r\nused_cpu_user:2.25\r\nused_cpu_sys_children:9.0\r\n"
                + "used_cpu_user_children:9.0\r\nused_cpu_sys_main_thread:1.2\r\n";
        assertThat(CpuUtilisation.usedSeconds(info)).isEqualTo(3.75);
        assertThatThrownBy(() -> CpuUtilisation.usedSeconds("# CPU\r\n"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("used_cpu_sys and used_cpu_user");
    }
}
