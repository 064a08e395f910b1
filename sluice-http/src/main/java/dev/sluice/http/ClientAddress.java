package dev.sluice.http;

/**
 * The client a request comes from, as a {@link ClientAddressResolver} found it.
 *
 * <p>{@link #address()} is the client's own address (or the identifier a trusted proxy gave it); {@link #key()}
 * is what limits are keyed by: the address, or for IPv6 (and IPv4 if so configured) the network the resolver
 * groups into one client, such as {@code 2001:db8:1:2::/64}. Immutable.
 */
public final class ClientAddress {
    private final String address;
    private final String key;
    private final byte[] bytes;

    ClientAddress(String address, String key, byte[] bytes) {
        this.address = address;
        this.key = key;
        this.bytes = bytes;
    }

    /**
     * The client's address in canonical form: dotted decimal, or RFC 5952 IPv6 (an IPv4-mapped IPv6 address is
     * given as IPv4). When a trusted proxy hid the client behind an obfuscated identifier (RFC 7239
     * {@code for=_hidden}), that identifier; when the peer's own address is not an IP literal, that text.
     *
     * @return the address
     */
    public String address() {
        return address;
    }

    /**
     * What limits keyed by client address use: one key per client, never one shared by unknown clients.
     *
     * @return the key, at most 200 characters
     */
    public String key() {
        return key;
    }

    /** The address's 4 or 16 bytes; null when the client is known by an identifier only. */
    byte[] bytes() {
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClientAddress other && other.key.equals(key) && other.address.equals(address);
    }

    @Override
    public int hashCode() {
        return key.hashCode();
    }

    @Override
    public String toString() {
        return address.equals(key) ? address : address + " (key " + key + ")";
    }
}
