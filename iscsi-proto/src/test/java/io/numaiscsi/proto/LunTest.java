package io.numaiscsi.proto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class LunTest {
    @Test
    void encodeDecodeTable() {
        // lun, raw 8-byte LUN field
        long[][] cases = {
            {0, 0x0000_0000_0000_0000L},
            {1, 0x0001_0000_0000_0000L},
            {255, 0x00ff_0000_0000_0000L}, // last peripheral-method LUN
            {256, 0x4100_0000_0000_0000L}, // first flat-space LUN
            {0x1234, 0x5234_0000_0000_0000L},
            {16383, 0x7fff_0000_0000_0000L},
        };
        for (long[] c : cases) {
            assertEquals(c[1], Lun.encode((int) c[0]), "encode " + c[0]);
            assertEquals(c[0], Lun.decode(c[1]), "decode " + Long.toHexString(c[1]));
        }
    }

    @Test
    void decodesFlatSpaceSmallLuns() {
        assertEquals(5, Lun.decode(0x4005_0000_0000_0000L));
    }

    @Test
    void unsupportedFormats() {
        long[] raws = {
            0x0105_0000_0000_0000L, // peripheral method, bus 1
            0x8001_0000_0000_0000L, // logical unit addressing method
            0xc000_0000_0000_0000L, // extended addressing
            0x0001_0001_0000_0000L, // second level present
            0x0000_0000_0000_0001L,
        };
        for (long raw : raws) {
            assertEquals(-1, Lun.decode(raw), Long.toHexString(raw));
        }
    }

    @Test
    void encodeRejectsOutOfRange() {
        assertThrows(IllegalArgumentException.class, () -> Lun.encode(-1));
        assertThrows(IllegalArgumentException.class, () -> Lun.encode(16384));
    }
}
