package dev.sluice.limit;

/**
 * Permits held from a {@link ConcurrencyLimit} until released or expired.
 *
 * <p>Thread-safe; releasing twice returns the permits once.
 */
public interface Lease {
    /** The lease of decisions that hold nothing: releasing it does nothing. */
    Lease NONE = new Lease() {
        @Override
        public boolean release() {
            return false;
        }

        @Override
        public long expiresAtNanos() {
            return Long.MAX_VALUE;
        }

        @Override
        public String toString() {
            return "Lease.NONE";
        }
    };

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
