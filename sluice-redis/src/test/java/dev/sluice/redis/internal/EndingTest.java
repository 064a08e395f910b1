package dev.sluice.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.internal.queue.AttemptEnd;
import dev.sluice.queue.Result;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How an attempt's end becomes the arguments of the script's finish command (queue-finish.lua's endOne). */
class EndingTest {
    @Test
    void aDoneResultCompletesWithItsBytes() {
        Ending ending = Ending.of(new AttemptEnd.Completed("ok".getBytes(StandardCharsets.UTF_8)), "j", 0);

        assertThat(ending.how()).isEqualTo("c");
        assertThat(ending.args()).isEmpty();
        assertThat(new String(ending.value(), StandardCharsets.UTF_8)).isEqualTo("ok");
    }

    @Test
    void aRateLimitedResultNamesItsScopeAndWaitInMicroseconds() {
        Result.RateLimited limited =
                (Result.RateLimited) Result.rateLimited(Result.Scope.GROUP, Duration.ofMillis(1500));

        Ending ending = Ending.of(new AttemptEnd.RateLimited(limited), "j", 0);

        assertThat(ending.how()).isEqualTo("r");
        assertThat(ending.args()).containsExactly("GROUP", "1500000", "rate limited (GROUP) for 1.5 s");
        assertThat(ending.detail()).isSameAs(limited);
    }

    @Test
    void runningAgainGivesItsDelayInMicroseconds() {
        Ending ending = Ending.of(new AttemptEnd.RunAgain(Duration.ofSeconds(7)), "j", 0);

        assertThat(ending.how()).isEqualTo("a");
        assertThat(ending.args()).containsExactly("7000000");
        assertThat(ending.detail()).isEqualTo(Duration.ofSeconds(7));
    }

    @Test
    void aFailureForGoodIsNotRetriedAndCarriesTheErrorsClassAndTrace() {
        IllegalStateException error = new IllegalStateException("boom");

        Ending ending = Ending.of(new AttemptEnd.Failed(error, "boom", null), "j", 0);

        assertThat(ending.how()).isEqualTo("f");
        List<String> args = ending.args();
        assertThat(args.get(0)).isEqualTo("FAILED");
        assertThat(args.get(1)).isEqualTo("boom");
        assertThat(args.get(2)).isEqualTo(IllegalStateException.class.getName());
        assertThat(args.get(3))
                .startsWith("java.lang.IllegalStateException: boom")
                .contains("\tat ");
        assertThat(args.get(4)).as("no retry").isEqualTo("-1");
        assertThat(ending.error()).isSameAs(error);
    }

    @Test
    void aTimedOutAttemptRetriedLaterGivesTheDelayAndNoErrorClass() {
        Ending ending = Ending.of(new AttemptEnd.TimedOut("timed out after 1 s", Duration.ofMillis(250)), "j", 0);

        assertThat(ending.args()).containsExactly("TIMED_OUT", "timed out after 1 s", "", "", "250000");
        assertThat(ending.detail()).isEqualTo(Duration.ofMillis(250));
    }
}
