package dev.sluice.internal.limit;

import java.math.BigInteger;

/** Exact {@code a × b / c} for non-negative operands whose product may not fit in a long. */
final class Arithmetic {
    private Arithmetic() {}

    static long mulDivFloor(long a, long b, long c) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        if (high == 0 && low >= 0) {
            return low / c;
        }
        return saturate(BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divide(BigInteger.valueOf(c)));
    }

    static long mulDivCeil(long a, long b, long c) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        if (high == 0 && low >= 0) {
            return Math.ceilDiv(low, c);
        }
        BigInteger[] quotient =
                BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divideAndRemainder(BigInteger.valueOf(c));
        return saturate(quotient[1].signum() == 0 ? quotient[0] : quotient[0].add(BigInteger.ONE));
    }

    private static long saturate(BigInteger value) {
        return value.bitLength() <= 63 ? value.longValue() : Long.MAX_VALUE;
    }
}
