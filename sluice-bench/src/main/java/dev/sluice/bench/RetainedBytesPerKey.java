package dev.sluice.bench;

import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Heap bytes each library retains per idle key, not counting the key strings.
 *
 * <p>For each library: with 200,000 key strings already live and the library's empty structure created, the
 * used heap after several full GCs is the baseline; then every key is used once (one permit, so each key gets
 * its state) and left idle, and the used heap after several full GCs is measured again. The difference divided
 * by the number of keys is the figure. Peers keep one limiter per key in a ConcurrentHashMap, as in {@link
 * LocalLimiterBench}; Sluice keeps its own table. Run with a fixed heap and the serial collector (e.g. {@code
 * -Xms2g -Xmx2g -XX:+UseSerialGC}) so that a full GC leaves nothing but live objects.
 *
 * <p>Usage: {@code RetainedBytesPerKey [run-number]} prints one JSON line per library; {@code
 * RetainedBytesPerKey --summarize FILE} reads such lines and prints one JSON document with every run and the
 * median per library.
 */
public final class RetainedBytesPerKey {
    static final int KEYS = 200_000;
    static final String[] LIBRARIES = {Contender.SLUICE, Contender.BUCKET4J, Contender.RESILIENCE4J, Contender.GUAVA};

    private RetainedBytesPerKey() {}

    public static void main(String[] args) throws IOException {
        if (args.length == 2 && args[0].equals("--summarize")) {
            System.out.println(summarize(Files.readAllLines(Path.of(args[1]))));
            return;
        }
        int run = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        String[] keys = Keys.distinct(KEYS);
        for (String library : LIBRARIES) {
            System.out.println(measure(run, library, keys));
        }
        Reference.reachabilityFence(keys);
    }

    static String measure(int run, String library, String[] keys) {
        Contender contender = Contender.keyed(library, Regime.throttled);
        long baseline = usedHeapAfterGc();
        contender.populate(keys);
        long used = usedHeapAfterGc();
        Reference.reachabilityFence(contender);
        Reference.reachabilityFence(keys);
        double perKey = (double) (used - baseline) / keys.length;
        return String.format(
                java.util.Locale.ROOT,
                "{\"run\":%d,\"library\":\"%s\",\"keys\":%d,\"baselineBytes\":%d,\"usedBytes\":%d,\"bytesPerKey\":%.1f}",
                run,
                library,
                keys.length,
                baseline,
                used,
                perKey);
    }

    /** The used heap once repeated full GCs have stopped changing it. */
    static long usedHeapAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        long previous = Long.MAX_VALUE;
        long used = 0;
        for (int i = 0; i < 10; i++) {
            System.gc();
            used = runtime.totalMemory() - runtime.freeMemory();
            if (i >= 3 && used == previous) {
                break;
            }
            previous = used;
        }
        return used;
    }

    static String summarize(List<String> lines) {
        Pattern line = Pattern.compile("\"library\":\"([a-z0-9]+)\".*\"bytesPerKey\":([0-9.]+)");
        Map<String, List<Double>> perLibrary = new LinkedHashMap<>();
        List<String> runs = new ArrayList<>();
        for (String text : lines) {
            Matcher m = line.matcher(text);
            if (m.find()) {
                runs.add(text.strip());
                perLibrary.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(Double.parseDouble(m.group(2)));
            }
        }
        StringBuilder out = new StringBuilder();
        out.append("{\n  \"description\": \"heap bytes retained per idle key, key strings excluded; ")
                .append(KEYS)
                .append(" keys, each used once; median of the runs\",\n");
        out.append("  \"jvm\": \"")
                .append(System.getProperty("java.vm.name"))
                .append(' ')
                .append(System.getProperty("java.version"))
                .append("\",\n");
        out.append("  \"medianBytesPerKey\": {");
        String separator = "";
        for (Map.Entry<String, List<Double>> e : perLibrary.entrySet()) {
            List<Double> values = new ArrayList<>(e.getValue());
            values.sort(null);
            double median = values.size() % 2 == 1
                    ? values.get(values.size() / 2)
                    : (values.get(values.size() / 2 - 1) + values.get(values.size() / 2)) / 2;
            out.append(separator)
                    .append('"')
                    .append(e.getKey())
                    .append("\": ")
                    .append(String.format(java.util.Locale.ROOT, "%.1f", median));
            separator = ", ";
        }
        out.append("},\n  \"runs\": [\n    ");
        out.append(String.join(",\n    ", runs));
        out.append("\n  ]\n}");
        return out.toString();
    }
}
