package dev.sluice.http;

import java.util.List;
import java.util.Locale;

/** Reads the {@code for} parameters of an RFC 7239 {@code Forwarded} field value. */
final class ForwardedParser {
    private ForwardedParser() {}

    /**
     * Appends to {@code into}, for each element of {@code value} in order, its {@code for} value unquoted and
     * with an obfuscated port ({@code :_p}) removed, or "" for an element without one.
     *
     * @return false if the value does not follow the RFC's syntax (then {@code into} may hold part of it)
     */
    static boolean forValues(String value, List<String> into, int maxElements) {
        int i = 0;
        int n = value.length();
        String forValue = "";
        int elements = 0;
        while (true) {
            i = skipSpace(value, i);
            if (i < n && value.charAt(i) != ',' && value.charAt(i) != ';') {
                int nameStart = i;
                while (i < n && isTokenChar(value.charAt(i))) {
                    i++;
                }
                if (i == nameStart || i >= n || value.charAt(i) != '=') {
                    return false;
                }
                String name = value.substring(nameStart, i).toLowerCase(Locale.ROOT);
                i++;
                String pairValue;
                if (i < n && value.charAt(i) == '"') {
                    StringBuilder quoted = new StringBuilder();
                    i++;
                    while (i < n && value.charAt(i) != '"') {
                        char c = value.charAt(i);
                        if (c == '\\' && i + 1 < n) {
                            i++;
                            c = value.charAt(i);
                        }
                        quoted.append(c);
                        i++;
                    }
                    if (i >= n) {
                        return false;
                    }
                    i++;
                    pairValue = quoted.toString();
                } else {
                    int start = i;
                    while (i < n && isTokenChar(value.charAt(i))) {
                        i++;
                    }
                    if (i == start) {
                        return false;
                    }
                    pairValue = value.substring(start, i);
                }
                if (name.equals("for")) {
                    forValue = withoutObfuscatedPort(pairValue);
                }
                i = skipSpace(value, i);
            }
            if (i >= n || value.charAt(i) == ',') {
                if (++elements > maxElements) {
                    into.subList(0, 1).clear();
                }
                into.add(forValue);
                forValue = "";
                if (i >= n) {
                    return true;
                }
                i++;
            } else if (value.charAt(i) == ';') {
                i++;
            } else {
                return false;
            }
        }
    }

    private static String withoutObfuscatedPort(String node) {
        int colon = node.lastIndexOf(':');
        if (colon > 0
                && colon + 1 < node.length()
                && node.charAt(colon + 1) == '_'
                && (node.charAt(0) != '[' || node.charAt(colon - 1) == ']')) {
            return node.substring(0, colon);
        }
        return node;
    }

    private static int skipSpace(String s, int i) {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    /** RFC 9110 tchar. */
    private static boolean isTokenChar(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
}
