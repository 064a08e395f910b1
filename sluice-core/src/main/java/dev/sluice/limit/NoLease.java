package dev.sluice.limit;

/** {@link Lease#none()}. */
final class NoLease implements Lease {
    static final Lease INSTANCE = new NoLease();

    private NoLease() {}

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
        return "Lease.none()";
    }
}
