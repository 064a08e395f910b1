/**
 * Rate limits: immutable policies, and limiters that apply them to each key separately.
 *
 * <p>A {@link dev.sluice.limit.LimitPolicy} says how many permits a key may take and how they come back:
 * {@link dev.sluice.limit.TokenBucket}, {@link dev.sluice.limit.Gcra}, {@link dev.sluice.limit.FixedWindow},
 * {@link dev.sluice.limit.SlidingWindowCounter}, {@link dev.sluice.limit.SlidingWindowLog} and {@link
 * dev.sluice.limit.ConcurrencyLimit}; the first five are {@link dev.sluice.limit.RatePolicy rate policies}. A
 * {@link dev.sluice.limit.RateLimiter}, obtained from an engine ({@link dev.sluice.Sluice#limiter}), applies a
 * rate policy per key (tenant, endpoint, client); a {@link dev.sluice.limit.ConcurrencyLimiter} ({@link
 * dev.sluice.Sluice#concurrencyLimiter}) applies a concurrency limit per key, granting leases to release. Both
 * are {@link dev.sluice.limit.NamedLimiter named limiters}; {@code forKey} binds one key for repeated use, and a
 * {@link dev.sluice.limit.LimitChain} takes several limits of either kind together, all or nothing.
 *
 * <p>{@code tryAcquire} never waits and answers with a {@link dev.sluice.limit.Decision}: allowed or not,
 * permits remaining, an exact retry-after and reset time. Denial is a return value, not an exception.
 * A rate limiter's {@code tryConsume} answers yes or no without
 * allocating; {@code acquire} and {@code acquireAsync} wait up to
 * a timeout. {@link dev.sluice.limit.LimiterOptions} bound the number of keys and choose what a shared
 * engine does when it cannot be reached ({@link dev.sluice.limit.WhenUnavailable}); a {@link
 * dev.sluice.limit.LimiterListener} hears decisions.
 *
 * <p>Thread-safety: policies, options and decisions are immutable values; limiters, key limiters and chains
 * are safe for use by any number of threads.
 */
package dev.sluice.limit;
