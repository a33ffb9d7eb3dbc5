package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@code backing: null} is the null store although YAML reads a bare null as "no value". */
class NullBackingTest {
    private static TargetConfig lun(String entry) throws ConfigException {
        return ConfigLoader.parse(
                "daemon: {data-dir: /tmp/null-backing}\n"
                        + "targets:\n  - name: iqn.2026-11.io.numaiscsi:disk0\n"
                        + "    luns: [" + entry + "]\n",
                "t.yaml");
    }

    private static BackingType backingOf(String entry) throws ConfigException {
        return lun(entry).targets().get(0).luns().get(0).backing();
    }

    @Test
    void nullWrittenBareOrQuotedIsTheNullStore() throws ConfigException {
        assertEquals(BackingType.NULL, backingOf("{id: 0, backing: null, size: 1G}"));
        assertEquals(BackingType.NULL, backingOf("{id: 0, backing: \"null\", size: 1G}"));
        assertEquals(BackingType.NULL, backingOf("{id: 0, backing: NULL, size: 1G}"));
    }

    @Test
    void anEmptyOrTildeBackingIsAnErrorNotAFile() {
        for (String empty : new String[] {"{id: 0, backing: , size: 1G}", "{id: 0, backing: ~, size: 1G}"}) {
            ConfigException e = assertThrows(ConfigException.class, () -> lun(empty), empty);
            assertTrue(
                    e.getMessage()
                            .contains("targets[0].luns[0].backing: has no value (use file, ram, block, rbd or null)"),
                    e.getMessage());
        }
    }

    @Test
    void aNullStoreTakesNoPath() {
        ConfigException e =
                assertThrows(ConfigException.class, () -> lun("{id: 0, backing: null, size: 1G, path: x.img}"));
        assertTrue(
                e.getMessage().contains("is only used with backing: file or block (remove it for backing: null)"),
                e.getMessage());
    }
}
