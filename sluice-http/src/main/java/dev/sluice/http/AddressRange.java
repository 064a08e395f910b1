package dev.sluice.http;

/**
 * A block of IP addresses in CIDR notation ({@code 10.0.0.0/8}, {@code 2001:db8::/32}), or one address. An IPv4
 * block holds IPv4 addresses only; an IPv4-mapped IPv6 address counts as its IPv4 address. Immutable.
 */
final class AddressRange {
    private final byte[] network;
    private final int bits;
    private final String text;

    private AddressRange(byte[] network, int bits, String text) {
        this.network = network;
        this.bits = bits;
        this.text = text;
    }

    /**
     * The range {@code text} names.
     *
     * @throws IllegalArgumentException if it is not an address or an address, '/' and a prefix length in range
     */
    static AddressRange parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("address range must not be null");
        }
        String s = text.strip();
        int slash = s.indexOf('/');
        String address = slash < 0 ? s : s.substring(0, slash);
        byte[] bytes = address.indexOf(':') >= 0 ? IpLiteral.parseV6(address) : IpLiteral.parseV4(address);
        if (bytes == null) {
            throw new IllegalArgumentException(
                    "address range '" + text
                            + "' is not an IPv4 or IPv6 address, optionally with a prefix length ('10.0.0.0/8', '2001:db8::/32')");
        }
        int max = bytes.length * 8;
        int bits = max;
        if (slash >= 0) {
            try {
                bits = Integer.parseInt(s.substring(slash + 1));
            } catch (NumberFormatException e) {
                bits = -1;
            }
            if (address.indexOf(':') >= 0 && bytes.length == 4) {
                bits -= 96; // ::ffff:10.0.0.0/104 is 10.0.0.0/8
            }
            if (bits < 0 || bits > max) {
                throw new IllegalArgumentException("prefix length of address range '" + text + "' must be 0 to " + max);
            }
        }
        return new AddressRange(
                IpLiteral.mask(bytes, bits), bits, IpLiteral.format(IpLiteral.mask(bytes, bits)) + "/" + bits);
    }

    /** Whether {@code address} (4 or 16 bytes) lies in this range. */
    boolean contains(byte[] address) {
        if (address.length != network.length) {
            return false;
        }
        int whole = bits / 8;
        for (int i = 0; i < whole; i++) {
            if (address[i] != network[i]) {
                return false;
            }
        }
        int rest = bits % 8;
        int mask = (0xff00 >> rest) & 0xff;
        return rest == 0 || (address[whole] & mask) == (network[whole] & 0xff);
    }

    @Override
    public String toString() {
        return text;
    }
}
