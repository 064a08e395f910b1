package dev.sluice.http;

/**
 * Literal IPv4 and IPv6 addresses as 4 or 16 bytes: parsed without any name lookup, IPv4-mapped IPv6 taken as
 * its IPv4 address, written in one canonical form (dotted decimal; RFC 5952 for IPv6) and masked to a prefix.
 * Every parse is bounded by the text's length and returns null for anything that is not a literal.
 */
final class IpLiteral {
    /** The longest text taken as an address: a full IPv6 address with an embedded IPv4 one, brackets and a port. */
    static final int MAX_LENGTH = 64;

    private IpLiteral() {}

    /**
     * The address of a node as proxies write it: {@code 192.0.2.1}, {@code 192.0.2.1:8080}, {@code 2001:db8::1},
     * {@code [2001:db8::1]} or {@code [2001:db8::1]:8080}, optionally with a zone ({@code %eth0}) after IPv6.
     *
     * @return 4 or 16 bytes, or null if the text is not such an address
     */
    static byte[] parseNode(String text) {
        String s = text.strip();
        if (s.isEmpty() || s.length() > MAX_LENGTH) {
            return null;
        }
        if (s.charAt(0) == '[') {
            int close = s.indexOf(']');
            if (close < 0 || !(close == s.length() - 1 || isPort(s, close + 1))) {
                return null;
            }
            return parseV6(s.substring(1, close));
        }
        int colon = s.indexOf(':');
        if (colon < 0) {
            return parseV4(s);
        }
        if (s.indexOf(':', colon + 1) < 0) {
            return isPort(s, colon) ? parseV4(s.substring(0, colon)) : null;
        }
        return parseV6(s);
    }

    /** Whether s from {@code at} is ':' and 1 to 5 digits. */
    private static boolean isPort(String s, int at) {
        int digits = s.length() - at - 1;
        if (s.charAt(at) != ':' || digits < 1 || digits > 5) {
            return false;
        }
        for (int i = at + 1; i < s.length(); i++) {
            if (!isDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** Dotted decimal, four parts of 0 to 255 without leading zeros (which some parsers read as octal). */
    static byte[] parseV4(String s) {
        byte[] bytes = new byte[4];
        return readV4(s, 0, s.length(), bytes, 0) ? bytes : null;
    }

    private static boolean readV4(String s, int from, int to, byte[] into, int at) {
        int part = 0;
        int value = 0;
        int digits = 0;
        for (int i = from; i <= to; i++) {
            if (i == to || s.charAt(i) == '.') {
                if (digits == 0 || part > 3) {
                    return false;
                }
                into[at + part++] = (byte) value;
                value = 0;
                digits = 0;
            } else {
                char c = s.charAt(i);
                if (!isDigit(c) || (digits == 1 && value == 0) || digits == 3) {
                    return false;
                }
                value = value * 10 + (c - '0');
                digits++;
                if (value > 255) {
                    return false;
                }
            }
        }
        return part == 4;
    }

    /** IPv6 text (RFC 4291 2.2), with an optional zone; IPv4-mapped addresses come back as 4 bytes. */
    static byte[] parseV6(String text) {
        int zone = text.indexOf('%');
        String s = zone < 0 ? text : text.substring(0, zone);
        if (s.length() < 2) {
            return null;
        }
        byte[] bytes = new byte[16];
        int gap = -1; // the group index where "::" stands
        int group = 0;
        int i = 0;
        if (s.startsWith("::")) {
            gap = 0;
            i = 2;
            if (s.length() == 2) {
                return bytes;
            }
        } else if (s.charAt(0) == ':') {
            return null;
        }
        while (i < s.length()) {
            if (group == 8) {
                return null;
            }
            int end = i;
            while (end < s.length() && s.charAt(end) != ':') {
                end++;
            }
            if (end < s.length() || s.indexOf('.', i) < 0) {
                int value = hexGroup(s, i, end);
                if (value < 0) {
                    return null;
                }
                bytes[2 * group] = (byte) (value >> 8);
                bytes[2 * group + 1] = (byte) value;
                group++;
            } else {
                if (group > 6 || !readV4(s, i, end, bytes, 2 * group)) {
                    return null;
                }
                group += 2;
            }
            if (end == s.length()) {
                break;
            }
            if (end + 1 < s.length() && s.charAt(end + 1) == ':') {
                if (gap >= 0) {
                    return null;
                }
                gap = group;
                i = end + 2;
            } else if (end + 1 == s.length()) {
                return null;
            } else {
                i = end + 1;
            }
        }
        if (gap < 0) {
            if (group != 8) {
                return null;
            }
        } else {
            if (group > 7) {
                return null;
            }
            int shift = 8 - group;
            System.arraycopy(bytes, 2 * gap, bytes, 2 * (gap + shift), 2 * (group - gap));
            java.util.Arrays.fill(bytes, 2 * gap, 2 * (gap + shift), (byte) 0);
        }
        return isV4Mapped(bytes) ? java.util.Arrays.copyOfRange(bytes, 12, 16) : bytes;
    }

    private static int hexGroup(String s, int from, int to) {
        if (to == from || to - from > 4) {
            return -1;
        }
        int value = 0;
        for (int i = from; i < to; i++) {
            int d = Character.digit(s.charAt(i), 16);
            if (d < 0) {
                return -1;
            }
            value = value * 16 + d;
        }
        return value;
    }

    private static boolean isV4Mapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return b[10] == (byte) 0xff && b[11] == (byte) 0xff;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** The address with every bit after the first {@code bits} cleared. */
    static byte[] mask(byte[] address, int bits) {
        byte[] masked = address.clone();
        for (int i = 0; i < masked.length; i++) {
            int keep = Math.min(8, Math.max(0, bits - 8 * i));
            masked[i] = (byte) (masked[i] & (0xff00 >> keep));
        }
        return masked;
    }

    /** Dotted decimal for 4 bytes; RFC 5952 (lower case, longest run of two or more zero groups as "::"). */
    static String format(byte[] address) {
        StringBuilder out = new StringBuilder(39);
        if (address.length == 4) {
            for (int i = 0; i < 4; i++) {
                if (i > 0) {
                    out.append('.');
                }
                out.append(address[i] & 0xff);
            }
            return out.toString();
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int g = 0; g < 8; ) {
            if (group(address, g) != 0) {
                g++;
                continue;
            }
            int start = g;
            while (g < 8 && group(address, g) == 0) {
                g++;
            }
            if (g - start > bestLength) {
                bestStart = start;
                bestLength = g - start;
            }
        }
        for (int g = 0; g < 8; g++) {
            if (g == bestStart) {
                out.append("::");
                g += bestLength - 1;
                continue;
            }
            if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
                out.append(':');
            }
            out.append(Integer.toHexString(group(address, g)));
        }
        return out.toString();
    }

    private static int group(byte[] address, int g) {
        return ((address[2 * g] & 0xff) << 8) | (address[2 * g + 1] & 0xff);
    }
}
