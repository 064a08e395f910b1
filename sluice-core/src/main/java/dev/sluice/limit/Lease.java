package dev.sluice.limit;

/**
 * Permits held from a {@link ConcurrencyLimit} until released or expired.
 *
 * <p>Thread-safe; releasing twice returns the permits once.
 */
public interface Lease {
    /**
     * The lease of decisions that hold nothing: releasing it does nothing.
     *
     * @return the lease, always the same instance
     */
    static Lease none() {
        return NoLease.INSTANCE;
    }

    /**
     * Returns the permits.
     *
     * @return true if this call returned them; false if the lease was already released or had expired
     */
    boolean release();

    /**
     * The clock reading, in nanoseconds since the Unix epoch, at which the lease expires by itself.
     *
     * @return the expiry, epoch nanoseconds
     */
    long expiresAtNanos();
}
