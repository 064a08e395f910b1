package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class InMemoryStarterApplicationTest extends StarterApplicationContract {
    @Test
    void runsInMemoryWithoutRedisProperties() {
        assertThat(sluice.toString()).startsWith("Sluice.inMemory");
    }
}
