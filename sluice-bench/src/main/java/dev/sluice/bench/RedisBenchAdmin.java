package dev.sluice.bench;

import io.lettuce.core.FlushMode;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark's own look at the Redis server, on a client of its own (so that none of this is counted as a
 * contender's round trip): {@code INFO} figures, {@code MEMORY USAGE}, {@code SCAN}, {@code FLUSHALL}.
 */
final class RedisBenchAdmin implements AutoCloseable {
    /** CPU seconds the Redis process has used since it started: all threads, and its main thread alone. */
    record CpuSeconds(double process, double mainThread) {}

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> commands;

    RedisBenchAdmin(String uri) {
        client = RedisClient.create(uri);
        connection = client.connect(StringCodec.UTF8);
        commands = connection.sync();
    }

    /** The {@code field:value} lines of one {@code INFO} section. */
    Map<String, String> info(String section) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : commands.info(section).split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    /**
     * {@code used_cpu_sys + used_cpu_user} of {@code INFO cpu} (and the same for the main thread, where the
     * server reports it; else NaN).
     */
    CpuSeconds cpuSeconds() {
        Map<String, String> cpu = info("cpu");
        double process = Double.parseDouble(cpu.get("used_cpu_sys")) + Double.parseDouble(cpu.get("used_cpu_user"));
        String mainSys = cpu.get("used_cpu_sys_main_thread");
        String mainUser = cpu.get("used_cpu_user_main_thread");
        double main = mainSys == null || mainUser == null
                ? Double.NaN
                : Double.parseDouble(mainSys) + Double.parseDouble(mainUser);
        return new CpuSeconds(process, main);
    }

    /** {@code used_memory} of {@code INFO memory}: bytes the allocator holds for the server. */
    long usedMemory() {
        return Long.parseLong(info("memory").get("used_memory"));
    }

    /** The server's {@code redis_version}. */
    String version() {
        return info("server").get("redis_version");
    }

    /** Every key matching {@code pattern}, by {@code SCAN}. */
    List<String> scan(String pattern) {
        List<String> keys = new ArrayList<>();
        ScanArgs args = ScanArgs.Builder.matches(pattern).limit(1000);
        KeyScanCursor<String> cursor = commands.scan(args);
        keys.addAll(cursor.getKeys());
        while (!cursor.isFinished()) {
            cursor = commands.scan(ScanCursor.of(cursor.getCursor()), args);
            keys.addAll(cursor.getKeys());
        }
        return keys;
    }

    /** {@code MEMORY USAGE key SAMPLES 0}: every element counted, not estimated from a sample. */
    long memoryUsage(String key) {
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8)
                .add("USAGE")
                .addKey(key)
                .add("SAMPLES")
                .add(0);
        Long bytes = commands.dispatch(CommandType.MEMORY, new IntegerOutput<>(StringCodec.UTF8), args);
        return bytes == null ? 0 : bytes;
    }

    /** The Redis type of {@code key}: string, hash, zset, ... */
    String type(String key) {
        return commands.type(key);
    }

    /** How many entries the stream {@code key} holds ({@code XLEN}). */
    long streamLength(String key) {
        return commands.xlen(key);
    }

    /** Milliseconds {@code key} has left to live; -1: no expiry; -2: no such key. */
    long pttl(String key) {
        return commands.pttl(key);
    }

    /** Deletes {@code keys} (in batches of 1,000); returns how many existed. */
    long unlink(List<String> keys) {
        long removed = 0;
        for (int i = 0; i < keys.size(); i += 1000) {
            removed += commands.unlink(
                    keys.subList(i, Math.min(keys.size(), i + 1000)).toArray(String[]::new));
        }
        return removed;
    }

    /** Deletes every key of the (private) server, synchronously. */
    void flushAll() {
        commands.flushall(FlushMode.SYNC);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
