package dev.sluice.limit;

/**
 * A named limit of how many permits may be held at once, applied to every key separately: each tenant, endpoint
 * or client address may hold up to the {@link ConcurrencyLimit}'s {@code maxConcurrent} permits. A granted {@link
 * Decision} carries a {@link Lease}; releasing it ({@link Decision#release()}) gives the permits back, and a lease
 * never released expires after the policy's lease timeout. Permits are never consumed or refunded: they are held
 * and released.
 *
 * <p>Obtained from an engine ({@link dev.sluice.Sluice#concurrencyLimiter}). Thread-safe. Every method throws
 * {@link IllegalStateException} once the engine is closed.
 */
public non-sealed interface ConcurrencyLimiter extends NamedLimiter {
    /**
     * The given key of this limiter, bound for repeated use.
     *
     * @param key the key
     * @return the bound key
     * @throws IllegalArgumentException if the key is null, empty or too long
     * @throws IllegalStateException if the engine is closed
     */
    ConcurrencyKeyLimiter forKey(String key);

    /**
     * The policy in force.
     *
     * @return the policy
     */
    @Override
    ConcurrencyLimit policy();

    /**
     * Replaces the policy. The new {@code maxConcurrent} and lease timeout apply from now on; leases already
     * granted are kept and count against the new maximum (a key holding 3 permits holds 3 under the new policy
     * too). The change is not atomic with respect to concurrent requests, as {@link RateLimiter#setPolicy} is not.
     *
     * @param policy the new policy
     * @throws IllegalArgumentException if {@code policy} is null
     * @throws IllegalStateException if the engine is closed
     */
    void setPolicy(ConcurrencyLimit policy);
}
