package dev.sluice.internal.queue;

import dev.sluice.queue.Codec;

/**
 * The payload a processor sees: decoded by the queue's codec when the processor (or whoever else needs it) first
 * asks for it, once, whichever thread asks. A payload the codec cannot decode fails its own job for good ({@link
 * Undecodable}), and nothing else.
 */
public final class LazyPayload<T> {
    private final String jobId;
    private final byte[] bytes;
    private final Codec<T> codec;
    private T payload;
    private boolean decoded;

    /** The payload {@code bytes} of job {@code jobId}, to decode with {@code codec}. */
    public LazyPayload(String jobId, byte[] bytes, Codec<T> codec) {
        this.jobId = jobId;
        this.bytes = bytes;
        this.codec = codec;
    }

    /**
     * The decoded payload, decoded once.
     *
     * @throws Undecodable if the codec cannot decode it
     */
    public synchronized T get() {
        if (!decoded) {
            try {
                payload = codec.decode(bytes);
            } catch (RuntimeException e) {
                throw new Undecodable(
                        "the payload of job '" + jobId + "' cannot be decoded by " + codec + ": " + e
                                + "; the job fails for good, its bytes stay readable by payloadBytes",
                        e);
            }
            decoded = true;
        }
        return payload;
    }

    /**
     * Thrown to the processor that asks for a payload the codec cannot decode: the job fails for good, with the
     * codec's exception as its cause.
     */
    public static final class Undecodable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Undecodable(String message, RuntimeException cause) {
            super(message, cause);
        }
    }
}
