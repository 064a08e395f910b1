package dev.sluice.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Diagnostics read around a timed part of {@link QueueLocalBench}: the CPU time the whole process used (every
 * thread: the contenders', the JIT's and the collector's) and the bytes Java threads allocated.
 *
 * <p>CPU time: on Linux the sum over {@code /proc/self/task/}{@code *}{@code /schedstat} (nanosecond resolution;
 * a thread that exits meanwhile is missed), else the JVM's process CPU time (often 10 ms resolution).
 * Allocation: {@code com.sun.management.ThreadMXBean.getTotalThreadAllocatedBytes}, which counts virtual
 * threads' allocations on their carriers; -1 where unsupported.
 */
final class QueueMeter {
    private static final Path TASKS = Path.of("/proc/self/task");
    private static final boolean SCHEDSTAT =
            Files.isReadable(TASKS.resolve(Long.toString(ProcessHandle.current().pid())));
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /**
     * One timed part: wall nanoseconds, process CPU nanoseconds, bytes allocated (-1: unknown), and the
     * collections that ran meanwhile (count, and the collectors' accumulated time in milliseconds).
     */
    record Timing(long nanos, long cpuNanos, long allocatedBytes, long gcCount, long gcMillis) {}

    private final long cpu;
    private final long allocated;
    private final long gcCount;
    private final long gcMillis;
    private final long start;

    private QueueMeter() {
        gcCount = gcCount();
        gcMillis = gcMillis();
        cpu = cpuNanos(false);
        allocated = allocatedBytes();
        start = System.nanoTime();
    }

    /** Reads the meters, then starts the wall clock (reading them is not timed). */
    static QueueMeter start() {
        return new QueueMeter();
    }

    /** Stops the wall clock, then reads the meters again. */
    Timing stop() {
        long nanos = System.nanoTime() - start;
        long allocatedNow = allocatedBytes();
        long cpuNow = cpuNanos(true);
        long gcCountNow = gcCount();
        long gcMillisNow = gcMillis();
        return new Timing(
                nanos,
                cpuNow - cpu,
                allocated < 0 || allocatedNow < 0 ? -1 : allocatedNow - allocated,
                gcCountNow - gcCount,
                gcMillisNow - gcMillis);
    }

    private static long gcCount() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionCount());
        }
        return sum;
    }

    private static long gcMillis() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }

    static String cpuSource() {
        return SCHEDSTAT ? "sum of /proc/self/task/*/schedstat" : "OperatingSystemMXBean.getProcessCpuTime";
    }

    private static long allocatedBytes() {
        try {
            return THREADS.isThreadAllocatedMemorySupported() && THREADS.isThreadAllocatedMemoryEnabled()
                    ? THREADS.getTotalThreadAllocatedBytes()
                    : -1;
        } catch (UnsupportedOperationException e) {
            return -1;
        }
    }

    /**
     * The process's CPU time. The calling thread's own figure is read last when {@code selfFirst} is false (at
     * the start) and first when it is true (at the stop), so the time this thread spends reading the other
     * threads' figures falls outside the measured span.
     */
    private static long cpuNanos(boolean selfFirst) {
        if (!SCHEDSTAT) {
            return OS.getProcessCpuTime();
        }
        try {
            Path self = Path.of("/proc/thread-self").toRealPath();
            long sum = selfFirst ? schedstat(self) : 0;
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
                for (Path task : tasks) {
                    if (!task.getFileName().equals(self.getFileName())) {
                        sum += schedstat(task);
                    }
                }
            }
            return selfFirst ? sum : sum + schedstat(self);
        } catch (IOException e) {
            return OS.getProcessCpuTime();
        }
    }

    /** Nanoseconds the thread {@code task} has run, or 0 if it exited meanwhile. */
    private static long schedstat(Path task) {
        try {
            String line = Files.readString(task.resolve("schedstat"));
            int space = line.indexOf(' ');
            return Long.parseLong(space < 0 ? line.trim() : line.substring(0, space));
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }
}
