package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class NetworkRangeTest {

    static Stream<Arguments> membership() {
        return Stream.of(
                Arguments.of("127.0.0.0/8", "127.0.0.1", true),
                Arguments.of("127.0.0.0/8", "128.0.0.1", false),
                Arguments.of("10.1.0.0/16", "10.1.255.255", true),
                Arguments.of("10.1.0.0/16", "10.2.0.0", false),
                Arguments.of("192.168.1.128/25", "192.168.1.200", true),
                Arguments.of("192.168.1.128/25", "192.168.1.127", false),
                Arguments.of("0.0.0.0/0", "8.8.8.8", true),
                Arguments.of("0.0.0.0/0", "::1", false),
                Arguments.of("10.0.0.7", "10.0.0.7", true),
                Arguments.of("10.0.0.7", "10.0.0.8", false),
                Arguments.of("::1/128", "::1", true),
                Arguments.of("::1", "127.0.0.1", false),
                Arguments.of("fd00::/8", "fd12:3456::1", true),
                Arguments.of("fd00::/8", "fe80::1", false));
    }

    @ParameterizedTest(name = "{1} in {0}: {2}")
    @MethodSource("membership")
    void contains(String network, String address, boolean expected) throws Exception {
        assertEquals(expected, NetworkRange.parse(network).contains(InetAddress.getByName(address)));
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                Arguments.of("localhost", "is not a network"),
                Arguments.of("example.com/8", "is not a network"),
                Arguments.of("256.0.0.0/8", "is not a network"),
                Arguments.of("10.0.0/8", "is not a network"),
                Arguments.of("10.0.0.0/33", "prefix length must be 0..32"),
                Arguments.of("10.0.0.0/-1", "prefix length must be 0..32"),
                Arguments.of("fd00::/129", "prefix length must be 0..128"),
                Arguments.of("10.0.0.1/8", "has host bits set (did you mean 10.0.0.0/8?)"),
                Arguments.of("", "is not a network"));
    }

    @ParameterizedTest(name = "[{index}] \"{0}\"")
    @MethodSource("invalid")
    void rejects(String text, String problem) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NetworkRange.parse(text));
        assertTrue(e.getMessage().contains(problem), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "10.0.0.0/8, 10.0.0.0/8",
        "10.1.2.3, 10.1.2.3/32",
        "fd00::/8, fd00::/8",
        "::1, ::1/128",
        "'0:0:0:0:0:0:0:0/0', ::/0",
        "2001:DB8:0:0:1:0:0:1, 2001:db8::1:0:0:1/128",
        "fe80:0:0:0:1:2:3:4/128, fe80::1:2:3:4/128"
    })
    void printsCanonically(String text, String printed) {
        assertEquals(printed, NetworkRange.parse(text).toString());
    }

    @Test
    void nullAddressIsNeverInside() {
        assertFalse(NetworkRange.parse("0.0.0.0/0").contains(null));
    }

    @Test
    void allowNetworksInTheConfig() throws Exception {
        TargetConfig c = ConfigLoader.parse(
                "targets:\n  - name: iqn.2026-11.io.numaiscsi:d\n"
                        + "    allow-networks: [127.0.0.0/8, \"fd00::/8\"]\n    luns: [{id: 0, backing: ram, size: 1M}]\n",
                "t.yaml");
        TargetDefinition t = c.targets().get(0);
        assertEquals(List.of(NetworkRange.parse("127.0.0.0/8"), NetworkRange.parse("fd00::/8")), t.allowNetworks());
        assertTrue(t.allowsAddress(InetAddress.getByName("127.0.0.1")));
        assertFalse(t.allowsAddress(InetAddress.getByName("10.0.0.1")));
        assertTrue(
                new TargetDefinition("iqn.2026-11.io.numaiscsi:d", null, List.of(), t.luns())
                        .allowsAddress(InetAddress.getByName("10.0.0.1")),
                "no allow-networks: any address");
    }

    @Test
    void badNetworkInTheConfigNamesItsLine() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parse(
                        "targets:\n  - name: iqn.2026-11.io.numaiscsi:d\n    allow-networks:\n      - 127.0.0.0/8\n"
                                + "      - 10.0.0.1/8\n    luns: [{id: 0, backing: ram, size: 1M}]\n",
                        "t.yaml"));
        assertEquals(5, e.line());
        assertEquals("targets[0].allow-networks[1]", e.keyPath());
        ConfigException empty = assertThrows(
                ConfigException.class,
                () -> ConfigLoader.parse(
                        "targets:\n  - name: iqn.2026-11.io.numaiscsi:d\n    allow-networks: []\n"
                                + "    luns: [{id: 0, backing: ram, size: 1M}]\n",
                        "t.yaml"));
        assertEquals("targets[0].allow-networks", empty.keyPath());
    }
}
