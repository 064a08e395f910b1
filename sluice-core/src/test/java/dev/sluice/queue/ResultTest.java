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
                .hasMessageContaining("-0.000000001");
    }
}
