package dev.sluice.server.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;

/**
 * The dashboard's {@code jvm} section: this JVM's heap (used and max, bytes), live threads, uptime (ms), available
 * processors and Java version.
 */
public final class JvmSection implements EngineSection {
    @Override
    public String name() {
        return "jvm";
    }

    @Override
    public ObjectNode read() {
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        return JsonNodeFactory.instance
                .objectNode()
                .put("heapUsedBytes", heap.getUsed())
                .put("heapMaxBytes", heap.getMax())
                .put("threads", ManagementFactory.getThreadMXBean().getThreadCount())
                .put("uptimeMs", ManagementFactory.getRuntimeMXBean().getUptime())
                .put("processors", Runtime.getRuntime().availableProcessors())
                .put("javaVersion", Runtime.version().toString());
    }
}
