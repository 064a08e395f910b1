package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

/** {@link Arithmetic} against {@link BigInteger} over the whole non-negative range. */
class ArithmeticTest {
    private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);

    static long floorReference(long a, long b, long c) {
        BigInteger q = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divide(BigInteger.valueOf(c));
        return q.min(MAX).longValueExact();
    }

    static long ceilReference(long a, long b, long c) {
        BigInteger[] qr =
                BigInteger.valueOf(a).multiply(BigInteger.valueOf(b)).divideAndRemainder(BigInteger.valueOf(c));
        BigInteger q = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
        return q.min(MAX).longValueExact();
    }

    /** Any non-negative long, with the edges (0, 1, powers of two, MAX) drawn often. */
    @Provide
    Arbitrary<Long> operand() {
        Arbitrary<Long> uniform = Arbitraries.longs().between(0, Long.MAX_VALUE);
        Arbitrary<Long> powers = Arbitraries.integers().between(0, 62).map(k -> 1L << k);
        Arbitrary<Long> nearPowers = Arbitraries.integers()
                .between(1, 63)
                .flatMap(k -> Arbitraries.longs().between(-3, 3).map(d -> ((1L << k) - 1) + d))
                .filter(v -> v >= 0);
        Arbitrary<Long> small = Arbitraries.longs().between(0, 1000);
        Arbitrary<Long> edges = Arbitraries.of(0L, 1L, 2L, Long.MAX_VALUE, Long.MAX_VALUE - 1, 1L << 31, 1L << 32);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, uniform),
                net.jqwik.api.Tuple.of(2, powers),
                net.jqwik.api.Tuple.of(2, nearPowers),
                net.jqwik.api.Tuple.of(2, small),
                net.jqwik.api.Tuple.of(1, edges));
    }

    @Provide
    Arbitrary<Long> divisor() {
        return operand().filter(c -> c > 0);
    }

    @Property(tries = 5000)
    void floorMatchesBigInteger(@ForAll("operand") long a, @ForAll("operand") long b, @ForAll("divisor") long c) {
        assertThat(Arithmetic.mulDivFloor(a, b, c)).isEqualTo(floorReference(a, b, c));
    }

    @Property(tries = 5000)
    void ceilMatchesBigInteger(@ForAll("operand") long a, @ForAll("operand") long b, @ForAll("divisor") long c) {
        assertThat(Arithmetic.mulDivCeil(a, b, c)).isEqualTo(ceilReference(a, b, c));
    }

    /**
     * Quotients in [2^62, 2^63) fit in a long even when the product does not: they must come back exact, not
     * saturated. Built as a = q, b = c + r, so that the product overflows and the quotient lands near q.
     */
    @Property(tries = 3000)
    void quotientsThatFitInALongAreExactEvenWhenTheProductOverflows(
            @ForAll @LongRange(min = 1L << 62, max = Long.MAX_VALUE) long a,
            @ForAll @LongRange(min = 2, max = 1L << 40) long c,
            @ForAll @LongRange(min = 0, max = 1) long extra) {
        long b = c + extra;
        assertThat(Arithmetic.mulDivFloor(a, b, c)).isEqualTo(floorReference(a, b, c));
        assertThat(Arithmetic.mulDivCeil(a, b, c)).isEqualTo(ceilReference(a, b, c));
    }

    @Property(tries = 2000)
    void ceilIsFloorOrOneMore(@ForAll("operand") long a, @ForAll("operand") long b, @ForAll("divisor") long c) {
        long floor = Arithmetic.mulDivFloor(a, b, c);
        long ceil = Arithmetic.mulDivCeil(a, b, c);
        if (floor == Long.MAX_VALUE) {
            assertThat(ceil).isEqualTo(Long.MAX_VALUE);
        } else {
            assertThat(ceil - floor).isBetween(0L, 1L);
        }
    }

    @Example
    void literalValues() {
        assertThat(Arithmetic.mulDivFloor(7, 3, 2)).isEqualTo(10);
        assertThat(Arithmetic.mulDivCeil(7, 3, 2)).isEqualTo(11);
        assertThat(Arithmetic.mulDivFloor(6, 3, 2)).isEqualTo(9);
        assertThat(Arithmetic.mulDivCeil(6, 3, 2)).isEqualTo(9);
        assertThat(Arithmetic.mulDivFloor(0, Long.MAX_VALUE, 1)).isZero();
        assertThat(Arithmetic.mulDivCeil(0, Long.MAX_VALUE, 1)).isZero();
        // 10 s of debt at 1 permit/s re-expressed at 100 permits/s: 100 ms
        assertThat(Arithmetic.mulDivCeil(10_000_000_000L, 10_000_000L, 1_000_000_000L))
                .isEqualTo(100_000_000L);
    }

    @Example
    void productOverflowWithAnExactQuotient() {
        // (2^62 · 6) / 3 = 2^63 does not fit: saturated.
        assertThat(Arithmetic.mulDivFloor(1L << 62, 6, 3)).isEqualTo(Long.MAX_VALUE);
        // MAX · MAX / MAX = MAX, although the product has 126 bits.
        assertThat(Arithmetic.mulDivFloor(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE))
                .isEqualTo(Long.MAX_VALUE);
        assertThat(Arithmetic.mulDivCeil(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE))
                .isEqualTo(Long.MAX_VALUE);
        // MAX · 3 / 4 = 6917529027641081855 (floor), ...856 (ceil): fits in a long, so exact.
        assertThat(Arithmetic.mulDivFloor(Long.MAX_VALUE, 3, 4)).isEqualTo(6_917_529_027_641_081_855L);
        assertThat(Arithmetic.mulDivCeil(Long.MAX_VALUE, 3, 4)).isEqualTo(6_917_529_027_641_081_856L);
        // 2^62 · 4 / 4 = 2^62, the product 2^64 overflows.
        assertThat(Arithmetic.mulDivFloor(1L << 62, 4, 4)).isEqualTo(1L << 62);
        assertThat(Arithmetic.mulDivCeil(1L << 62, 4, 4)).isEqualTo(1L << 62);
        // A product of exactly 2^63 (just past Long.MAX_VALUE) divided back.
        assertThat(Arithmetic.mulDivFloor(1L << 62, 2, 2)).isEqualTo(1L << 62);
        assertThat(Arithmetic.mulDivFloor(1L << 62, 2, 3)).isEqualTo(3_074_457_345_618_258_602L);
        assertThat(Arithmetic.mulDivCeil(1L << 62, 2, 3)).isEqualTo(3_074_457_345_618_258_603L);
    }

    @Example
    void saturatesAtLongMaxValue() {
        assertThat(Arithmetic.mulDivFloor(Long.MAX_VALUE, Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(Arithmetic.mulDivCeil(Long.MAX_VALUE, Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(Arithmetic.mulDivFloor(Long.MAX_VALUE, 2, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(Arithmetic.mulDivCeil(Long.MAX_VALUE, 2, 2)).isEqualTo(Long.MAX_VALUE);
        assertThat(Arithmetic.mulDivFloor(Long.MAX_VALUE, 1, 1)).isEqualTo(Long.MAX_VALUE);
        // MAX · (2^40 + 1) / 2^40 is just above MAX: saturated, not wrapped.
        assertThat(Arithmetic.mulDivFloor(Long.MAX_VALUE, (1L << 40) + 1, 1L << 40))
                .isEqualTo(Long.MAX_VALUE);
        assertThat(Arithmetic.mulDivCeil(Long.MAX_VALUE, (1L << 40) + 1, 1L << 40))
                .isEqualTo(Long.MAX_VALUE);
    }
}
