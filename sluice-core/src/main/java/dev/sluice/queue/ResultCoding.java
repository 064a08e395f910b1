package dev.sluice.queue;

/** Encoding and decoding of job results with the codec the caller names, and the messages when that fails. */
final class ResultCoding {
    private ResultCoding() {}

    static <R> byte[] encode(Codec<R> codec, R value) {
        if (codec == null) {
            throw new IllegalArgumentException("result codec must not be null; use Codec.utf8() or Codec.bytes()");
        }
        byte[] bytes;
        try {
            bytes = codec.encode(value);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("the result cannot be encoded by " + codec + ": " + e.getMessage(), e);
        }
        if (bytes == null) {
            throw new IllegalArgumentException("the result cannot be encoded: " + codec + " returned null");
        }
        return bytes;
    }

    static <R> R decode(Codec<R> codec, byte[] bytes, String jobId) {
        if (codec == null) {
            throw new IllegalArgumentException("result codec must not be null; use Codec.utf8() or Codec.bytes()");
        }
        if (bytes == null) {
            return null;
        }
        try {
            return codec.decode(bytes.clone());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "the result of job '" + jobId + "' cannot be decoded by " + codec + ": " + e.getMessage(), e);
        }
    }
}
