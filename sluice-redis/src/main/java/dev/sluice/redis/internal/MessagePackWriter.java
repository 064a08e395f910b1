package dev.sluice.redis.internal;

import java.util.Arrays;

/**
 * Packs values as MessagePack in the very bytes the queue library's {@code cmsgpack} packs them to (the smallest
 * form of each integer and string length, {@code false} as 0xc2), so that Lua can join what Java packed with what it
 * packs itself into one value that reads as if Lua had packed it whole ({@link AddFields}: a new job's record).
 */
final class MessagePackWriter {
    private byte[] out = new byte[64];
    private int size;

    /** The header of an array of {@code n} values, which the next {@code n} values written fill. */
    MessagePackWriter array(int n) {
        if (n <= 15) {
            return raw(0x90 | n);
        }
        if (n <= 0xffff) {
            return raw(0xdc).fixed(n, 2);
        }
        return raw(0xdd).fixed(n, 4);
    }

    MessagePackWriter integer(long n) {
        if (n >= 0) {
            if (n <= 0x7f) {
                return raw((int) n);
            }
            if (n <= 0xff) {
                return raw(0xcc).fixed(n, 1);
            }
            if (n <= 0xffff) {
                return raw(0xcd).fixed(n, 2);
            }
            if (n <= 0xffff_ffffL) {
                return raw(0xce).fixed(n, 4);
            }
            return raw(0xcf).fixed(n, 8);
        }
        if (n >= -32) {
            return raw((int) n & 0xff);
        }
        if (n >= Byte.MIN_VALUE) {
            return raw(0xd0).fixed(n, 1);
        }
        if (n >= Short.MIN_VALUE) {
            return raw(0xd1).fixed(n, 2);
        }
        if (n >= Integer.MIN_VALUE) {
            return raw(0xd2).fixed(n, 4);
        }
        return raw(0xd3).fixed(n, 8);
    }

    /** A string of the UTF-8 bytes {@code s}. */
    MessagePackWriter string(byte[] s) {
        int n = s.length;
        if (n <= 31) {
            raw(0xa0 | n);
        } else if (n <= 0xff) {
            raw(0xd9).fixed(n, 1);
        } else if (n <= 0xffff) {
            raw(0xda).fixed(n, 2);
        } else {
            raw(0xdb).fixed(n, 4);
        }
        room(n);
        System.arraycopy(s, 0, out, size, n);
        size += n;
        return this;
    }

    MessagePackWriter falseValue() {
        return raw(0xc2);
    }

    /** What was written. */
    byte[] toBytes() {
        return Arrays.copyOf(out, size);
    }

    private MessagePackWriter raw(int b) {
        room(1);
        out[size++] = (byte) b;
        return this;
    }

    private MessagePackWriter fixed(long n, int bytes) {
        room(bytes);
        for (int i = bytes - 1; i >= 0; i--) {
            out[size++] = (byte) (n >>> (8 * i));
        }
        return this;
    }

    private void room(int n) {
        if (size + n > out.length) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, size + n));
        }
    }
}
