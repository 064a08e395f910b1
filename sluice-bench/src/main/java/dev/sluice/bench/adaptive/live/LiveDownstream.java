package dev.sluice.bench.adaptive.live;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongToDoubleFunction;

/**
 * A local HTTP downstream whose capacity changes while it runs: a bucket of one second's worth of calls, refilled at
 * the capacity {@code C(t)} the run's profile gives; a call it has a token for takes {@link #LATENCY_MILLIS} and
 * answers 200, any other answers 429 at once with {@code Retry-After} in milliseconds (the header {@code
 * Retry-After-Ms}, as precise partner APIs give it). Counts, per second of the run, what it accepted and refused, and
 * per caller process what it accepted. Thread-safe.
 */
final class LiveDownstream implements AutoCloseable {
    static final int LATENCY_MILLIS = 20;

    private final HttpServer server;
    private volatile long startNanos;
    private final LongToDoubleFunction capacity;
    private double tokens;
    private long refilledAt;
    final ConcurrentHashMap<Integer, LongAdder> accepted = new ConcurrentHashMap<>();
    final ConcurrentHashMap<Integer, LongAdder> refused = new ConcurrentHashMap<>();
    final ConcurrentHashMap<String, ConcurrentHashMap<Integer, LongAdder>> acceptedByProcess =
            new ConcurrentHashMap<>();
    private final AtomicLong calls = new AtomicLong();

    /** A downstream on a free port of the loopback whose capacity at {@code t} ns into the run is {@code capacity}. */
    LiveDownstream(LongToDoubleFunction capacity) throws IOException {
        this.capacity = capacity;
        this.refilledAt = System.nanoTime();
        this.startNanos = refilledAt + 86_400_000_000_000L; // the profile's first capacity until begin()
        this.tokens = capacity.applyAsDouble(0);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/call", this::handle);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** Starts the run's clock (and its capacity profile) now; calls before count as second 0. */
    synchronized void begin() {
        startNanos = System.nanoTime();
        refilledAt = startNanos;
        tokens = capacity.applyAsDouble(0);
    }

    /** Nanoseconds since the run's clock started. */
    long elapsed() {
        return System.nanoTime() - startNanos;
    }

    private void handle(HttpExchange exchange) throws IOException {
        calls.incrementAndGet();
        int second = (int) Math.max(0, elapsed() / 1_000_000_000L);
        long waitNanos = take();
        if (waitNanos > 0) {
            count(refused, second);
            exchange.getResponseHeaders().add("Retry-After-Ms", Long.toString(Math.max(1, waitNanos / 1_000_000)));
            exchange.sendResponseHeaders(429, -1);
            exchange.close();
            return;
        }
        try {
            Thread.sleep(LATENCY_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        count(accepted, second);
        String caller = exchange.getRequestURI().getQuery();
        count(acceptedByProcess.computeIfAbsent(caller == null ? "?" : caller, c -> new ConcurrentHashMap<>()), second);
        exchange.sendResponseHeaders(200, -1);
        exchange.close();
    }

    /** Takes a token if one is there (0), else the nanoseconds until one is. */
    private synchronized long take() {
        long now = System.nanoTime();
        double rate = capacity.applyAsDouble(Math.max(0, now - startNanos));
        tokens = Math.min(rate, tokens + rate * (now - refilledAt) / 1e9);
        refilledAt = now;
        if (tokens >= 1) {
            tokens -= 1;
            return 0;
        }
        return (long) Math.ceil((1 - tokens) / rate * 1e9);
    }

    private static void count(ConcurrentHashMap<Integer, LongAdder> perSecond, int second) {
        perSecond.computeIfAbsent(second, s -> new LongAdder()).increment();
    }

    static long at(ConcurrentHashMap<Integer, LongAdder> perSecond, int second) {
        LongAdder adder = perSecond.get(second);
        return adder == null ? 0 : adder.sum();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
