package io.numaiscsi.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ItNexusTest {
    @Test
    void portNamesFollowRfc7143() {
        ItNexus n = new ItNexus("iqn.1994-05.com.redhat:Host", 0x23D000000001L, "iqn.2024-01.io.numaiscsi:disk1", 1);
        assertEquals("iqn.1994-05.com.redhat:host,i,0x23d000000001", n.initiatorPortName());
        assertEquals("iqn.2024-01.io.numaiscsi:disk1,t,0x0001", n.targetPortName());
    }

    @Test
    void equalityIsByPorts() {
        ItNexus a = new ItNexus("iqn.a:x", 1, "iqn.t:y", 1);
        assertEquals(a, new ItNexus("IQN.A:X", 1, "iqn.t:y", 1));
        assertEquals(a.hashCode(), new ItNexus("iqn.a:x", 1, "iqn.t:y", 1).hashCode());
        assertNotEquals(a, new ItNexus("iqn.a:x", 2, "iqn.t:y", 1));
        assertNotEquals(a, new ItNexus("iqn.a:x", 1, "iqn.t:y", 2));
    }

    @Test
    void rejectsOutOfRangeIds() {
        assertThrows(IllegalArgumentException.class, () -> new ItNexus("i", 1L << 48, "t", 1));
        assertThrows(IllegalArgumentException.class, () -> new ItNexus("i", 1, "t", 0x10000));
    }
}
