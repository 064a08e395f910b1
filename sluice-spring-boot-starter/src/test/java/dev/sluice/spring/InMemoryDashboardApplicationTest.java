package dev.sluice.spring;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;

/** The API and dashboard in the test application on the in-memory engine. */
@SpringBootTest(classes = TestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("dashboard")
@DirtiesContext
class InMemoryDashboardApplicationTest extends DashboardApplicationContract {}
