package dev.sluice.queue;

import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * Turns payloads into bytes and back. Every engine stores a job's payload in its encoded form, so a payload
 * the codec cannot encode is refused when the job is added, on every engine alike, and a producer that
 * changes its payload object after adding it does not change the job.
 *
 * <p>Implementations must be thread-safe, and {@code decode(encode(p))} must equal {@code p}.
 *
 * <p>A codec's identity is its {@link #name()}: a queue remembers the name of the codec it was opened with, and
 * every later opening, in this process or another one sharing the engine's store, must give a codec of the same
 * name. Neither {@code equals} nor {@code toString} plays any part.
 *
 * @param <T> the payload type
 */
public interface Codec<T> {
    /** The longest {@link #name()}, in characters. */
    int MAX_NAME_LENGTH = 200;

    /**
     * The bytes of {@code payload}.
     *
     * @param payload a payload, or a result value
     * @return its bytes, not null; the engine keeps them, so they must not change afterwards
     * @throws RuntimeException if the payload cannot be encoded; the add that asked fails with an {@link
     *     IllegalArgumentException} naming the job and carrying this cause
     */
    byte[] encode(T payload);

    /**
     * The payload {@code bytes} encode.
     *
     * @param bytes what {@link #encode} returned, never null
     * @return the payload
     * @throws RuntimeException if the bytes cannot be decoded
     */
    T decode(byte[] bytes);

    /**
     * This codec's stable identity: the same in every process and across restarts, and different for codecs whose
     * bytes differ. A queue keeps the name it was opened with, and opening it with a codec of another name throws.
     *
     * <p>Defaults to the binary name of the codec's class, which is stable for a named class. Override it when one
     * class serves several formats (one instance per payload type, say), when a class is renamed but its bytes are
     * not, or to name a new version of a format ({@code "point-v2"}).
     *
     * @return 1 to {@value #MAX_NAME_LENGTH} characters, not blank
     */
    default String name() {
        return getClass().getName();
    }

    /**
     * A codec named {@code name} made of two functions, for payload types that have their own conversion to and
     * from bytes.
     *
     * @param name the codec's identity, see {@link #name()}: 1 to 200 characters, not blank
     * @param encode the payload's bytes; must not return null
     * @param decode the payload of the bytes {@code encode} returned
     * @param <T> the payload type
     * @return the codec
     * @throws IllegalArgumentException if {@code name} is null, blank or longer than 200 characters, or a function is
     *     null
     */
    static <T> Codec<T> of(String name, Function<? super T, byte[]> encode, Function<byte[], ? extends T> decode) {
        return new FunctionCodec<>(name, encode, decode);
    }

    /**
     * Strings as UTF-8. Refuses null and strings with unpaired surrogates, which UTF-8 cannot carry.
     *
     * @return the codec, always the same instance
     */
    static Codec<String> utf8() {
        return Utf8Codec.INSTANCE;
    }

    /**
     * Byte arrays as they are (copied in and out). Refuses null.
     *
     * @return the codec, always the same instance
     */
    static Codec<byte[]> bytes() {
        return BytesCodec.INSTANCE;
    }
}

final class Utf8Codec implements Codec<String> {
    static final Utf8Codec INSTANCE = new Utf8Codec();

    @Override
    public byte[] encode(String payload) {
        if (payload == null) {
            throw new IllegalArgumentException("the UTF-8 codec cannot encode null");
        }
        for (int i = 0, n = payload.length(); i < n; i++) {
            char c = payload.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(payload.charAt(i + 1))) {
                    i++;
                } else {
                    throw new IllegalArgumentException(
                            "the UTF-8 codec cannot encode an unpaired surrogate at index " + i);
                }
            }
        }
        return payload.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String decode(byte[] bytes) {
        if (bytes == null) {
            throw new IllegalArgumentException("the UTF-8 codec cannot decode null");
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public String name() {
        return "utf8";
    }

    @Override
    public String toString() {
        return "Codec.utf8()";
    }
}

final class BytesCodec implements Codec<byte[]> {
    static final BytesCodec INSTANCE = new BytesCodec();

    @Override
    public byte[] encode(byte[] payload) {
        if (payload == null) {
            throw new IllegalArgumentException("the bytes codec cannot encode null");
        }
        return payload.clone();
    }

    @Override
    public byte[] decode(byte[] bytes) {
        if (bytes == null) {
            throw new IllegalArgumentException("the bytes codec cannot decode null");
        }
        return bytes.clone();
    }

    @Override
    public String name() {
        return "bytes";
    }

    @Override
    public String toString() {
        return "Codec.bytes()";
    }
}

final class FunctionCodec<T> implements Codec<T> {
    private final String name;
    private final Function<? super T, byte[]> encode;
    private final Function<byte[], ? extends T> decode;

    FunctionCodec(String name, Function<? super T, byte[]> encode, Function<byte[], ? extends T> decode) {
        if (name == null || name.isBlank() || name.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("Codec.of: its name must be 1 to " + MAX_NAME_LENGTH
                    + " characters, not blank, was " + (name == null ? "null" : "'" + name + "'"));
        }
        if (encode == null || decode == null) {
            throw new IllegalArgumentException("codec '" + name + "': its " + (encode == null ? "encode" : "decode")
                    + " function must not be null");
        }
        this.name = name;
        this.encode = encode;
        this.decode = decode;
    }

    @Override
    public byte[] encode(T payload) {
        byte[] bytes = encode.apply(payload);
        if (bytes == null) {
            throw new IllegalArgumentException("codec '" + name + "' encoded a payload as null");
        }
        return bytes;
    }

    @Override
    public T decode(byte[] bytes) {
        return decode.apply(bytes);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "Codec.of(" + name + ")";
    }
}
