package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The CPU arithmetic of the Redis queue benchmark: microseconds over a phase, per job and over a lifecycle. */
class PhaseCpuTest {
    @Test
    void perJobFiguresDivideEachSidesMicrosecondsByTheJobs() {
        Map<String, Double> figures = new LinkedHashMap<>();

        new PhaseCpu.Use(2_000, 6_000).putPerJob(figures, "c10_process", 400);

        assertThat(figures)
                .containsExactly(
                        Map.entry("c10_process_redis_cpu_us_per_job", 5.0),
                        Map.entry("c10_process_client_cpu_us_per_job", 15.0));
    }

    @Test
    void aLifecycleIsTheAddAndTheProcessingOfTheSameJobs() {
        Map<String, Double> figures = new LinkedHashMap<>();

        PhaseCpu.putLifecycle(figures, "c1", new PhaseCpu.Use(1_000, 3_000), new PhaseCpu.Use(4_000, 5_000), 100);

        assertThat(figures.get("c1_add_redis_cpu_us_per_job")).isEqualTo(10.0);
        assertThat(figures.get("c1_process_client_cpu_us_per_job")).isEqualTo(50.0);
        assertThat(figures.get("c1_lifecycle_redis_cpu_us_per_job")).isEqualTo(50.0);
        assertThat(figures.get("c1_lifecycle_client_cpu_us_per_job")).isEqualTo(80.0);
    }

    @Test
    void perJobRefusesNoJobsNamingTheCount() {
        assertThatThrownBy(() -> new PhaseCpu.Use(1, 1).putPerJob(new LinkedHashMap<>(), "x", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("was 0");
    }
}
