package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.cdb;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class InquiryPagesTest {
    private final Harness h = new Harness();

    @Test
    void standardData() {
        byte[] d = h.good("12 00 00 00 ff 00");
        assertEquals(InquiryPages.STANDARD_LENGTH, d.length);
        assertEquals(0x00, d[0], "qualifier 0, direct access block device");
        assertEquals(0x00, d[1], "not removable");
        assertEquals(0x06, d[2], "SPC-4");
        assertEquals(0x12, d[3], "HiSup, response data format 2");
        assertEquals(d.length - 5, d[4]);
        assertEquals(0x00, d[5] & 0x30, "TPGS 0");
        assertEquals(0x02, d[7], "CmdQue");
        assertEquals("NUMAISCS", new String(d, 8, 8, StandardCharsets.US_ASCII));
        assertEquals("NUMA-iSCSI Disk ", new String(d, 16, 16, StandardCharsets.US_ASCII));
        assertEquals(0x0460, Cdb.u16(d, 62), "SPC-4 version descriptor");
    }

    @Test
    void allocationLengthClipsWithoutError() {
        assertEquals(5, h.good("12 00 00 00 05 00").length);
        assertEquals(0, h.good("12 00 00 00 00 00").length);
    }

    @Test
    void supportedPagesListsEveryPage() {
        byte[] d = h.good("12 01 00 00 ff 00");
        assertArrayEquals(
                new byte[] {0, 0, 0, 6, 0, (byte) 0x80, (byte) 0x83, (byte) 0xB0, (byte) 0xB1, (byte) 0xB2}, d);
        for (int i = 4; i < d.length; i++) {
            byte[] page = h.good(A, 0, cdb(String.format("12 01 %02x 00 ff 00", d[i] & 0xFF)), null);
            assertEquals(d[i], page[1], "page code echoed");
            assertEquals(page.length - 4, Cdb.u16(page, 2), "page length");
        }
        h.check("12 01 84 00 ff 00", SenseReason.INVALID_FIELD_IN_CDB);
    }

    @Test
    void unitSerialNumberIsStable() {
        byte[] d = h.good("12 01 80 00 ff 00");
        String serial = new String(d, 4, d.length - 4, StandardCharsets.US_ASCII);
        assertEquals(LunIdentity.derive(Harness.TARGET, 0, null).serial(), serial);
        assertArrayEquals(d, new Harness().good("12 01 80 00 ff 00"), "same target + LUN, same serial");
    }

    @Test
    void deviceIdentificationHasNaaVendorAndPortDesignators() {
        byte[] d = h.good("12 01 83 00 ff ff".replace("ff ff", "ff 00"));
        int at = 4;
        assertEquals(0x01, d[at]);
        assertEquals(0x03, d[at + 1], "NAA, LU association");
        assertEquals(8, d[at + 3]);
        long naa = Cdb.u64(d, at + 4);
        assertEquals(3, naa >>> 60, "NAA 3: locally assigned");
        assertEquals(LunIdentity.derive(Harness.TARGET, 0, null).naaIdentifier(), naa);
        at += 12;
        assertEquals(0x02, d[at]);
        assertEquals(0x01, d[at + 1], "T10 vendor id");
        assertEquals("NUMAISCS", new String(d, at + 4, 8, StandardCharsets.US_ASCII));
        at += 4 + d[at + 3];
        assertEquals(0x53, d[at], "iSCSI, UTF-8");
        assertEquals((byte) 0x98, d[at + 1], "PIV, target port, SCSI name string");
        int len = d[at + 3];
        assertEquals(0, len % 4);
        String name = new String(d, at + 4, len, StandardCharsets.UTF_8).replace("\0", "");
        assertEquals(A.targetPortName(), name);
        at += 4 + len;
        assertEquals((byte) 0x94, d[at + 1], "relative target port");
        assertEquals(1, Cdb.u16(d, at + 6));
    }

    @Test
    void blockLimitsAdvertiseWhatTheDecoderEnforces() {
        byte[] d = h.good("12 01 b0 00 ff 00");
        assertEquals(0x3C, Cdb.u16(d, 2));
        assertEquals(0, d[4] & 1, "WSNZ: zero blocks means to the last LBA");
        assertEquals(64, d[5] & 0xFF, "maximum compare and write length");
        long maxTransfer = Cdb.u32(d, 8);
        assertEquals((32 << 20) / 512, maxTransfer);
        assertEquals(64, Cdb.u32(d, 24), "max unmap descriptors");
        assertTrue(Cdb.u32(d, 20) > 0, "max unmap LBA count");
        assertTrue(Cdb.u64(d, 36) > 0, "max write same length");
        long maxAtomic = Cdb.u32(d, 44);
        assertEquals((1 << 20) / 512, maxAtomic, "maximum atomic transfer length");
        assertTrue(maxAtomic <= maxTransfer);
        assertEquals(0, Cdb.u32(d, 48), "atomic alignment: any");
        assertEquals(0, Cdb.u32(d, 52), "atomic transfer length granularity: any");
        assertEquals(maxAtomic, Cdb.u32(d, 56), "maximum atomic transfer length with atomic boundary");
        assertEquals(maxAtomic, Cdb.u32(d, 60), "maximum atomic boundary size");
        assertEquals(64, d.length);
        Harness big = new Harness(512, 64L << 20, 0);
        big.check(
                A,
                0,
                Harness.cdb(String.format("88 00 0000000000000000 %08x 00 00", maxTransfer + 1)),
                null,
                SenseReason.INVALID_FIELD_IN_CDB);
    }

    @Test
    void characteristicsAndProvisioning() {
        byte[] b1 = h.good("12 01 b1 00 ff 00");
        assertEquals(1, Cdb.u16(b1, 4), "non-rotating medium");
        byte[] b2 = h.good("12 01 b2 00 ff 00");
        assertEquals(0xE4, b2[5] & 0xFF, "LBPU, LBPWS, LBPWS10, LBPRZ");
        assertEquals(2, b2[6] & 0x07, "thin provisioned");
    }

    @Test
    void missingLunReportsQualifier3() {
        byte[] d = h.good(A, 9, cdb("12 00 00 00 ff 00"), null);
        assertEquals(0x7F, d[0] & 0xFF);
        assertEquals(InquiryPages.STANDARD_LENGTH, d.length);
    }

    @Test
    void identityDerivationIsDeterministicAndDistinct() {
        LunIdentity a = LunIdentity.derive("iqn.x:t", 0, null);
        assertEquals(a, LunIdentity.derive("IQN.X:T", 0, null), "iSCSI names are case-insensitive");
        assertTrue(a.naaIdentifier() != LunIdentity.derive("iqn.x:t", 1, null).naaIdentifier());
        assertEquals("mine", LunIdentity.derive("iqn.x:t", 0, "mine").serial());
        assertTrue(
                Arrays.asList("x".repeat(9)).stream().allMatch(v -> {
                    try {
                        new LunIdentity(v, "p", "r", "s", 1);
                        return false;
                    } catch (IllegalArgumentException e) {
                        return true;
                    }
                }),
                "vendor is at most 8 characters");
    }
}
