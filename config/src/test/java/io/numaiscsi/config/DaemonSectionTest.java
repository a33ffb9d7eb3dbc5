package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** {@code daemon.event-model}: default, both values, and a bad value's message. */
class DaemonSectionTest {
    private static final String TARGETS = "targets:\n  - name: iqn.2026-11.io.numaiscsi:d\n    luns: [{id: 0, backing: ram, size: 1M}]\n";

    @Test
    void eventModelDefaultsToPerLun() throws ConfigException {
        assertEquals(DaemonSettings.EventModel.PER_LUN, ConfigLoader.parse(TARGETS, "t.yaml").daemon().eventModel());
    }

    @Test
    void eventModelValues() throws ConfigException {
        assertEquals(DaemonSettings.EventModel.CENTRALIZED,
                ConfigLoader.parse("daemon:\n  event-model: centralized\n" + TARGETS, "t.yaml").daemon().eventModel());
        assertEquals(DaemonSettings.EventModel.PER_LUN,
                ConfigLoader.parse("daemon:\n  event-model: per-lun\n" + TARGETS, "t.yaml").daemon().eventModel());
    }

    @Test
    void badEventModelNamesFileLineAndKey() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLoader.parse("daemon:\n  event-model: threaded\n" + TARGETS, "t.yaml"));
        assertEquals("t.yaml:2: daemon.event-model: \"threaded\" is not an event model (use per-lun or centralized)",
                e.getMessage());
    }
}
