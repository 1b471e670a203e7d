package com.fairpix.webhooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** Every deny-listed address form is refused, written as a literal and returned by a (stubbed) resolver, with a reason. */
class UrlGuardTest {
    private static UrlGuard guardResolvingTo(InetAddress... addresses) {
        return new UrlGuard(false, List.of(), host -> addresses);
    }

    private static final UrlGuard NO_DNS = new UrlGuard(false, List.of(), host -> {
        throw new UnknownHostException(host);
    });

    /** address text, the words the reason must contain. */
    static Stream<Arguments> denied() {
        return Stream.of(
                Arguments.of("0.0.0.0", "this network"),
                Arguments.of("10.1.2.3", "private"),
                Arguments.of("100.64.0.1", "carrier-grade NAT"),
                Arguments.of("127.0.0.1", "loopback"),
                Arguments.of("127.255.255.254", "loopback"),
                Arguments.of("169.254.169.254", "link-local"),
                Arguments.of("172.16.0.1", "private"),
                Arguments.of("172.31.255.255", "private"),
                Arguments.of("192.0.0.8", "IETF protocol"),
                Arguments.of("192.0.2.1", "documentation"),
                Arguments.of("192.88.99.1", "6to4 relay"),
                Arguments.of("192.168.1.1", "private"),
                Arguments.of("198.18.0.1", "benchmarking"),
                Arguments.of("198.51.100.7", "documentation"),
                Arguments.of("203.0.113.9", "documentation"),
                Arguments.of("224.0.0.1", "multicast"),
                Arguments.of("239.255.255.250", "multicast"),
                Arguments.of("240.0.0.1", "reserved"),
                Arguments.of("255.255.255.255", "reserved"),
                Arguments.of("::", "unspecified"),
                Arguments.of("::1", "IPv6 loopback"),
                Arguments.of("::7f00:1", "IPv4-compatible"),
                Arguments.of("64:ff9b::7f00:1", "NAT64"),
                Arguments.of("64:ff9b:1::a00:1", "NAT64"),
                Arguments.of("100::1", "discard"),
                Arguments.of("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"),
                Arguments.of("2001:db8::1", "documentation"),
                Arguments.of("2002:7f00:1::1", "6to4"),
                Arguments.of("fc00::1", "unique local"),
                Arguments.of("fd12:3456:789a::1", "unique local"),
                Arguments.of("fe80::1", "link-local"),
                Arguments.of("fec0::1", "site-local"),
                Arguments.of("ff02::1", "multicast"));
    }

    @ParameterizedTest(name = "literal {0}")
    @MethodSource("denied")
    void aDeniedAddressWrittenAsALiteralIsRefusedWithItsRange(String address, String reason) {
        String host = address.contains(":") ? "[" + address + "]" : address;
        assertThatThrownBy(() -> NO_DNS.check("https://" + host + "/hook"))
                .isInstanceOf(UrlGuard.RefusedException.class)
                .hasMessageContaining(reason)
                .hasMessageContaining("public addresses");
    }

    @ParameterizedTest(name = "resolved {0}")
    @MethodSource("denied")
    void aHostResolvingToADeniedAddressIsRefusedWithoutNamingTheAddressItResolvedTo(String address, String reason) throws Exception {
        InetAddress a = InetAddress.getByName(address);
        assertThatThrownBy(() -> guardResolvingTo(a).check("https://hooks.example.com/hook"))
                .isInstanceOfSatisfying(UrlGuard.RefusedException.class, e -> {
                    assertThat(e.getMessage()).contains("resolves to an address webhooks may not reach", "public addresses")
                            .doesNotContain(a.getHostAddress());
                    assertThat(e.detail()).as("operators' detail").contains(a.getHostAddress(), reason);
                });
    }

