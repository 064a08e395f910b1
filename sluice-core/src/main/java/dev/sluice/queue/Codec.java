package dev.sluice.queue;

import java.nio.charset.StandardCharsets;

/**
 * Turns payloads into bytes and back. Every engine stores a job's payload in its encoded form, so a payload
 * the codec cannot encode is refused when the job is added, on every engine alike, and a producer that
 * changes its payload object after adding it does not change the job.
 *
 * <p>Implementations must be thread-safe, and {@code decode(encode(p))} must equal {@code p}.
 *
 * @param <T> the payload type
 */
public interface Codec<T> {
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
    public String toString() {
        return "Codec.bytes()";
    }
}
