package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A target's {@code alua:}: defaults, a gateway pair's two halves, and errors that name the line and key. */
class AluaSectionTest {
    private static final String TARGET = "iqn.2026-11.io.numaiscsi:ha";

    private static String target(String alua) {
        return "targets:\n  - name: " + TARGET + "\n" + alua + "    luns: [{id: 0, backing: ram, size: 1M}]\n";
    }

    private static AluaDefinition alua(String yaml) throws ConfigException {
        return ConfigLoader.parse(target(yaml), "t.yaml").targets().get(0).alua();
    }

    @Test
    void withoutTheKeyThereIsNoAlua() throws ConfigException {
        assertNull(alua(""));
    }

    @Test
    void aGatewayPairsTwoHalves() throws ConfigException {
        AluaDefinition a = alua("    alua: {group: 1, state: active-optimized, peers: [{group: 2, state: "
                + "active-non-optimized}]}\n");
        assertEquals(
                new AluaDefinition(
                        1,
                        1,
                        "active-optimized",
                        List.of(new AluaDefinition.Peer(2, "active-non-optimized", List.of(2)))),
                a,
                "ports default to the group");
        AluaDefinition b = alua("""
                    alua:
                      group: 20
                      port: 2
                      state: active-non-optimized
                      peers:
                        - {group: 10, state: active-optimized, ports: [1, 3]}
                """);
        assertEquals(
                new AluaDefinition(
                        2,
                        20,
                        "active-non-optimized",
                        List.of(new AluaDefinition.Peer(10, "active-optimized", List.of(1, 3)))),
                b);
    }

    @Test
    void badValuesNameTheirLineAndKey() {
        expect(
                "    alua: {group: 1, state: optimized}\n",
                3,
                "targets[0].alua.state",
                "unknown ALUA state \"optimized\" (active-optimized, active-non-optimized, standby, unavailable)");
        expect("    alua: {group: 0, state: standby}\n", 3, "targets[0].alua.group", null);
        expect("    alua: {state: standby}\n", 3, "targets[0].alua.group", "is required");
        expect(
                "    alua: {group: 1, state: standby, peers: [{group: 1, state: standby}]}\n",
                3,
                "targets[0].alua.peers[0].group",
                "target port group 1 is used twice (also targets[0].alua.group at line 3)");
        expect(
                "    alua: {group: 1, port: 2, state: standby, peers: [{group: 2, state: standby}]}\n",
                3,
                "targets[0].alua.peers[0].group",
                null);
        expect(
                "    alua: {group: 1, state: standby, peers: [{group: 2, state: standby, ports: [1]}]}\n",
                3,
                "targets[0].alua.peers[0].ports[0]",
                null);
        expect("    alua: {group: 1, state: standby, preferred: true}\n", 3, "targets[0].alua.preferred", null);
    }

    private static void expect(String yaml, int line, String keyPath, String problem) {
        ConfigException e = assertThrows(ConfigException.class, () -> alua(yaml));
        assertEquals(line, e.line(), e.getMessage());
        assertEquals(keyPath, e.keyPath(), e.getMessage());
        if (problem != null) {
            assertEquals(problem, e.problem(), e.getMessage());
        }
    }
}
