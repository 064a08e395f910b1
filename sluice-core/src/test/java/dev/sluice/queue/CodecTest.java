package dev.sluice.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;

class CodecTest {
    private final Codec<String> utf8 = Codec.utf8();
    private final Codec<byte[]> bytes = Codec.bytes();

    /** Any Unicode scalar value (no surrogate code points), weighted towards ASCII, BMP and supplementary. */
    private static Arbitrary<Integer> scalarValues() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.integers().between(0, 0x7F)),
                Tuple.of(2, Arbitraries.integers().between(0x80, 0xD7FF)),
                Tuple.of(1, Arbitraries.integers().between(0xE000, 0xFFFF)),
                Tuple.of(3, Arbitraries.integers().between(0x10000, 0x10FFFF)));
    }

    private static String fromCodePoints(List<Integer> codePoints) {
        StringBuilder s = new StringBuilder();
        codePoints.forEach(s::appendCodePoint);
        return s.toString();
    }

    @Provide
    Arbitrary<List<Integer>> codePoints() {
        return scalarValues().list().ofMaxSize(60);
    }

    @Property(tries = 1000)
    void utf8RoundTripsEveryValidString(@ForAll("codePoints") List<Integer> codePoints) {
        String text = fromCodePoints(codePoints);

        byte[] encoded = utf8.encode(text);

        assertThat(encoded).isEqualTo(text.getBytes(StandardCharsets.UTF_8));
        assertThat(utf8.decode(encoded)).isEqualTo(text);
    }

    @Property(tries = 500)
    void utf8RejectsALoneSurrogateAnywhereNamingItsIndex(
            @ForAll("codePoints") List<Integer> before,
            @ForAll("codePoints") List<Integer> after,
            @ForAll("loneSurrogates") char surrogate) {
        String prefix = fromCodePoints(before);
        String text = prefix + surrogate + fromCodePoints(after);

        assertThatThrownBy(() -> utf8.encode(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the UTF-8 codec cannot encode an unpaired surrogate at index " + prefix.length());
    }

    @Provide
    Arbitrary<Character> loneSurrogates() {
        return Arbitraries.chars().range(Character.MIN_SURROGATE, Character.MAX_SURROGATE);
    }

    @Test
    void utf8EncodesSupplementaryCharactersAsFourBytes() {
        String text = "a\u00e9\u20ac\uD83D\uDE00"; // a, e-acute, euro sign, grinning face U+1F600

        byte[] encoded = utf8.encode(text);

        assertThat(encoded).containsExactly(0x61, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80);
        assertThat(utf8.decode(encoded)).isEqualTo(text);
    }

    @Test
    void utf8RoundTripsTheEmptyString() {
        assertThat(utf8.encode("")).isEmpty();
        assertThat(utf8.decode(new byte[0])).isEmpty();
    }

    @Test
    void utf8RejectsSurrogatesInTheWrongOrderAtTheFirstBadIndex() {
        // a low surrogate before a high one pairs with nothing
        assertThatThrownBy(() -> utf8.encode("ab\uDE00\uD83D"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the UTF-8 codec cannot encode an unpaired surrogate at index 2");
        assertThatThrownBy(() -> utf8.encode("\uD83D\uD83D\uDE00"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the UTF-8 codec cannot encode an unpaired surrogate at index 0");
        assertThatThrownBy(() -> utf8.encode("x\uD83D"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the UTF-8 codec cannot encode an unpaired surrogate at index 1");
    }

    @Test
    void utf8RejectsNullWithAClearMessage() {
        assertThatThrownBy(() -> utf8.encode(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the UTF-8 codec cannot encode null");
    }

    @Test
    void utf8DecodeIsIndependentOfTheCallersArray() {
        byte[] encoded = utf8.encode("hello");

        String decoded = utf8.decode(encoded);
        encoded[0] = 'j';

        assertThat(decoded).isEqualTo("hello");
    }

    @Property(tries = 300)
    void bytesRoundTripsEveryArray(@ForAll byte[] payload) {
        assertThat(bytes.decode(bytes.encode(payload))).isEqualTo(payload);
    }

    @Test
    void bytesCopiesOnEncodeSoTheProducerCanReuseItsArray() {
        byte[] payload = {1, 2, 3};

        byte[] encoded = bytes.encode(payload);
        payload[0] = 9;

        assertThat(encoded).containsExactly(1, 2, 3).isNotSameAs(payload);
    }

    @Test
    void bytesCopiesOnDecodeSoAConsumerCannotChangeTheStoredJob() {
        byte[] stored = {4, 5, 6};

        byte[] first = bytes.decode(stored);
        first[0] = 0;
        byte[] second = bytes.decode(stored);

        assertThat(stored).containsExactly(4, 5, 6);
        assertThat(second).containsExactly(4, 5, 6).isNotSameAs(first).isNotSameAs(stored);
    }

    @Test
    void bytesRejectsNullWithAClearMessage() {
        assertThatThrownBy(() -> bytes.encode(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the bytes codec cannot encode null");
    }

    @Test
    void codecsAreSingletonsThatNameThemselves() {
        assertThat(Codec.utf8()).isSameAs(utf8).hasToString("Codec.utf8()");
        assertThat(Codec.bytes()).isSameAs(bytes).hasToString("Codec.bytes()");
    }

    @Test
    void decodingNullIsAnIllegalArgumentNamingTheCodec() {
        assertThatThrownBy(() -> utf8.decode(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the UTF-8 codec cannot decode null");
        assertThatThrownBy(() -> bytes.decode(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the bytes codec cannot decode null");
    }
}
