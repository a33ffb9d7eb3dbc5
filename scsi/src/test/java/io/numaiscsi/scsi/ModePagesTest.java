package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.B;
import static io.numaiscsi.scsi.Harness.cdb;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ModePagesTest {
    private final Harness h = new Harness();

    @Test
    void modeSense6AllPagesWithBlockDescriptor() {
        byte[] d = h.good("1a 00 3f 00 ff 00");
        assertEquals(d.length - 1, d[0] & 0xFF, "mode data length");
        assertEquals(0, d[2] & 0x80, "WP 0");
        assertEquals(8, d[3], "block descriptor length");
        assertEquals(16384, Cdb.u32(d, 4));
        assertEquals(512, Cdb.u32(d, 8) & 0xFFFFFF);
        int at = 12;
        int[] expected = {0x01, 0x08, 0x0A, 0x1C};
        for (int page : expected) {
            assertEquals(page, d[at] & 0x3F);
            at += 2 + d[at + 1];
        }
        assertEquals(d.length, at);
    }

    @Test
    void cachingPageHasWriteCacheEnabled() {
        byte[] d = h.good("1a 08 08 00 ff 00"); // DBD
        assertEquals(0, d[3]);
        assertEquals(0x08, d[4]);
        assertEquals(0x12, d[5]);
        assertEquals(0x04, d[6] & 0x04, "WCE");
    }

    @Test
    void modeSense10WithLongLba() {
        byte[] d = h.good("5a 10 0a 00 00 00 00 00 ff 00");
        assertEquals(d.length - 2, Cdb.u16(d, 0));
        assertEquals(1, d[4] & 1, "LONGLBA");
        assertEquals(16, Cdb.u16(d, 6));
        assertEquals(16384, Cdb.u64(d, 8));
        assertEquals(0x0A, d[24]);
    }

    @Test
    void pageControlVariants() {
        byte[] changeable = h.good("1a 08 4a 00 ff 00");
        assertEquals(0x04, changeable[6], "D_SENSE is changeable");
        assertEquals(0x08, changeable[8], "and SWP");
        h.check("1a 00 ca 00 ff 00", SenseReason.SAVING_PARAMETERS_NOT_SUPPORTED);
        h.check("1a 00 05 00 ff 00", SenseReason.INVALID_FIELD_IN_CDB);
        h.check("1a 00 0a 01 ff 00", SenseReason.INVALID_FIELD_IN_CDB);
        h.good("1a 00 3f ff ff 00");
    }

    @Test
    void modeSelectDSenseSwitchesToDescriptorSense() {
        byte[] current = h.good("1a 08 0a 00 ff 00");
        byte[] list = Arrays.copyOf(current, current.length);
        list[0] = 0;
        list[4 + 2] |= 0x04;
        h.good(B, 0, cdb("000000000000"), null);
        h.good(A, 0, cdb("15 10 00 00 " + String.format("%02x", list.length) + " 00"), list);
        ScsiTask t = h.run(A, 0, cdb("ff 00 00 00 00 00"), null);
        assertEquals(0x72, t.senseBuffer()[0], "descriptor format after D_SENSE=1");
        t.recycle();
        h.check(B, 0, cdb("000000000000"), null, SenseReason.MODE_PARAMETERS_CHANGED);
        h.target.logicalUnitReset(0, A);
        ScsiTask after = h.run(A, 0, cdb("ff 00 00 00 00 00"), null);
        assertEquals(0x70, after.senseBuffer()[0], "reset restores defaults");
        after.recycle();
    }

    @Test
    void modeSelectRejectsChangesToFixedBits() {
        byte[] current = h.good("1a 08 08 00 ff 00");
        byte[] list = Arrays.copyOf(current, current.length);
        list[0] = 0;
        list[4 + 2] |= 0x01; // set RCD, which is not changeable (WCE is)
        h.check(
                A,
                0,
                cdb("15 10 00 00 " + String.format("%02x", list.length) + " 00"),
                list,
                SenseReason.INVALID_FIELD_IN_PARAMETER_LIST);
        byte[] unknown = {0, 0, 0, 0, 0x05, 0x02, 0, 0};
        h.check(A, 0, cdb("15 10 00 00 08 00"), unknown, SenseReason.INVALID_FIELD_IN_PARAMETER_LIST);
        h.check(A, 0, cdb("15 10 00 00 02 00"), new byte[2], SenseReason.PARAMETER_LIST_LENGTH_ERROR);
    }
}