    @Test
    void anIpv4MappedIpv6AddressIsRefusedAsLiteralAndResolved() throws Exception {
        assertThatThrownBy(() -> NO_DNS.check("https://[::ffff:127.0.0.1]/")).hasMessageContaining("IPv4-mapped");
        assertThatThrownBy(() -> NO_DNS.check("https://[::ffff:8.8.8.8]/")).hasMessageContaining("IPv4-mapped");
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        mapped[12] = 8;
        mapped[13] = 8;
        mapped[14] = 8;
        mapped[15] = 8;
        InetAddress v6 = Inet6Address.getByAddress(null, mapped, -1);
        assertThat(v6).isInstanceOf(Inet6Address.class);
        assertThatThrownBy(() -> guardResolvingTo(v6).check("https://hooks.example.com/"))
                .isInstanceOfSatisfying(UrlGuard.RefusedException.class, e -> assertThat(e.detail()).contains("IPv4-mapped"))
                .hasMessageNotContaining("8.8.8.8");
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"2130706433", "0x7f000001", "0177.0.0.1", "0x7f.0.0.1", "127.1", "127.0.1",
            "127.000.000.001", "017700000001", "1.2.3.4.", "0x08.0x08.0x08.0x08", "8.8.8.010"})
    void nonCanonicalIpLiteralsAreRefused(String host) {
        assertThatThrownBy(() -> NO_DNS.check("https://" + host + "/"))
                .isInstanceOf(UrlGuard.RefusedException.class)
                .hasMessageContaining("non-canonical IP literal");
    }

    @Test
    void oneDeniedAddressAmongPublicOnesRefusesTheHost() throws Exception {
        UrlGuard g = guardResolvingTo(InetAddress.getByName("93.184.216.34"), InetAddress.getByName("10.0.0.5"));
        assertThatThrownBy(() -> g.check("https://hooks.example.com/"))
                .isInstanceOfSatisfying(UrlGuard.RefusedException.class, e -> assertThat(e.detail()).contains("10.0.0.5", "private"))
                .hasMessageNotContaining("10.0.0.5").hasMessageContaining("may not reach");
    }

    @Test
    void aPublicHostPassesAndReturnsTheAddressesToPinTo() throws Exception {
        InetAddress a = InetAddress.getByName("93.184.216.34");
        UrlGuard.Checked c = guardResolvingTo(a).check("https://hooks.example.com:8443/x?y=1");
        assertThat(c.addresses()).containsExactly(a);
        assertThat(c.host()).isEqualTo("hooks.example.com");
        assertThat(c.port()).isEqualTo(8443);
    }

    @Test
    void httpNeedsTheFlagAndOtherSchemesNeverPass() throws Exception {
        InetAddress a = InetAddress.getByName("93.184.216.34");
        assertThatThrownBy(() -> guardResolvingTo(a).check("http://hooks.example.com/")).hasMessageContaining("FAIRPIX_WEBHOOKS_ALLOW_HTTP");
        assertThat(new UrlGuard(true, List.of(), h -> new InetAddress[] {a}).check("http://hooks.example.com/").port()).isEqualTo(80);
        assertThatThrownBy(() -> guardResolvingTo(a).check("ftp://hooks.example.com/")).hasMessageContaining("https");
        assertThatThrownBy(() -> guardResolvingTo(a).check("file:///etc/passwd")).hasMessageContaining("https");
        assertThatThrownBy(() -> guardResolvingTo(a).check("https://user:pw@hooks.example.com/")).hasMessageContaining("user info");
    }

    @Test
    void anUnresolvableHostIsRefused() {
        assertThatThrownBy(() -> NO_DNS.check("https://nowhere.invalid/")).hasMessageContaining("does not resolve");
    }

    @Test
    void theAllowListLetsTestsReachLoopbackOnly() throws Exception {
        UrlGuard g = new UrlGuard(true, UrlGuard.parseAllowList("127.0.0.1/32"), h -> new InetAddress[] {InetAddress.getByName("127.0.0.1")});
        assertThat(g.check("http://127.0.0.1:9000/hook").addresses()).hasSize(1);
        assertThat(g.check("http://localhost:9000/hook").addresses()).hasSize(1);
        assertThatThrownBy(() -> g.check("http://127.0.0.2/")).hasMessageContaining("loopback");
        assertThatThrownBy(() -> g.check("http://[::1]/")).hasMessageContaining("loopback");
    }
}
