package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PortalsSectionTest {
    private static final String TARGETS = """
            targets:
              - name: iqn.2026-11.io.numaiscsi:disk0
                luns: [{id: 0, backing: ram, size: 1M}]
            """;

    @Test
    void plainItemsAreTcpAndMappingsNameTheirTransport() throws ConfigException {
        TargetConfig c = ConfigLoader.parse("""
                portals:
                  - 10.0.2.15:3260
                  - {address: 10.0.2.15:3260, transport: iser}
                  - {address: "[::1]:3261", transport: TCP}
                  - address: 127.0.0.1
                """ + TARGETS, "p.yaml");
        assertEquals(
                List.of(
                        new Portal("10.0.2.15", 3260, Portal.Transport.TCP),
                        new Portal("10.0.2.15", 3260, Portal.Transport.ISER),
                        new Portal("::1", 3261, Portal.Transport.TCP),
                        new Portal("127.0.0.1", 3260, Portal.Transport.TCP)),
                c.portals());
        assertEquals("10.0.2.15:3260", c.portals().get(1).toString(), "SendTargets reports the address alone");
    }

    @Test
    void unknownTransportIsAnErrorOnItsLine() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
                portals:
                  - {address: 10.0.2.15:3260, transport: roce}
                """ + TARGETS, "p.yaml"));
        assertEquals("unknown transport \"roce\" (tcp, iser)", e.problem());
        assertEquals(2, e.line());
    }

    @Test
    void sameAddressAndTransportTwiceIsADuplicate() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
                portals:
                  - {address: 10.0.2.15:3260, transport: iser}
                  - {address: 10.0.2.15:3260, transport: iser}
                """ + TARGETS, "p.yaml"));
        assertTrue(e.problem().startsWith("duplicate portal 10.0.2.15:3260"), e.problem());
    }

    @Test
    void mappingWithoutAddressIsAnError() {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
                portals:
                  - {transport: iser}
                """ + TARGETS, "p.yaml"));
        assertEquals("is required", e.problem());
    }

    @Test
    void anIserPortalSizesItsRegisteredConnections() throws ConfigException {
        TargetConfig c = ConfigLoader.parse("""
                portals:
                  - {address: 10.0.2.15:3260, transport: iser, connections: 4}
                  - {address: 10.0.2.15:3261, transport: iser}
                """ + TARGETS, "p.yaml");
        assertEquals(4, c.portals().get(0).connections());
        assertEquals(Portal.DEFAULT_ISER_CONNECTIONS, c.portals().get(1).connections());
    }

    @Test
    void connectionsOnATcpPortalOrOutOfRangeAreErrorsOnTheirLine() {
        ConfigException tcp = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
                portals:
                  - 127.0.0.1:3260
                  - {address: 127.0.0.1:3261, connections: 8}
                """ + TARGETS, "p.yaml"));
        assertTrue(tcp.problem().startsWith("applies to iSER portals only"), tcp.problem());
        assertEquals(3, tcp.line());
        ConfigException big = assertThrows(ConfigException.class, () -> ConfigLoader.parse("""
                portals:
                  - {address: 10.0.2.15:3260, transport: iser, connections: 5000}
                """ + TARGETS, "p.yaml"));
        assertEquals(2, big.line());
        assertTrue(big.getMessage().contains("connections"), big.getMessage());
    }
}
