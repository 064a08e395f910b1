/**
 * The entry point: {@link dev.sluice.Sluice}, an engine that holds the state of limiters and queues.
 *
 * <p>Start with {@link dev.sluice.Sluice#inMemory()} (everything in this JVM) and ask it for what you need:
 * {@link dev.sluice.Sluice#limiter limiter(name, policy)}, {@link dev.sluice.Sluice#chain()} for limits taken
 * all or nothing, {@link dev.sluice.Sluice#queue queue(name, codec)}. Another engine (Redis, in
 * {@code sluice-redis}) is created differently and then used the same way. In tests, {@link
 * dev.sluice.Sluice#inMemory(dev.sluice.time.SluiceClock)} with a {@link dev.sluice.time.ManualClock} runs
 * everything on virtual time.
 *
 * <p>Errors the engine reports are {@link dev.sluice.SluiceException}s; bad arguments are {@link
 * IllegalArgumentException}s naming the value and what is allowed.
 *
 * <p>Thread-safety: an engine, and everything it hands out, may be used from any number of threads.
 */
package dev.sluice;
