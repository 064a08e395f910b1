package dev.sluice.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limit.LimitPolicy;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The heap one idle key costs: its state and its map entry, the key string aside. Measured as a used-heap
 * difference after full collections against a control holding the same key strings (see {@link KeyMemory});
 * the readings are exact to the byte in practice (token bucket: 24 B state + 32 B map node + the key's share
 * of the map's table), so the bound leaves room without being vague.
 */
class KeyMemoryTest {
    private static final double MAX_BYTES_PER_KEY = 128;
    private static String[] keys;

    @BeforeAll
    static void allocateKeys() {
        keys = KeyMemory.keys(KeyMemory.KEYS);
    }

    @AfterAll
    static void releaseKeys() {
        keys = null;
    }

    static Stream<Arguments> constantSizePolicies() {
        return Stream.of("TokenBucket", "Gcra", "FixedWindow", "SlidingWindowCounter")
                .map(name -> Arguments.of(name, KeyMemory.policies().get(name)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("constantSizePolicies")
    void anIdleKeyCostsLessThan128Bytes(String name, LimitPolicy policy) {
        double perKey = KeyMemory.bytesPerKey(policy, keys, false, 1, 3);
        System.out.printf("%s: %.1f bytes per idle key (%,d keys)%n", name, perKey, keys.length);
        // At least a map node (32 B) and a state (16 B): below that, the measurement measured nothing.
        assertThat(perKey).isGreaterThanOrEqualTo(48).isLessThan(MAX_BYTES_PER_KEY);
    }
}
