package dev.sluice.testkit;

import dev.sluice.Sluice;
import dev.sluice.time.ManualClock;
import dev.sluice.time.SluiceClock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;

/**
 * The behavioural contract of rate limiters, for any {@link Sluice} engine: subclass it, implement {@link
 * #newEngine(SluiceClock)}, and every suite
 * below runs against the engine.
 *
 * <pre>{@code
 * class RedisRateLimiterContractTest extends RateLimiterContract {
 *   protected Sluice newEngine(SluiceClock clock) { return RedisSluice.create(redis, uniquePrefix(), clock); }
 * }
 * }</pre>
 *
 * <p>Each nested suite takes this contract's engine hooks (a suite nested in a subclass of it too), and is also an
 * abstract class of its own ({@link TokenBucketContract}, {@link
 * ChainContract}, ...) that can be subclassed alone. The property-based suite is {@link
 * RateLimiterProperties}: subclass it the same way (jqwik runs it, not JUnit Jupiter, so it cannot be nested
 * here).
 *
 * <p>Every test but one runs on virtual time: a {@link ManualClock} at {@link ContractSupport#T0}, moved only
 * by the test or by sleeping on it. The exception, in {@link RateLimiterConcurrencyContract}, runs on the
 * system clock and checks invariants only.
 */
public abstract class RateLimiterContract {
    /** For subclasses, one per engine. */
    protected RateLimiterContract() {}

    /**
     * A new, empty engine (no limiter, no state left from another test) deciding on {@code clock}, as given: a
     * {@link ManualClock} for every test but one, which runs on {@link SluiceClock#system()}. Sleeping on a manual
     * clock must advance it, and tasks the engine schedules on it must run when it is advanced.
     *
     * @param clock the clock of every decision the engine makes
     * @return a new engine, empty and open, that the suite closes
     */
    protected abstract Sluice newEngine(SluiceClock clock);

    /** Token bucket: capacity, continuous refill, exact retry-after. */
    @Nested
    @DisplayName("token bucket: capacity, continuous refill, exact retry-after")
    class TokenBucketPolicy extends TokenBucketContract {}

    /** GCRA: spacing and bursts, same decisions as a token bucket. */
    @Nested
    @DisplayName("GCRA: spacing and bursts, same decisions as a token bucket")
    class GcraPolicy extends GcraContract {}

    /** Fixed window: epoch-aligned counts, 2× burst across a boundary. */
    @Nested
    @DisplayName("fixed window: epoch-aligned counts, 2× burst across a boundary")
    class FixedWindowPolicy extends FixedWindowContract {}

    /** Sliding window counter: exact integer weighting. */
    @Nested
    @DisplayName("sliding window counter: exact integer weighting")
    class SlidingWindowCounterPolicy extends SlidingWindowCounterContract {}

    /** Sliding window log: exact. */
    @Nested
    @DisplayName("sliding window log: exact")
    class SlidingWindowLogPolicy extends SlidingWindowLogContract {}

    /** Concurrency limit: leases, release, expiry. */
    @Nested
    @DisplayName("concurrency limit: leases, release, expiry")
    class ConcurrencyLimitPolicy extends ConcurrencyLimitContract {}

    /** Keys are independent; one limiter per name. */
    @Nested
    @DisplayName("keys are independent; one limiter per name")
    class KeysAndRegistry extends KeysAndRegistryContract {}

    /** setPolicy: new rate from now on, state kept, same kind only. */
    @Nested
    @DisplayName("setPolicy: new rate from now on, state kept, same kind only")
    class SetPolicy extends SetPolicyContract {}

    /** Acquire and acquireAsync on virtual time. */
    @Nested
    @DisplayName("acquire and acquireAsync on virtual time")
    class Waiting extends WaitingContract {}

    /** Chains: all or nothing. */
    @Nested
    @DisplayName("chains: all or nothing")
    class Chains extends ChainContract {}

    /** Listener events. */
    @Nested
    @DisplayName("listener events")
    class Listeners extends ListenerContract {}

    /** forKey: one key bound for repeated use, same decisions, shared permits. */
    @Nested
    @DisplayName("forKey: one key bound for repeated use, same decisions, shared permits")
    class BoundKeys extends KeyLimiterContract {}

    /** forKey after its first call: permits checked, every call heard, exact after its key was dropped. */
    @Nested
    @DisplayName("forKey after its first call: permits checked, every call heard, exact after its key was dropped")
    class BoundKeyState extends BoundKeyStateContract {}

    /** acquireAsync at its deadline and with leases; a chain of one lease layer. */
    @Nested
    @DisplayName("acquireAsync at its deadline and with leases; a chain of one lease layer")
    class LeaseAndDeadline extends LeaseAndDeadlineContract {}

    /** tryConsume: the yes-or-no form of tryAcquire, same decisions. */
    @Nested
    @DisplayName("tryConsume: the yes-or-no form of tryAcquire, same decisions")
    class TryConsume extends TryConsumeContract {}

    /** Bad input: IllegalArgumentException naming value and range, nothing changed. */
    @Nested
    @DisplayName("bad input: IllegalArgumentException naming value and range, nothing changed")
    class BadInput extends BadInputContract {}

    /** Peek, refund and reset: a key's state read and changed without taking permits. */
    @Nested
    @DisplayName("peek, refund and reset: a key's state read and changed without taking permits")
    class KeyState extends LimiterStateContract {}

    /** Engine-wide listeners: every limiter's decisions, each limiter and queue once. */
    @Nested
    @DisplayName("engine-wide listeners: every limiter's decisions, each limiter and queue once")
    class EngineListeners extends EngineListenerContract {}

    /** Closing the engine: every later use refuses, close is idempotent; what engines and limiters are. */
    @Nested
    @DisplayName("closing the engine: every later use refuses, close is idempotent; toString")
    class Lifecycle extends EngineLifecycleContract {}

    /** Real threads: exact admission under contention. */
    @Nested
    @DisplayName("real threads: exact admission under contention")
    class Concurrency extends RateLimiterConcurrencyContract {}
}
