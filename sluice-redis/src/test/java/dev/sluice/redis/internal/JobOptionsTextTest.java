package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.queue.JobOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobOptionsTextTest {
    private final JobOptionsText text = new JobOptionsText("q");

    @Test
    void theOptionsOfJobsInManyGroupsDecodeAsEncodedAndEachTextIsDecodedOnce() {
        List<String> texts = new ArrayList<>();
        List<JobOptions> options = new ArrayList<>();
        for (int g = 0; g < 20; g++) {
            JobOptions o = JobOptions.builder()
                    .group("tenant-" + g)
                    .attempts(3)
                    .delay(Duration.ofMillis(g))
                    .build();
            options.add(o);
            texts.add(text.encode(o));
        }
        List<JobOptions> first = new ArrayList<>();
        for (String t : texts) {
            first.add(text.decode(new String(t)));
        }
        for (int g = 0; g < 20; g++) {
            JobOptions again = text.decode(new String(texts.get(g)));
            assertThat(again).isEqualTo(options.get(g)).isSameAs(first.get(g));
        }
    }

    @Test
    void aJobsOwnIdIsDecodedButNotKept() {
        JobOptions withId = JobOptions.builder().jobId("order-1").group("a").build();
        String encoded = text.encode(withId);

        JobOptions first = text.decode(encoded);
        JobOptions second = text.decode(encoded);

        assertThat(first).isEqualTo(withId);
        assertThat(second).isEqualTo(withId).isNotSameAs(first);
    }
}
