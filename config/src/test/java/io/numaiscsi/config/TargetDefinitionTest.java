package io.numaiscsi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TargetDefinitionTest {

    private static final LunDefinition RAM0 = new LunDefinition(0, BackingType.RAM, null, 1 << 20, 512, null);

    @Test
    void emptyAllowListAllowsAnyNamedInitiator() {
        TargetDefinition t = new TargetDefinition("iqn.2026-11.io.x:t", null, List.of(), List.of(RAM0));
        assertTrue(t.allows("iqn.1994-05.com.redhat:anyone"));
        assertFalse(t.allows(""));
        assertFalse(t.allows(null));
    }

    @Test
    void allowListComparesNormalizedNames() {
        TargetDefinition t = new TargetDefinition(
                "iqn.2026-11.io.x:t",
                null,
                List.of("iqn.1994-05.com.redhat:client1", "eui.02004567A425678D"),
                List.of(RAM0));
        assertTrue(t.allows("iqn.1994-05.com.redhat:client1"));
        assertTrue(t.allows("eui.02004567a425678d"));
        assertFalse(t.allows("iqn.1994-05.com.redhat:client2"));
    }

    @Test
    void derivedSerialIsStableAndDistinctPerLun() {
        TargetDefinition t = new TargetDefinition(
                "iqn.2026-11.io.x:t",
                null,
                List.of(),
                List.of(RAM0, new LunDefinition(1, BackingType.RAM, null, 1 << 20, 512, null)));
        String s0 = t.serialOf(t.lun(0));
        assertEquals(16, s0.length());
        assertTrue(s0.matches("[0-9a-f]{16}"));
        assertEquals(s0, new TargetDefinition("IQN.2026-11.IO.X:T", null, List.of(), List.of(RAM0)).serialOf(RAM0));
        assertNotEquals(s0, t.serialOf(t.lun(1)));
        LunDefinition named = new LunDefinition(2, BackingType.RAM, null, 1 << 20, 512, "SN-1");
        assertEquals("SN-1", t.serialOf(named));
    }

    @Test
    void listsAreDefensiveCopies() {
        List<LunDefinition> luns = new ArrayList<>(List.of(RAM0));
        TargetDefinition t = new TargetDefinition("iqn.2026-11.io.x:t", null, List.of(), luns);
        luns.clear();
        assertEquals(1, t.luns().size());
        assertThrows(UnsupportedOperationException.class, () -> t.luns().add(RAM0));
    }
}
