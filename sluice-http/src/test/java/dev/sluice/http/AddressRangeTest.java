package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AddressRangeTest {
    @Test
    void holdsTheAddressesOfItsBlockOnly() {
        AddressRange ten = AddressRange.parse("10.0.0.0/8");
        assertThat(ten.contains(IpLiteral.parseNode("10.255.3.4"))).isTrue();
        assertThat(ten.contains(IpLiteral.parseNode("11.0.0.0"))).isFalse();
        assertThat(ten.contains(IpLiteral.parseNode("::ffff:10.1.2.3"))).isTrue();
        assertThat(ten.contains(IpLiteral.parseNode("::a01:203"))).isFalse();

        AddressRange odd = AddressRange.parse("192.0.2.128/25");
        assertThat(odd.contains(IpLiteral.parseNode("192.0.2.128"))).isTrue();
        assertThat(odd.contains(IpLiteral.parseNode("192.0.2.255"))).isTrue();
        assertThat(odd.contains(IpLiteral.parseNode("192.0.2.127"))).isFalse();

        AddressRange v6 = AddressRange.parse("2001:db8::/33");
        assertThat(v6.contains(IpLiteral.parseNode("2001:db8:7fff::1"))).isTrue();
        assertThat(v6.contains(IpLiteral.parseNode("2001:db8:8000::1"))).isFalse();
        assertThat(v6.contains(IpLiteral.parseNode("10.0.0.1"))).isFalse();
    }

    @Test
    void oneAddressIsABlockOfOne() {
        AddressRange one = AddressRange.parse("192.0.2.7");
        assertThat(one.contains(IpLiteral.parseNode("192.0.2.7"))).isTrue();
        assertThat(one.contains(IpLiteral.parseNode("192.0.2.6"))).isFalse();
        assertThat(one).hasToString("192.0.2.7/32");
        assertThat(AddressRange.parse("::ffff:10.0.0.0/104")).hasToString("10.0.0.0/8");
        assertThat(AddressRange.parse("0.0.0.0/0").contains(IpLiteral.parseNode("203.0.113.9")))
                .isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/x", "2001:db8::/129", "proxy.local", "10.0.0/8"})
    void namesTheMalformedRange(String text) {
        assertThatThrownBy(() -> AddressRange.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + text + "'");
    }
}
