package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.Sluice;
import dev.sluice.limit.ConcurrencyLimit;
import dev.sluice.limit.ConcurrencyLimiter;
import dev.sluice.limit.FixedWindow;
import dev.sluice.limit.RateLimiter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How limiters and bound keys name themselves in logs and messages. */
class LimiterTextTest {
    @Test
    void eachKindOfLimiterAndAConcurrencyLimitersBoundKeyNameThemselves() {
        try (Sluice sluice = Sluice.inMemory()) {
            RateLimiter rate = sluice.limiter("api", FixedWindow.of(5, Duration.ofSeconds(1)));
            ConcurrencyLimiter concurrency =
                    sluice.concurrencyLimiter("jobs", ConcurrencyLimit.of(2, Duration.ofMinutes(1)));

            assertThat(rate.toString())
                    .startsWith("RateLimiter[api, " + rate.policy() + ", ")
                    .endsWith(sluice + "]");
            assertThat(concurrency.toString())
                    .startsWith("ConcurrencyLimiter[jobs, " + concurrency.policy() + ", ")
                    .endsWith(sluice + "]");
            assertThat(concurrency.forKey("tenant-1")).hasToString("ConcurrencyKeyLimiter[jobs, tenant-1]");
        }
    }
}
