package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.B;
import static io.numaiscsi.scsi.Harness.cdb;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.MappingResources;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.io.IOException;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Thin provisioning resources and the soft threshold: LOG SENSE page 0Ch, mode page 1Ch/02h, VPD B2h's THRESHOLD
 * EXPONENT, and THIN PROVISIONING SOFT THRESHOLD REACHED once per upward crossing to every nexus.
 */
class ProvisioningThresholdTest {
    private static final long SIZE = 64L << 20; // 131072 blocks of 512 bytes
    private static final int EXPONENT = 11; // 1 MiB threshold sets
    private static final long MIB = 1 << 20;

    /** A store whose used and free space the test sets. */
    private static final class Resources implements MappingResources {
        long used;
        long free = 1L << 40;
        boolean shared = true;

        @Override
        public long usedBytes() {
            return used;
        }

        @Override
        public long freeBytes() {
            return free;
        }

        @Override
        public boolean freeShared() {
            return shared;
        }
    }

    private final Resources resources = new Resources();
    private final LogicalUnit unit = unit(resources);
    private final Harness h = new Harness(unit);

    private static LogicalUnit unit(MappingResources resources) {
        BlockDevice device = new RamDelegate(new RamBlockDevice(SIZE, 512)) {
            @Override
            public MappingResources mappingResources() {
                return resources;
            }
        };
        return new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), device);
    }

    @Test
    void logSenseSupportedPagesListsProvisioning() {
        assertArrayEquals(bytes("00 00 0002 00 0c"), h.good("4d 00 00 00 00 00 00 00 40 00"));
        assertArrayEquals(
                bytes("40 ff 0006 00 00 00 ff 0c 00"),
                h.good("4d 00 00 ff 00 00 00 00 40 00"),
                "page 00h/FFh: pages and subpages");
    }

    @Test
    void logPageReportsCountsInThresholdSets() throws IOException {
        resources.used = 10 * MIB + 512; // 11 sets, rounded up
        resources.free = 20 * MIB + 4096; // 20 sets, rounded down; shared with the file system
        byte[] page = h.good("4d 00 4c 00 00 00 00 00 40 00"); // PC 01b: cumulative values
        assertArrayEquals(
                bytes("0c 00 0018" + " 0001 03 08 00000014 02 000000" + " 0002 03 08 0000000b 01 000000"), page);
        byte[] fromUsed = h.good("4d 00 4c 00 00 00 02 00 40 00");
        assertArrayEquals(
                bytes("0c 00 000c 0002 03 08 0000000b 01 000000"), fromUsed, "PARAMETER POINTER 2: used only");
    }

    @Test
    void availableIsCappedByWhatTheUnitCanStillMap() {
        resources.used = 60 * MIB;
        resources.shared = false;
        byte[] page = h.good("4d 00 4c 00 00 00 00 00 40 00");
        assertEquals(4, Cdb.u32(page, 8), "64 MiB unit, 60 MiB used: 4 sets available however large the store");
        assertEquals(0x01, page[12], "scope: the unit's own");
    }

    @Test
    void logSenseFieldErrorsPointAtTheField() {
        assertFieldError("4d 01 4c 00 00 00 00 00 40 00", 1); // SP: nothing saved
        assertFieldError("4d 02 4c 00 00 00 00 00 40 00", 1); // PPC
        assertFieldError("4d 00 4d 00 00 00 00 00 40 00", 2); // page 0Dh
        assertFieldError("4d 00 4c 01 00 00 00 00 40 00", 3); // subpage
        assertFieldError("4d 00 4c 00 00 00 03 00 40 00", 5); // parameter pointer past the last parameter
        assertFieldError("4d 00 40 00 00 00 01 00 40 00", 5); // page 00h has no parameters
    }

    @Test
    void aFullyProvisionedStoreHasNoProvisioningPagesNorExponent() {
        Harness plain = new Harness(new LogicalUnit(
                0, LunIdentity.derive(Harness.TARGET, 0, null), new RamDelegate(new RamBlockDevice(SIZE, 512)) {}));
        assertArrayEquals(bytes("00 00 0001 00"), plain.good("4d 00 00 00 00 00 00 00 40 00"));
        assertFieldErrorOn(plain, "4d 00 4c 00 00 00 00 00 40 00", 2);
        assertEquals(0, plain.good("12 01 b2 00 40 00")[4], "THRESHOLD EXPONENT 0: no thresholds");
        plain.check("1a 00 1c 02 ff 00", SenseReason.INVALID_FIELD_IN_CDB);
    }

    @Test
    void vpdReportsTheThresholdExponent() {
        byte[] vpd = h.good("12 01 b2 00 40 00");
        assertEquals(EXPONENT, vpd[4]);
        assertEquals(0x02, vpd[6] & 0x07, "provisioning type: thin");
    }

    @Test
    void modePageWithoutThresholdHasDisabledDescriptors() {
        byte[] data = h.good("5a 08 1c 02 00 00 00 00 ff 00"); // MODE SENSE(10), DBD
        assertArrayEquals(
                bytes("5c 02 001c" + "00".repeat(12) + " 01 02 0000 00000000" + " 00 01 0000 00000000"),
                Arrays.copyOfRange(data, 8, data.length));
    }

    @Test
    void modePageReportsTheConfiguredThresholdNotChangeable() {
        unit.softThreshold(75);
        byte[] current = h.good("5a 08 1c 02 00 00 00 00 ff 00");
        assertArrayEquals(
                bytes("5c 02 001c" + "00".repeat(12)
                        + " 81 02 0000 00000030" // used, armed increasing: 48 of 64 sets
                        + " 80 01 0000 00000010"), // available, armed decreasing: 16 sets
                Arrays.copyOfRange(current, 8, current.length));
        byte[] changeable = h.good("5a 08 5c 02 00 00 00 00 ff 00");
        assertArrayEquals(bytes("5c 02 001c" + "00".repeat(28)), Arrays.copyOfRange(changeable, 8, changeable.length));
        byte[] all = h.good("5a 08 3f ff 00 00 00 00 ff 00");
        byte[] pageOnly = h.good("5a 08 3f 00 00 00 00 00 ff 00");
        assertEquals(pageOnly.length + ProvisioningModePage.LENGTH, all.length, "3Fh/FFh adds 1Ch/02h");
        assertEquals(0x5C, all[all.length - ProvisioningModePage.LENGTH] & 0xFF);
        assertEquals(
                ModePages.length(ModePages.INFORMATIONAL_EXCEPTIONS) + ProvisioningModePage.LENGTH + 8,
                h.good("5a 08 1c ff 00 00 00 00 ff 00").length,
                "1Ch/FFh: 1Ch/00h and 1Ch/02h");
    }

    @Test
    void crossingUpPostsTheUnitAttentionOnceToEveryNexusAndRearms() throws IOException {
        unit.softThreshold(75);
        h.good(A, 0, cdb("00 00 00 00 00 00"), null);
        h.good(B, 0, cdb("00 00 00 00 00 00"), null);
        resources.used = 47 * MIB;
        unit.checkProvisioning();
        h.good(A, 0, cdb("00 00 00 00 00 00"), null);
        resources.used = 48 * MIB;
        unit.checkProvisioning();
        unit.checkProvisioning();
        for (ItNexus n : new ItNexus[] {A, B}) {
            h.check(n, 0, cdb("00 00 00 00 00 00"), null, SenseReason.THIN_PROVISIONING_SOFT_THRESHOLD_REACHED);
            h.good(n, 0, cdb("00 00 00 00 00 00"), null); // reported once
        }
        resources.used = 40 * MIB; // unmapped below: re-armed
        unit.checkProvisioning();
        h.good(A, 0, cdb("00 00 00 00 00 00"), null);
        resources.used = 50 * MIB;
        unit.checkProvisioning();
        h.check(A, 0, cdb("00 00 00 00 00 00"), null, SenseReason.THIN_PROVISIONING_SOFT_THRESHOLD_REACHED);
    }

    @Test
    void aFillingFileSystemReachesTheThresholdBeforeTheUnitIsUsed() throws IOException {
        unit.softThreshold(75);
        h.good(A, 0, cdb("00 00 00 00 00 00"), null);
        resources.used = 8 * MIB;
        resources.free = 17 * MIB;
        unit.checkProvisioning();
        h.good(A, 0, cdb("00 00 00 00 00 00"), null);
        resources.free = 16 * MIB; // a quarter of the unit's size is all the file system still has
        unit.checkProvisioning();
        h.check(A, 0, cdb("00 00 00 00 00 00"), null, SenseReason.THIN_PROVISIONING_SOFT_THRESHOLD_REACHED);
    }

    @Test
    void withoutThresholdNothingIsPosted() throws IOException {
        h.good(A, 0, cdb("00 00 00 00 00 00"), null);
        resources.used = SIZE;
        resources.free = 0;
        unit.checkProvisioning();
        h.good(A, 0, cdb("00 00 00 00 00 00"), null);
    }

    @Test
    void thresholdOutOfRangeOrWithoutResourcesIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> unit.softThreshold(100));
        assertThrows(IllegalArgumentException.class, () -> unit.softThreshold(-1));
        LogicalUnit plain = new LogicalUnit(
                0, LunIdentity.derive(Harness.TARGET, 0, null), new RamDelegate(new RamBlockDevice(SIZE, 512)) {});
        assertFalse(plain.reportsMappingResources());
        assertThrows(IllegalArgumentException.class, () -> plain.softThreshold(80));
        assertTrue(unit.reportsMappingResources());
    }

    @Test
    void exponentKeepsFewerThan2To32SetsOnHugeUnits() {
        ProvisioningThreshold p = new ProvisioningThreshold(resources);
        assertEquals(11, p.exponent(1L << 30, 512), "512 GiB: 1 MiB sets suffice");
        assertEquals(8, p.exponent(1L << 20, 4096), "4K blocks: 256 per MiB");
        long huge = (1L << 45) + 1; // 16 PiB of 512-byte blocks
        int e = p.exponent(huge, 512);
        assertTrue((huge >>> e) < (1L << 32) && ((huge + (1L << e) - 1) >>> e) < (1L << 32), "exponent " + e);
    }

    @Test
    void ramStoreCountsItsAllocatedChunks() throws IOException {
        RamBlockDevice ram = new RamBlockDevice(8L << 20, 512);
        Harness r = new Harness(new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), ram));
        r.good(A, 0, Harness.write10(0, 1), new byte[512]);
        r.good(A, 0, Harness.write10(4096, 1), new byte[512]); // second chunk
        assertEquals(2 * MIB, ram.mappingResources().usedBytes());
        assertEquals(6 * MIB, ram.mappingResources().freeBytes());
        byte[] page = r.good("4d 00 4c 00 00 00 00 00 40 00");
        assertEquals(6, Cdb.u32(page, 8));
        assertEquals(0x01, page[12], "RAM: the unit's own");
        assertEquals(2, Cdb.u32(page, 20));
    }

    @Test
    void logSenseIsReportedSupported() {
        byte[] one = h.good("a3 0c 01 4d 00 00 00 00 00 40 00 00");
        assertEquals(0x03, one[1] & 0x07, "supported as in the standard");
        assertEquals(10, Cdb.u16(one, 2));
    }

    private void assertFieldError(String hex, int field) {
        assertFieldErrorOn(h, hex, field);
    }

    private static void assertFieldErrorOn(Harness harness, String hex, int field) {
        ScsiTask t = harness.run(A, 0, cdb(hex), null);
        try {
            Harness.assertSense(t, SenseReason.INVALID_FIELD_IN_CDB);
            byte[] s = t.senseBuffer();
            assertEquals(0xC0, s[15] & 0xFF, "SKSV, C/D: a CDB field");
            assertEquals(field, Cdb.u16(s, 16), "field pointer of " + hex);
        } finally {
            t.recycle();
        }
    }

    private static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex.replace(" ", ""));
    }
}
