package dev.sluice.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.queue.JobState;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class JobCursorTest {
    private static String encoded(byte... bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    @Test
    void aCursorReadsBackAsTheSamePlaceWithOrWithoutAGroup() {
        JobCursor grouped = new JobCursor(JobState.WAITING, "tenant-ü/1", -7, 4_503_599_627_370_497L, "job:1");
        JobCursor plain = new JobCursor(JobState.COMPLETED, null, Long.MAX_VALUE, 0, "");

        assertThat(JobCursor.read(grouped.text(), JobState.WAITING)).isEqualTo(grouped);
        assertThat(JobCursor.read(plain.text(), JobState.COMPLETED)).isEqualTo(plain);
        assertThat(grouped.text()).matches("[A-Za-z0-9_-]+");
    }

    @Test
    void noCursorIsTheFirstPage() {
        assertThat(JobCursor.read(null, JobState.DELAYED)).isNull();
    }

    @Test
    void aCursorOfAnotherStateIsRefusedNamingBoth() {
        String delayed = new JobCursor(JobState.DELAYED, null, 1, 2, "a").text();

        assertThatThrownBy(() -> JobCursor.read(delayed, JobState.FAILED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cursor was given for DELAYED jobs; a page of FAILED jobs needs its own");
    }

    @Test
    void malformedCursorsAreRefusedSayingWhatIsWrong() {
        String good = new JobCursor(JobState.ACTIVE, null, 1, 2, "a").text();
        byte[] bytes = Base64.getUrlDecoder().decode(good);

        assertThatThrownBy(() -> JobCursor.read("a+b/c=", JobState.ACTIVE))
                .hasMessageContaining("cursor 'a+b/c=' is malformed: it is not the base64url text a page gives");
        assertThatThrownBy(() -> JobCursor.read(good.substring(0, good.length() - 2), JobState.ACTIVE))
                .hasMessageContaining("is malformed: it is cut short or garbled");
        assertThatThrownBy(() -> JobCursor.read(encoded(), JobState.ACTIVE))
                .hasMessageContaining("it is cut short or garbled");
        bytes[0] = 9;
        assertThatThrownBy(() -> JobCursor.read(encoded(bytes), JobState.ACTIVE))
                .hasMessageContaining("its version is 9, not 1");
        bytes[0] = 1;
        bytes[1] = 5;
        assertThatThrownBy(() -> JobCursor.read(encoded(bytes), JobState.ACTIVE))
                .hasMessageContaining("it names no state");
        byte[] longer = java.util.Arrays.copyOf(Base64.getUrlDecoder().decode(good), bytes.length + 2);
        assertThatThrownBy(() -> JobCursor.read(encoded(longer), JobState.ACTIVE))
                .hasMessageContaining("it has 2 bytes too many");
        String long60 = "x".repeat(60);
        assertThatThrownBy(() -> JobCursor.read(long60, JobState.ACTIVE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cursor '" + "x".repeat(40) + "...' is malformed")
                .hasMessageEndingWith("pass the 'next' of a page, or null for the first page");
    }
}
