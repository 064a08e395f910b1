package dev.sluice.spring;

import dev.sluice.queue.Processor;
import dev.sluice.queue.Result;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * An application as a user writes one: a controller under /api, a report limited per tenant by annotation, and
 * the processor of the queue "mail". Its controllers are imported rather than scanned: a component scan of this
 * package, which the starter's own classes share, would take the starter's engine configurations for the
 * application's own, ahead of the auto-configuration that orders them.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({TestApplication.Reports.class, TestApplication.Hello.class})
class TestApplication {
    /** Payloads the processor of "mail" ran, in order. */
    static final List<String> MAILED = new CopyOnWriteArrayList<>();

    @Bean
    Processor<String> mailProcessor() {
        return job -> {
            MAILED.add(job.payload());
            return Result.done();
        };
    }

    /** Tenants whose report ran, once per run. */
    static final List<String> REPORTED = new CopyOnWriteArrayList<>();

    @RestController
    static class Reports {
        @GetMapping("/reports/{tenant}")
        @RateLimited(value = "reports", key = "#tenant")
        String report(@PathVariable String tenant) {
            REPORTED.add(tenant);
            return "report of " + tenant;
        }
    }

    @RestController
    static class Hello {
        @GetMapping("/api/hello")
        String hello() {
            return "hello";
        }

        @GetMapping("/open")
        String open() {
            return "open";
        }
    }
}
