package dev.sluice.http;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds the client of a request, trusting forwarding headers only from configured proxies.
 *
 * <p>The peer that opened the connection is the client unless it is a trusted proxy. From a trusted proxy, the
 * forwarding header ({@code X-Forwarded-For} or RFC 7239 {@code Forwarded}) is read from the right: each
 * address a trusted proxy appended is passed over, and the right-most address that is not a trusted proxy is
 * the client, as Tomcat's {@code RemoteIpValve} does. Entries to its left are whatever the client sent, so a
 * forged header never changes the key. If every hop is trusted, the left-most one is the client.
 *
 * <p>A CDN's client header (such as {@code CF-Connecting-IP}) is read only from a hop in that CDN's configured
 * ranges. An IPv4-mapped IPv6 address is taken as IPv4. IPv6 clients are grouped by a prefix (one /64 is one
 * client by default), since one host commonly holds a whole /64.
 *
 * <p>Malformed values never throw: a header that cannot be read, or is longer than {@link
 * Builder#maxHeaderLength(int)}, is ignored and the nearest hop that could be read is the client; an entry
 * {@code unknown} stops the walk at the proxy that wrote it. Unknown clients never share one key: at worst
 * they share their proxy's. Immutable and thread-safe.
 */
public final class ClientAddressResolver {
    /** Which forwarding header trusted proxies write. */
    public enum ForwardedHeader {
        /** {@code X-Forwarded-For: client, proxy1, proxy2}: the de facto standard. */
        X_FORWARDED_FOR,
        /** RFC 7239 {@code Forwarded: for=client;proto=https, for="[2001:db8::1]:443"}. */
        FORWARDED
    }

    private static final int MAX_KEY_LENGTH = 200;

    private final List<AddressRange> trusted;
    private final ForwardedHeader header;
    private final String cdnHeader;
    private final List<AddressRange> cdnRanges;
    private final int ipv4Prefix;
    private final int ipv6Prefix;
    private final int maxHeaderLength;
    private final int maxHops;

    private ClientAddressResolver(Builder b) {
        this.trusted = List.copyOf(b.trusted);
        this.header = b.header;
        this.cdnHeader = b.cdnHeader;
        this.cdnRanges = List.copyOf(b.cdnRanges);
        this.ipv4Prefix = b.ipv4Prefix;
        this.ipv6Prefix = b.ipv6Prefix;
        this.maxHeaderLength = b.maxHeaderLength;
        this.maxHops = b.maxHops;
    }

    /**
     * A resolver that trusts no proxy: the peer is the client, and forwarding headers are never read.
     *
     * @return the resolver
     */
    public static ClientAddressResolver peerOnly() {
        return builder().build();
    }

    /**
     * Starts a resolver: no trusted proxies, {@code X-Forwarded-For}, no CDN header, IPv6 grouped by /64.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The client of {@code request}.
     *
     * @param request the request
     * @return its client
     * @throws IllegalArgumentException if the request is null
     */
    public ClientAddress resolve(IngressRequest request) {
        if (request == null) {
            throw new IllegalArgumentException("request must not be null");
        }
        String peer = request.peerAddress();
        byte[] hop = IpLiteral.parseNode(peer);
        if (hop == null) {
            String text = peer.length() > MAX_KEY_LENGTH - 5 ? peer.substring(0, MAX_KEY_LENGTH - 5) : peer;
            return new ClientAddress(text, "peer:" + text, null);
        }
        if (trusted.isEmpty() && cdnRanges.isEmpty()) {
            return hop.length == 4 && ipv4Prefix == 32 && isDottedQuad(peer)
                    ? new ClientAddress(peer, peer, hop) // a dotted quad that parsed is canonical already
                    : client(hop);
        }
        Hops hops = null;
        for (int depth = 0; depth <= maxHops; depth++) {
            if (!cdnRanges.isEmpty() && in(cdnRanges, hop)) {
                byte[] behindCdn = cdnClient(request);
                if (behindCdn != null) {
                    return client(behindCdn);
                }
            }
            if (!in(trusted, hop)) {
                return client(hop);
            }
            if (hops == null) {
                hops = header == ForwardedHeader.FORWARDED ? forwarded(request) : xForwardedFor(request);
            }
            String next = hops.next();
            if (next == null) {
                return client(hop);
            }
            if (next.startsWith("_")) {
                String key = "obf:" + IpLiteral.format(hop) + "/" + next;
                return new ClientAddress(
                        next, key.length() > MAX_KEY_LENGTH ? key.substring(0, MAX_KEY_LENGTH) : key, null);
            }
            byte[] parsed = IpLiteral.parseNode(next);
            if (parsed == null) {
                return client(hop);
            }
            hop = parsed;
        }
        return client(hop);
    }

    private static boolean isDottedQuad(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '.' && (c < '0' || c > '9')) {
                return false;
            }
        }
        return true;
    }

    private ClientAddress client(byte[] address) {
        String text = IpLiteral.format(address);
        int bits = address.length == 4 ? ipv4Prefix : ipv6Prefix;
        if (bits == address.length * 8) {
            return new ClientAddress(text, text, address);
        }
        return new ClientAddress(text, IpLiteral.format(IpLiteral.mask(address, bits)) + "/" + bits, address);
    }

    private static boolean in(List<AddressRange> ranges, byte[] address) {
        for (AddressRange range : ranges) {
            if (range.contains(address)) {
                return true;
            }
        }
        return false;
    }

    private byte[] cdnClient(IngressRequest request) {
        List<String> values = request.headers(cdnHeader);
        return values.size() == 1 ? IpLiteral.parseNode(values.get(0)) : null;
    }

    /** The entries of a forwarding header, right to left; null once none is left or one cannot be read. */
    private interface Hops {
        String next();
    }

    private Hops xForwardedFor(IngressRequest request) {
        List<String> values = request.headers("X-Forwarded-For");
        return new Hops() {
            private int field = values.size() - 1;
            private int end = field >= 0 ? values.get(field).length() : 0;
            private int read;

            @Override
            public String next() {
                while (field >= 0) {
                    String value = values.get(field);
                    if (end < 0) {
                        field--;
                        end = field >= 0 ? values.get(field).length() : 0;
                        continue;
                    }
                    int comma = value.lastIndexOf(',', end - 1);
                    String entry = value.substring(comma + 1, end).strip();
                    end = comma;
                    if (entry.isEmpty()) {
                        continue;
                    }
                    if (++read > maxHops || entry.length() > IpLiteral.MAX_LENGTH) {
                        field = -1;
                        return null;
                    }
                    return entry;
                }
                return null;
            }
        };
    }

    private Hops forwarded(IngressRequest request) {
        List<String> values = request.headers("Forwarded");
        List<String> fors = new ArrayList<>();
        int length = 0;
        for (String value : values) {
            length += value.length() + 1;
        }
        if (length <= maxHeaderLength) {
            for (String value : values) {
                if (!ForwardedParser.forValues(value, fors, maxHops)) {
                    fors.clear();
                    break;
                }
            }
        }
        return new Hops() {
            private int at = fors.size() - 1;

            @Override
            public String next() {
                if (at < 0) {
                    return null;
                }
                String value = fors.get(at--);
                return value.equalsIgnoreCase("unknown") || value.isEmpty() ? null : value;
            }
        };
    }

    /** Builds a {@link ClientAddressResolver}. Not thread-safe. */
    public static final class Builder {
        private final List<AddressRange> trusted = new ArrayList<>();
        private ForwardedHeader header = ForwardedHeader.X_FORWARDED_FOR;
        private String cdnHeader;
        private final List<AddressRange> cdnRanges = new ArrayList<>();
        private int ipv4Prefix = 32;
        private int ipv6Prefix = 64;
        private int maxHeaderLength = 8192;
        private int maxHops = 32;

        private Builder() {}

        /**
         * Adds proxies whose forwarding headers are believed: addresses or CIDR blocks, such as the load
         * balancer's subnet ({@code 10.0.0.0/8}, {@code 2001:db8::/32}).
         *
         * @param ranges addresses or CIDR blocks
         * @return this builder
         * @throws IllegalArgumentException if a range is malformed
         */
        public Builder trustedProxies(String... ranges) {
            for (String range : ranges) {
                trusted.add(AddressRange.parse(range));
            }
            return this;
        }

        /**
         * Which header trusted proxies write ({@link ForwardedHeader#X_FORWARDED_FOR} by default).
         *
         * @param header the header
         * @return this builder
         * @throws IllegalArgumentException if the header is null
         */
        public Builder forwardedHeader(ForwardedHeader header) {
            if (header == null) {
                throw new IllegalArgumentException("forwarded header must not be null: X_FORWARDED_FOR or FORWARDED");
            }
            this.header = header;
            return this;
        }

        /**
         * Reads the client from a CDN's header ({@code CF-Connecting-IP}, {@code True-Client-IP}) when the
         * request reaches a trusted hop from one of the CDN's address ranges; from anywhere else the header is
         * ignored.
         *
         * @param headerName the CDN's client header
         * @param ranges the CDN's published address ranges
         * @return this builder
         * @throws IllegalArgumentException if the name is blank, no range is given, or a range is malformed
         */
        public Builder cdn(String headerName, String... ranges) {
            if (headerName == null || headerName.isBlank()) {
                throw new IllegalArgumentException("CDN header name must not be blank");
            }
            if (ranges.length == 0) {
                throw new IllegalArgumentException("CDN '" + headerName + "' needs its address ranges: its header is"
                        + " believed only from them");
            }
            this.cdnHeader = headerName;
            for (String range : ranges) {
                cdnRanges.add(AddressRange.parse(range));
            }
            return this;
        }

        /**
         * How many leading bits of an IPv6 address make one client (64 by default: a /64 is one host's).
         *
         * @param bits 1 to 128
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder ipv6Prefix(int bits) {
            if (bits < 1 || bits > 128) {
                throw new IllegalArgumentException("IPv6 prefix must be 1 to 128 bits, was " + bits);
            }
            this.ipv6Prefix = bits;
            return this;
        }

        /**
         * How many leading bits of an IPv4 address make one client (32 by default: each address is one).
         *
         * @param bits 1 to 32
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder ipv4Prefix(int bits) {
            if (bits < 1 || bits > 32) {
                throw new IllegalArgumentException("IPv4 prefix must be 1 to 32 bits, was " + bits);
            }
            this.ipv4Prefix = bits;
            return this;
        }

        /**
         * The longest {@code Forwarded} value read (all its fields together, 8,192 characters by default); a
         * longer one is ignored.
         *
         * @param characters 64 to 65,536
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxHeaderLength(int characters) {
            if (characters < 64 || characters > 65_536) {
                throw new IllegalArgumentException(
                        "max header length must be 64 to 65536 characters, was " + characters);
            }
            this.maxHeaderLength = characters;
            return this;
        }

        /**
         * The most forwarding entries read from the right (32 by default); a chain of more trusted hops stops
         * at the last one read.
         *
         * @param hops 1 to 256
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxHops(int hops) {
            if (hops < 1 || hops > 256) {
                throw new IllegalArgumentException("max hops must be 1 to 256, was " + hops);
            }
            this.maxHops = hops;
            return this;
        }

        /**
         * Builds the resolver.
         *
         * @return the resolver
         */
        public ClientAddressResolver build() {
            return new ClientAddressResolver(this);
        }
    }
}
