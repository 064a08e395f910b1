package dev.sluice.internal.limit;

import dev.sluice.limit.LimitPolicy;
import java.util.Map;

/**
 * Prints the heap retained per key for every policy, idle and busy (one permit taken). Run from
 * sluice-core after {@code ./mvnw -pl sluice-core test-compile}:
 *
 * <pre>java -cp target/classes:target/test-classes dev.sluice.internal.limit.KeyMemoryProbe</pre>
 */
public final class KeyMemoryProbe {
    private KeyMemoryProbe() {}

    public static void main(String[] args) {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : KeyMemory.KEYS;
        String[] keys = KeyMemory.keys(count);
        System.out.printf(
                "%,d keys, %s, %s%n", count, System.getProperty("java.vm.name"), System.getProperty("java.version"));
        System.out.printf("%-22s %12s %12s%n", "policy", "idle B/key", "busy B/key");
        for (Map.Entry<String, LimitPolicy> entry : KeyMemory.policies().entrySet()) {
            double idle = KeyMemory.bytesPerKey(entry.getValue(), keys, false, 3, 4);
            double busy = KeyMemory.bytesPerKey(entry.getValue(), keys, true, 3, 4);
            System.out.printf("%-22s %12.1f %12.1f%n", entry.getKey(), idle, busy);
        }
        java.lang.ref.Reference.reachabilityFence(keys);
    }
}
