package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpLiteralTest {
    @ParameterizedTest
    @CsvSource({
        "192.0.2.1, 192.0.2.1",
        "0.0.0.0, 0.0.0.0",
        "255.255.255.255, 255.255.255.255",
        "192.0.2.1:8080, 192.0.2.1",
        "' 192.0.2.1 ', 192.0.2.1",
        "2001:db8::1, 2001:db8::1",
        "2001:DB8:0:0:0:0:0:1, 2001:db8::1",
        "[2001:db8::1], 2001:db8::1",
        "[2001:db8::1]:443, 2001:db8::1",
        "fe80::1%eth0, fe80::1",
        "::, ::",
        "::1, ::1",
        "1::, 1::",
        "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1",
        "2001:0:0:1:0:0:0:1, 2001:0:0:1::1",
        "2001:db8:0:0:1:0:0:0, 2001:db8:0:0:1::",
        "2001:db8:0:0:1:1:0:0, 2001:db8::1:1:0:0",
        "::ffff:192.0.2.1, 192.0.2.1",
        "[::ffff:c000:0201], 192.0.2.1",
        "::192.0.2.1, ::c000:201",
        "64:ff9b::192.0.2.33, 64:ff9b::c000:221",
    })
    void readsNodeAddressesAsProxiesWriteThemAndWritesTheCanonicalForm(String text, String canonical) {
        assertThat(IpLiteral.format(IpLiteral.parseNode(text))).isEqualTo(canonical);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                " ",
                "unknown",
                "localhost",
                "example",
                "1.2.3",
                "1.2.3.4.5",
                "256.1.1.1",
                "01.2.3.4",
                "1.2.3.04",
                "1..2.3",
                "1.2.3.",
                ".1.2.3",
                "-1.2.3.4",
                "1.2.3.4:",
                "1.2.3.4:123456",
                "1.2.3.4:http",
                "1:2:3:4:5:6:7:8:9",
                "1:2:3:4:5:6:7",
                ":1::2",
                "1:::2",
                "1::2::3",
                "12345::1",
                "g::1",
                "1:2:3:4:5:6:7::8",
                "[::1",
                "[::1]x",
                "[::1]:",
                "::1.2.3",
                "1:2:3:4:5:6:7:1.2.3.4",
                "1:",
                "_hidden",
                "0x7f.0.0.1",
                "2130706433"
            })
    void refusesWhatIsNotALiteralAddress(String text) {
        assertThat(IpLiteral.parseNode(text)).isNull();
    }

    @Test
    void refusesTextLongerThanAnyAddressWithoutReadingIt() {
        assertThat(IpLiteral.parseNode("1".repeat(100_000))).isNull();
        assertThat(IpLiteral.parseNode("1:".repeat(50) + "1")).isNull();
    }

    @Test
    void masksToAPrefix() {
        byte[] address = IpLiteral.parseNode("2001:db8:1:2:3:4:5:6");
        assertThat(IpLiteral.format(IpLiteral.mask(address, 64))).isEqualTo("2001:db8:1:2::");
        assertThat(IpLiteral.format(IpLiteral.mask(address, 60))).isEqualTo("2001:db8:1::");
        assertThat(IpLiteral.format(IpLiteral.mask(IpLiteral.parseNode("192.0.2.255"), 25)))
                .isEqualTo("192.0.2.128");
        assertThat(IpLiteral.format(IpLiteral.mask(IpLiteral.parseNode("192.0.2.255"), 0)))
                .isEqualTo("0.0.0.0");
    }

    @Property(tries = 2000)
    void agreesWithTheJdkOnEveryIpv6Address(@ForAll @Size(16) byte[] bytes) throws UnknownHostException {
        String jdk = InetAddress.getByAddress(bytes).getHostAddress();
        byte[] parsed = IpLiteral.parseNode(jdk);
        InetAddress back = InetAddress.getByAddress(parsed);
        assertThat(back).isEqualTo(InetAddress.getByAddress(bytes));
        assertThat(IpLiteral.parseNode(IpLiteral.format(parsed))).isEqualTo(parsed);
    }

    @Property(tries = 1000)
    void writesAndReadsBackEveryIpv4Address(@ForAll @Size(4) byte[] bytes) {
        assertThat(IpLiteral.parseNode(IpLiteral.format(bytes))).isEqualTo(bytes);
        assertThat(IpLiteral.format(bytes)).isEqualTo(ipv4(bytes));
    }

    private static String ipv4(byte[] b) {
        return (b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + "." + (b[3] & 0xff);
    }
}
