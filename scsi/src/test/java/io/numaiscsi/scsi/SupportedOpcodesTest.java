package io.numaiscsi.scsi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SupportedOpcodesTest {
    private final Harness h = new Harness();

    @Test
    void allCommandsWithoutAndWithTimeouts() {
        byte[] d = h.good("a3 0c 00 00 0000 00010000 00 00");
        // all but REPORT TARGET PORT GROUPS (needs ALUA) and SET TARGET PORT GROUPS (a unit that moves between
        // gateways)
        int n = SupportedOpcodes.COMMANDS.length - 2;
        assertEquals(n * 8, Cdb.u32(d, 0));
        assertEquals(4 + n * 8, d.length);
        boolean sawRead10 = false;
        for (int i = 0; i < n; i++) {
            int at = 4 + 8 * i;
            if ((d[at] & 0xFF) == 0x28) {
                sawRead10 = true;
                assertEquals(10, Cdb.u16(d, at + 6));
                assertEquals(0, d[at + 5] & 1, "no service action");
            }
        }
        assertTrue(sawRead10);
        byte[] t = h.good("a3 0c 80 00 0000 00010000 00 00");
        assertEquals(n * 20, Cdb.u32(t, 0));
        assertEquals(0x02, t[4 + 5] & 0x02, "CTDP");
        assertEquals(0x0A, Cdb.u16(t, 4 + 8));
    }

    @Test
    void oneCommandWithUsageMap() {
        byte[] d = h.good("a3 0c 01 28 0000 00000100 00 00");
        assertEquals(3, d[1] & 0x07, "supported");
        assertEquals(10, Cdb.u16(d, 2));
        assertEquals(0x28, d[4] & 0xFF, "usage map starts with the opcode");
        assertEquals(4 + 10, d.length);
        byte[] rctd = h.good("a3 0c 81 2a 0000 00000100 00 00");
        assertEquals(0x80, rctd[1] & 0x80, "CTDP");
        assertEquals(4 + 10 + 12, rctd.length);
        byte[] unsupported = h.good("a3 0c 01 a1 0000 00000100 00 00");
        assertEquals(1, unsupported[1] & 0x07, "not supported");
        h.check("a3 0c 01 9e 0000 00000100 00 00", SenseReason.INVALID_FIELD_IN_CDB);
    }

    @Test
    void serviceActionCommands() {
        byte[] d = h.good("a3 0c 02 9e 0010 00000100 00 00");
        assertEquals(3, d[1] & 0x07);
        assertEquals(16, Cdb.u16(d, 2));
        assertEquals(0x10, d[5] & 0x1F, "service action in the usage map");
        h.check("a3 0c 02 28 0000 00000100 00 00", SenseReason.INVALID_FIELD_IN_CDB);
        // the field pointer names REPORTING OPTIONS (byte 2): the command exists, the options do not fit the opcode
        ScsiTask t = h.run(0, "a3 0c 02 00 0000 00000100 00 00");
        byte[] sense = t.senseBuffer();
        assertEquals(0xC0, sense[15] & 0xC0, "SKSV, C/D");
        assertEquals(2, Cdb.u16(sense, 16), "field pointer");
        t.recycle();
        byte[] missing = h.good("a3 0c 02 9e 001f 00000100 00 00");
        assertEquals(1, missing[1] & 0x07);
    }

    @Test
    void newCommandsAreListedWithTheirUsageMaps() {
        for (int opcode : new int[] {0x37, 0x8B, 0x9C, 0xB7}) {
            byte[] d = h.good(String.format("a3 0c 01 %02x 0000 00000100 00 00", opcode));
            assertEquals(3, d[1] & 0x07, () -> "opcode " + opcode + " supported");
            assertEquals(opcode, d[4] & 0xFF);
        }
        byte[] orWrite = h.good("a3 0c 01 8b 0000 00000100 00 00");
        assertEquals(0x18, orWrite[4 + 1] & 0x18, "DPO and FUA in the usage map, as DPOFUA says");
    }

    @Test
    void tableAgreesWithTheDecoder() {
        for (SupportedOpcodes.Entry e : SupportedOpcodes.COMMANDS) {
            assertEquals(Cdb.lengthOf(e.opcode()), e.usage().length, () -> "CDB length of " + e.opcode());
            assertEquals(e.opcode(), e.usage()[0]);
        }
        assertNotNull(SupportedOpcodes.find(0x5F, 7), "REGISTER AND MOVE");
        assertNull(SupportedOpcodes.find(0x5F, 8), "REPLACE LOST RESERVATION is not supported");
    }
}
