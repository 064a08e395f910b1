package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ResultTest {

    @Test
    void doneWithTextStoresUtf8AndNullStoresNothing() {
        assertThat(((Result.Done) Result.done("é")).value()).isEqualTo("é".getBytes(StandardCharsets.UTF_8));
        assertThat(((Result.Done) Result.done((String) null)).value()).isNull();
        assertThat(((Result.Done) Result.done()).value()).isNull();
    }

    @Test
    void doneWithTextRefusesAnUnpairedSurrogateAsThePayloadCodecDoes() {
        assertThatThrownBy(() -> Result.done("a\uD800"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("result")
                .hasMessageContaining("surrogate");
    }

    @Test
    void doneCopiesTheEncodedBytesInAndOut() {
        byte[] value = {1, 2};
        Result.Done done = (Result.Done) Result.done(value, Codec.bytes());
        value[0] = 9;
        done.value()[1] = 9;
        assertThat(done.value()).containsExactly(1, 2);

        byte[] raw = {3};
        Result.Done direct = new Result.Done(raw);
        raw[0] = 9;
        assertThat(direct.value()).containsExactly(3);
    }

    @Test
    void doneWrapsWhatTheCodecThrowsNamingTheCodec() {
        Codec<String> refusing = new Codec<>() {
            @Override
            public byte[] encode(String payload) {
                throw new IllegalStateException("no room");
            }

            @Override
            public String decode(byte[] bytes) {
                return "";
            }

            @Override
            public String toString() {
                return "refusing";
            }
        };
        assertThatThrownBy(() -> Result.done("x", refusing))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("refusing")
                .hasMessageContaining("no room")
                .hasCauseInstanceOf(IllegalStateException.class);
    }

    @Test
    void runAgainAfterTakesZeroToTheLongestDuration() {
        assertThat(((Result.RunAgain) Result.runAgainAfter(Duration.ZERO)).delay())
                .isZero();
        assertThat(((Result.RunAgain) Result.runAgainAfter(Durations.MAX)).delay())
                .isEqualTo(Durations.MAX);
        assertThatThrownBy(() -> Result.runAgainAfter(Durations.MAX.plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("runAgainAfter");
        assertThatThrownBy(() -> Result.runAgainAfter(Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1 ns");
    }

    @Test
    void toStringSaysWhatTheProcessorAnsweredWithoutTheResultBytes() {
        assertThat(Result.done()).hasToString("Result.done()");
        assertThat(Result.done("twelve bytes")).hasToString("Result.done(12 bytes)");
        assertThat(Result.runAgainAfter(Duration.ofMillis(2500))).hasToString("Result.runAgainAfter(2.5 s)");
        assertThat(Result.rateLimited(Result.Scope.GROUP, Duration.ofSeconds(30)))
                .hasToString("Result.rateLimited(GROUP, 30 s)");
    }

    @Test
    void rateLimitedRefusesANullScopeNamingTheChoices() {
        assertThatThrownBy(() -> Result.rateLimited(null, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rate-limit scope must be GROUP or QUEUE, was null");
        assertThatThrownBy(() -> Result.rateLimited(Result.Scope.QUEUE, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryAfter must be between 0 and about 73 years, was null");
        assertThatThrownBy(() -> Result.done("x", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("result codec must not be null");
    }

    @Test
    void resultsWithEqualBytesAreEqual() {
        assertThat(Result.done("a")).isEqualTo(Result.done("a")).hasSameHashCodeAs(Result.done("a"));
        assertThat(Result.done("a")).isNotEqualTo(Result.done("b"));
        assertThat(Result.done((String) null)).isEqualTo(Result.done()).isNotEqualTo(Result.done(""));
    }
}
