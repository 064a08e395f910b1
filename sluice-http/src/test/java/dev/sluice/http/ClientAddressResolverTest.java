package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.http.ClientAddressResolver.ForwardedHeader;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClientAddressResolverTest {
    private static final ClientAddressResolver BEHIND_PROXIES = ClientAddressResolver.builder()
            .trustedProxies("10.0.0.0/8", "2001:db8:ffff::/48")
            .build();

    private static IngressRequest from(String peer, String... headerPairs) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int i = 0; i < headerPairs.length; i += 2) {
            headers.computeIfAbsent(headerPairs[i], n -> new java.util.ArrayList<>())
                    .add(headerPairs[i + 1]);
        }
        return IngressRequest.of("GET", "/", peer, headers, null);
    }

    @Test
    void aPeerThatIsNoTrustedProxyIsTheClientWhateverItsHeadersSay() {
        IngressRequest spoofed =
                from("203.0.113.9", "X-Forwarded-For", "198.51.100.1", "Forwarded", "for=198.51.100.2");
        assertThat(BEHIND_PROXIES.resolve(spoofed).key()).isEqualTo("203.0.113.9");
        assertThat(ClientAddressResolver.peerOnly()
                        .resolve(from("10.0.0.1", "X-Forwarded-For", "198.51.100.1"))
                        .key())
                .isEqualTo("10.0.0.1");
    }

    @Test
    void takesTheRightMostAddressThatIsNoTrustedProxy() {
        IngressRequest request = from("10.0.0.1", "X-Forwarded-For", "198.51.100.7, 203.0.113.9, 10.1.1.1, 10.2.2.2");
        assertThat(BEHIND_PROXIES.resolve(request).address()).isEqualTo("203.0.113.9");
    }

    @Test
    void aSpoofedXForwardedForNeverChangesTheKey() {
        String honest = BEHIND_PROXIES
                .resolve(from("10.0.0.1", "X-Forwarded-For", "203.0.113.9"))
                .key();
        for (String forged : List.of("1.1.1.1", "10.0.0.5", "unknown", "garbage", "::1", "1.1.1.1, 2.2.2.2", "_x")) {
            IngressRequest request = from("10.0.0.1", "X-Forwarded-For", forged + ", 203.0.113.9");
            assertThat(BEHIND_PROXIES.resolve(request).key()).as(forged).isEqualTo(honest);
        }
    }

    @Test
    void readsSeveralHeaderFieldsAsOneListInOrder() {
        IngressRequest request = from(
                "10.0.0.1",
                "X-Forwarded-For",
                "198.51.100.7, 203.0.113.9",
                "X-Forwarded-For",
                "10.9.9.9",
                "X-Forwarded-For",
                "");
        assertThat(BEHIND_PROXIES.resolve(request).address()).isEqualTo("203.0.113.9");
    }

    @Test
    void whenEveryHopIsTrustedTheLeftMostIsTheClient() {
        assertThat(BEHIND_PROXIES
                        .resolve(from("10.0.0.1", "X-Forwarded-For", "10.3.3.3, 10.2.2.2"))
                        .address())
                .isEqualTo("10.3.3.3");
        assertThat(BEHIND_PROXIES.resolve(from("10.0.0.1")).address()).isEqualTo("10.0.0.1");
    }

    @Test
    void aMalformedEntryStopsTheWalkAtTheProxyThatWroteIt() {
        assertThat(BEHIND_PROXIES
                        .resolve(from("10.0.0.1", "X-Forwarded-For", "203.0.113.9, nonsense, 10.2.2.2"))
                        .address())
                .isEqualTo("10.2.2.2");
        assertThat(BEHIND_PROXIES
                        .resolve(from("10.0.0.1", "X-Forwarded-For", "unknown"))
                        .address())
                .isEqualTo("10.0.0.1");
    }

    @Test
    void readsPortsAndBracketsAsProxiesWriteThem() {
        IngressRequest request =
                from("10.0.0.1", "X-Forwarded-For", "[2001:db8:1:2::17]:4711, 203.0.113.9:80, 10.1.1.1:443");
        ClientAddressResolver resolver = ClientAddressResolver.builder()
                .trustedProxies("10.0.0.0/8", "203.0.113.9")
                .build();
        assertThat(resolver.resolve(request).address()).isEqualTo("2001:db8:1:2::17");
    }

    @Test
    void groupsIpv6ClientsByTheirSlash64ByDefault() {
        ClientAddress one = BEHIND_PROXIES.resolve(from("2001:db8:1:2:aaaa::1"));
        ClientAddress other = BEHIND_PROXIES.resolve(from("2001:db8:1:2:bbbb::2"));
        ClientAddress next = BEHIND_PROXIES.resolve(from("2001:db8:1:3::1"));
        assertThat(one.key()).isEqualTo("2001:db8:1:2::/64").isEqualTo(other.key());
        assertThat(next.key()).isEqualTo("2001:db8:1:3::/64");
        assertThat(one.address()).isEqualTo("2001:db8:1:2:aaaa::1");

        ClientAddressResolver exact =
                ClientAddressResolver.builder().ipv6Prefix(128).ipv4Prefix(24).build();
        assertThat(exact.resolve(from("2001:db8:1:2:aaaa::1")).key()).isEqualTo("2001:db8:1:2:aaaa::1");
        assertThat(exact.resolve(from("198.51.100.77")).key()).isEqualTo("198.51.100.0/24");
    }

    @Test
    void writesEveryPeerInCanonicalForm() {
        ClientAddressResolver direct = ClientAddressResolver.peerOnly();
        assertThat(direct.resolve(from(" 203.0.113.9 ")).key()).isEqualTo("203.0.113.9");
        assertThat(direct.resolve(from("203.0.113.9:80")).key()).isEqualTo("203.0.113.9");
        assertThat(direct.resolve(from("203.0.113.9")).address()).isEqualTo("203.0.113.9");
        assertThat(direct.resolve(from("2001:DB8:0::1")).address()).isEqualTo("2001:db8::1");
    }

    @Test
    void takesAnIpv4MappedPeerAsIpv4() {
        assertThat(BEHIND_PROXIES.resolve(from("::ffff:203.0.113.9")).key()).isEqualTo("203.0.113.9");
        assertThat(BEHIND_PROXIES
                        .resolve(from("::ffff:10.0.0.1", "X-Forwarded-For", "::ffff:203.0.113.9"))
                        .key())
                .isEqualTo("203.0.113.9");
    }

    @Test
    void readsForwardedWithQuotedAndObfuscatedIdentifiers() {
        ClientAddressResolver resolver = ClientAddressResolver.builder()
                .trustedProxies("10.0.0.0/8")
                .forwardedHeader(ForwardedHeader.FORWARDED)
                .build();
        assertThat(resolver.resolve(from(
                                "10.0.0.1",
                                "Forwarded",
                                "for=198.51.100.7, for=\"[2001:db8:cafe::17]:4711\";proto=https, for=10.1.1.1;by=_lb"))
                        .address())
                .isEqualTo("2001:db8:cafe::17");
        assertThat(resolver.resolve(from("10.0.0.1", "Forwarded", "For=\"203.0.113.9:_abc\""))
                        .address())
                .isEqualTo("203.0.113.9");
        ClientAddress hidden = resolver.resolve(from("10.0.0.1", "Forwarded", "for=_hidden7, for=10.1.1.1"));
        assertThat(hidden.address()).isEqualTo("_hidden7");
        assertThat(hidden.key()).isEqualTo("obf:10.1.1.1/_hidden7");
        assertThat(resolver.resolve(from("10.0.0.1", "Forwarded", "for=unknown"))
                        .address())
                .isEqualTo("10.0.0.1");
        assertThat(resolver.resolve(from("10.0.0.1", "Forwarded", "proto=https;by=10.0.0.1"))
                        .address())
                .isEqualTo("10.0.0.1");
        assertThat(resolver.resolve(from("10.0.0.1", "Forwarded", "for=\"_x\\\"y\", for=203.0.113.9"))
                        .address())
                .isEqualTo("203.0.113.9");
        assertThat(resolver.resolve(from("10.0.0.1", "Forwarded", "for=198.51.100.7", "Forwarded", "for=203.0.113.9"))
                        .address())
                .isEqualTo("203.0.113.9");
    }

    @Test
    void ignoresAMalformedForwardedValue() {
        ClientAddressResolver resolver = ClientAddressResolver.builder()
                .trustedProxies("10.0.0.0/8")
                .forwardedHeader(ForwardedHeader.FORWARDED)
                .build();
        for (String bad : List.of("for=\"203.0.113.9", "for=203.0.113.9:80", "=x", "for", "for=a b", "for=1;;x")) {
            assertThat(resolver.resolve(from("10.0.0.1", "Forwarded", bad)).address())
                    .as(bad)
                    .isEqualTo("10.0.0.1");
        }
        String huge = "for=198.51.100.1, ".repeat(1000) + "for=203.0.113.9";
        assertThat(resolver.resolve(from("10.0.0.1", "Forwarded", huge)).address())
                .isEqualTo("10.0.0.1");
    }

    @Test
    void readsAtMostMaxHopsForwardedElementsFromTheRight() {
        ClientAddressResolver resolver = ClientAddressResolver.builder()
                .trustedProxies("10.0.0.0/8")
                .forwardedHeader(ForwardedHeader.FORWARDED)
                .maxHops(3)
                .maxHeaderLength(64)
                .build();
        assertThat(resolver.resolve(from("10.0.0.1", "Forwarded", "for=203.0.113.9, for=10.1.1.1, for=10.2.2.2"))
                        .address())
                .isEqualTo("203.0.113.9");
        assertThat(resolver.resolve(
                                from("10.0.0.1", "Forwarded", "for=203.0.113.9,for=10.1.1.1,for=10.2.2.2,for=10.3.3.3"))
                        .address())
                .as("only the last three elements are read; all are trusted, so the left-most of them is the client")
                .isEqualTo("10.1.1.1");
        assertThat(resolver.resolve(from(
                                "10.0.0.1",
                                "Forwarded",
                                "for=198.51.100.1;proto=https;by=10.0.0.1;host=" + "a".repeat(40)))
                        .address())
                .as("a value over maxHeaderLength (64) is ignored")
                .isEqualTo("10.0.0.1");
        assertThat(resolver.resolve(from("10.0.0.1", "Forwarded", "for=\"[2001:db8::9]:_port\""))
                        .address())
                .isEqualTo("2001:db8::9");
        assertThat(resolver.resolve(from("10.0.0.1", "Forwarded", "for=\"[2001:db8::9]\""))
                        .address())
                .isEqualTo("2001:db8::9");
        assertThat(resolver.resolve(from("10.0.0.1", "Forwarded", "for=_Az09.-_x;by=_y"))
                        .address())
                .isEqualTo("_Az09.-_x");
        assertThat(resolver.resolve(from("10.0.0.1", "X-Forwarded-For", "203.0.113.9", "Forwarded", "for=10.1.1.1"))
                        .address())
                .as("the other header is not read")
                .isEqualTo("10.1.1.1");
    }

    @Test
    void readsXForwardedForToMaxHopsEntries() {
        ClientAddressResolver resolver = ClientAddressResolver.builder()
                .trustedProxies("10.0.0.0/8")
                .maxHops(2)
                .build();
        assertThat(resolver.resolve(from("10.0.0.1", "X-Forwarded-For", "203.0.113.9, 10.1.1.1"))
                        .address())
                .isEqualTo("203.0.113.9");
        assertThat(resolver.resolve(from("10.0.0.1", "X-Forwarded-For", "203.0.113.9, 10.2.2.2, 10.1.1.1"))
                        .address())
                .isEqualTo("10.2.2.2");
        assertThat(resolver.resolve(from("10.0.0.1", "X-Forwarded-For", "203.0.113.9,,10.1.1.1"))
                        .address())
                .as("an empty entry is skipped")
                .isEqualTo("203.0.113.9");
    }

    @Test
    void readsAnEnormousXForwardedForOnlyFromTheRightAndBoundedByMaxHops() {
        String forged = "198.51.100.1, ".repeat(200_000);
        assertThat(BEHIND_PROXIES
                        .resolve(from("10.0.0.1", "X-Forwarded-For", forged + "203.0.113.9"))
                        .address())
                .isEqualTo("203.0.113.9");
        String trustedHops = "10.1.1.1, ".repeat(40);
        assertThat(BEHIND_PROXIES
                        .resolve(from("10.0.0.1", "X-Forwarded-For", "203.0.113.9, " + trustedHops + "10.1.1.1"))
                        .address())
                .isEqualTo("10.1.1.1");
        assertThat(BEHIND_PROXIES
                        .resolve(from("10.0.0.1", "X-Forwarded-For", "x".repeat(100_000)))
                        .address())
                .isEqualTo("10.0.0.1");
    }

    @Test
    void readsACdnHeaderOnlyFromTheCdnsRanges() {
        ClientAddressResolver resolver = ClientAddressResolver.builder()
                .trustedProxies("10.0.0.0/8")
                .cdn("CF-Connecting-IP", "173.245.48.0/20")
                .build();
        assertThat(resolver.resolve(from("173.245.48.5", "CF-Connecting-IP", "203.0.113.9"))
                        .address())
                .isEqualTo("203.0.113.9");
        assertThat(resolver.resolve(from("198.51.100.3", "CF-Connecting-IP", "203.0.113.9"))
                        .address())
                .isEqualTo("198.51.100.3");
        assertThat(resolver.resolve(
                                from("10.0.0.1", "X-Forwarded-For", "173.245.48.5", "CF-Connecting-IP", "203.0.113.9"))
                        .address())
                .isEqualTo("203.0.113.9");
        assertThat(resolver.resolve(
                                from("10.0.0.1", "X-Forwarded-For", "198.51.100.3", "CF-Connecting-IP", "203.0.113.9"))
                        .address())
                .isEqualTo("198.51.100.3");
        assertThat(resolver.resolve(from("173.245.48.5", "CF-Connecting-IP", "bogus"))
                        .address())
                .isEqualTo("173.245.48.5");
    }

    @Test
    void aPeerThatIsNoAddressIsItsOwnClient() {
        ClientAddress odd = BEHIND_PROXIES.resolve(from("unix:/run/app.sock"));
        assertThat(odd.key()).isEqualTo("peer:unix:/run/app.sock");
        assertThat(BEHIND_PROXIES.resolve(from("x".repeat(1000))).key()).hasSizeLessThanOrEqualTo(200);
    }

    @Test
    void namesBadSettings() {
        assertThatThrownBy(() -> ClientAddressResolver.builder().trustedProxies("10.0.0.0/40"))
                .hasMessageContaining("0 to 32");
        assertThatThrownBy(() -> ClientAddressResolver.builder().ipv6Prefix(0)).hasMessageContaining("1 to 128");
        assertThatThrownBy(() -> ClientAddressResolver.builder().cdn("CF-Connecting-IP"))
                .hasMessageContaining("address ranges");
        assertThatThrownBy(() -> ClientAddressResolver.builder().maxHops(0)).hasMessageContaining("1 to 256");
        assertThatThrownBy(() -> ClientAddressResolver.builder().maxHops(257)).hasMessageContaining("1 to 256");
        assertThatThrownBy(() -> ClientAddressResolver.builder().maxHeaderLength(63))
                .hasMessageContaining("64 to 65536");
        assertThatThrownBy(() -> ClientAddressResolver.builder().maxHeaderLength(65_537))
                .hasMessageContaining("64 to 65536");
        assertThatThrownBy(() -> ClientAddressResolver.builder().ipv6Prefix(129))
                .hasMessageContaining("1 to 128");
        assertThatThrownBy(() -> ClientAddressResolver.builder().ipv4Prefix(0)).hasMessageContaining("1 to 32");
        assertThatThrownBy(() -> ClientAddressResolver.builder().ipv4Prefix(33)).hasMessageContaining("1 to 32");
        ClientAddressResolver.builder()
                .ipv6Prefix(128)
                .ipv4Prefix(32)
                .maxHops(256)
                .maxHeaderLength(64)
                .build();
        ClientAddressResolver.builder()
                .ipv6Prefix(1)
                .ipv4Prefix(1)
                .maxHops(1)
                .maxHeaderLength(65_536)
                .build();
    }
}
