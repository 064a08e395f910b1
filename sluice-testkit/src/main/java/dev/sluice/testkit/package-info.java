/**
 * The contract every Sluice engine must pass: abstract JUnit 5 suites an engine's tests subclass once.
 *
 * <p>{@link dev.sluice.testkit.RateLimiterContract} and {@link dev.sluice.testkit.QueueContract} gather every
 * suite as nested classes; {@link dev.sluice.testkit.RateLimiterProperties} runs random histories with jqwik.
 * Each needs one hook, {@code newEngine(SluiceClock)}: a new, empty engine on the clock given. Every suite is
 * also an abstract class of its own ({@link dev.sluice.testkit.TokenBucketContract}, {@link
 * dev.sluice.testkit.QueueRetryContract}, ...) that can be subclassed alone. The suites use the public API
 * only, and run on a {@link dev.sluice.time.ManualClock} starting at {@link dev.sluice.testkit.ContractSupport#T0}
 * except the few that check invariants under real threads on the system clock.
 *
 * <p>Thread-safety: a suite instance belongs to the test run that created it; the suites that use several
 * threads start and join them themselves.
 */
package dev.sluice.testkit;
