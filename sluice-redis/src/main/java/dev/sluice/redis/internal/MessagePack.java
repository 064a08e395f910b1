package dev.sluice.redis.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads the MessagePack that the queue library packs (Lua's {@code cmsgpack}) into the values Lettuce gives for
 * a script's reply, so that one decoder reads both: arrays as lists, integers as longs, strings and binaries as
 * byte arrays, nil and false as null, true as 1, and floats cut to longs (as Redis converts Lua numbers). A map
 * with integer keys (a Lua array with holes) becomes the list of its values at those positions, nulls between.
 */
final class MessagePack {
    private final byte[] in;
    private int at;

    private MessagePack(byte[] in) {
        this.in = in;
    }

    /**
     * The value packed in {@code bytes}.
     *
     * @throws IllegalStateException if the bytes are not one whole MessagePack value
     */
    static Object decode(byte[] bytes) {
        MessagePack reader = new MessagePack(bytes);
        try {
            Object value = reader.value();
            if (reader.at != bytes.length) {
                throw new IllegalStateException(
                        (bytes.length - reader.at) + " bytes follow the MessagePack value of " + bytes.length);
            }
            return value;
        } catch (ArrayIndexOutOfBoundsException e) {
            throw new IllegalStateException("MessagePack value cut short at byte " + reader.at, e);
        }
    }

    private Object value() {
        int b = in[at++] & 0xff;
        if (b <= 0x7f) {
            return (long) b;
        }
        if (b >= 0xe0) {
            return (long) (byte) b;
        }
        if (b >= 0xa0 && b <= 0xbf) {
            return bytes(b & 0x1f);
        }
        if (b >= 0x90 && b <= 0x9f) {
            return array(b & 0x0f);
        }
        if (b >= 0x80 && b <= 0x8f) {
            return map(b & 0x0f);
        }
        return switch (b) {
            case 0xc0, 0xc2 -> null;
            case 0xc3 -> 1L;
            case 0xc4, 0xd9 -> bytes(unsigned(1));
            case 0xc5, 0xda -> bytes(unsigned(2));
            case 0xc6, 0xdb -> bytes(length(unsigned(4)));
            case 0xca -> (long) Float.intBitsToFloat((int) unsigned(4));
            case 0xcb -> (long) Double.longBitsToDouble(unsigned(8));
            case 0xcc -> unsigned(1);
            case 0xcd -> unsigned(2);
            case 0xce -> unsigned(4);
            case 0xcf, 0xd3 -> unsigned(8);
            case 0xd0 -> (long) (byte) unsigned(1);
            case 0xd1 -> (long) (short) unsigned(2);
            case 0xd2 -> (long) (int) unsigned(4);
            case 0xdc -> array(unsigned(2));
            case 0xdd -> array(length(unsigned(4)));
            case 0xde -> map(unsigned(2));
            case 0xdf -> map(length(unsigned(4)));
            default ->
                throw new IllegalStateException(
                        "MessagePack type 0x" + Integer.toHexString(b) + " at byte " + (at - 1) + " is not read here");
        };
    }

    private long unsigned(int size) {
        long v = 0;
        for (int i = 0; i < size; i++) {
            v = (v << 8) | (in[at++] & 0xff);
        }
        return v;
    }

    private static long length(long n) {
        if (n > Integer.MAX_VALUE) {
            throw new IllegalStateException("MessagePack length " + n + " is too long");
        }
        return n;
    }

    private byte[] bytes(long n) {
        int from = at;
        at = Math.addExact(at, (int) n);
        if (at > in.length) {
            throw new ArrayIndexOutOfBoundsException(at);
        }
        return Arrays.copyOfRange(in, from, at);
    }

    private List<Object> array(long n) {
        List<Object> out = new ArrayList<>((int) Math.min(n, 64));
        for (long i = 0; i < n; i++) {
            out.add(value());
        }
        return out;
    }

    private List<Object> map(long n) {
        List<Object> out = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            Object key = value();
            Object item = value();
            if (!(key instanceof Long position) || position < 1 || position > 1 << 20) {
                throw new IllegalStateException("a MessagePack map with key " + key + " is not read here");
            }
            while (out.size() < position) {
                out.add(null);
            }
            out.set((int) (position - 1), item);
        }
        return out;
    }
}
