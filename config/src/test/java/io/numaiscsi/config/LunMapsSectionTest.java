package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class LunMapsSectionTest {
    private static List<LunMap> read(String maps) throws ConfigException {
        String yaml = "targets:\n  - name: iqn.2026-11.io.numaiscsi:t\n"
                + "    luns: [{id: 0, backing: ram, size: 1M}, {id: 1, backing: ram, size: 1M}, "
                + "{id: 2, backing: ram, size: 1M}]\n" + maps;
        return ConfigLoader.parse(yaml, "t.yaml").targets().get(0).lunMaps();
    }

    @Test
    void mapsWithOwnAndOtherNumbers() throws ConfigException {
        assertEquals(List.of(), read(""));
        assertEquals(
                List.of(
                        new LunMap(
                                List.of("iqn.1994-05.com.redhat:db1", "iqn.1994-05.com.redhat:db2"),
                                List.of(new LunMap.Mapped(0, 0), new LunMap.Mapped(1, 1))),
                        new LunMap(List.of("iqn.1994-05.com.redhat:backup"), List.of(new LunMap.Mapped(2, 0))),
                        new LunMap(List.of("*"), List.of())),
                read("""
                            lun-maps:
                              - initiators: [iqn.1994-05.com.redhat:db1, iqn.1994-05.com.redhat:db2]
                                luns: [0, 1]
                              - initiators: [iqn.1994-05.com.redhat:backup]
                                luns: [{lun: 2, as: 0}]
                              - initiators: ["*"]
                                luns: []
                        """));
    }

    @Test
    void badMapsNameWhatIsWrong() {
        expect(
                "      - {initiators: [iqn.1994-05.com.redhat:a], luns: [3]}\n",
                "targets[0].lun-maps[0].luns[0]",
                "the target has no LUN 3");
        expect(
                "      - {initiators: [iqn.1994-05.com.redhat:a], luns: [0, {lun: 1, as: 0}]}\n",
                "targets[0].lun-maps[0].luns[1].as",
                "LUN number 0 appears twice in this map (also " + "targets[0].lun-maps[0].luns[0] at line 5)");
        expect(
                "      - {initiators: [iqn.1994-05.com.redhat:a], luns: [0]}\n"
                        + "      - {initiators: [iqn.1994-05.com.redhat:a], luns: [1]}\n",
                "targets[0].lun-maps[1].initiators[0]",
                "initiator iqn.1994-05.com.redhat:a is in two LUN maps (also "
                        + "targets[0].lun-maps[0].initiators[0] at line 5)");
        expect(
                "      - {initiators: [], luns: [0]}\n",
                "targets[0].lun-maps[0].initiators",
                "must name at least one initiator (or \"*\")");
    }

    private static void expect(String entries, String keyPath, String problem) {
        ConfigException e = assertThrows(ConfigException.class, () -> read("    lun-maps:\n" + entries));
        assertEquals(keyPath, e.keyPath(), e.getMessage());
        assertEquals(problem, e.problem(), e.getMessage());
    }

    @Test
    void aLunRemovedLeavesTheMaps() throws ConfigException {
        TargetDefinition t = ConfigLoader.parse(
                        "targets:\n  - name: iqn.2026-11.io.numaiscsi:t\n"
                                + "    luns: [{id: 0, backing: ram, size: 1M}, {id: 1, backing: ram, size: 1M}]\n"
                                + "    lun-maps: [{initiators: ['*'], luns: [0, 1]}]\n",
                        "t.yaml")
                .targets()
                .get(0);
        assertEquals(
                List.of(new LunMap(List.of("*"), List.of(new LunMap.Mapped(0, 0)))),
                t.withLuns(List.of(t.lun(0))).lunMaps());
    }
}
