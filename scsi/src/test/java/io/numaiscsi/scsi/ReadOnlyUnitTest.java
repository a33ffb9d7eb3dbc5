package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.cdb;
import static io.numaiscsi.scsi.Harness.pattern;
import static io.numaiscsi.scsi.Harness.read10;
import static io.numaiscsi.scsi.Harness.write10;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import org.junit.jupiter.api.Test;

/** A write-protected unit: MODE SENSE says so, every command that changes blocks gets DATA PROTECT, reads serve. */
class ReadOnlyUnitTest {
    private final RamBlockDevice device = new RamBlockDevice(8L << 20, 512);
    private final Harness writable;
    private final Harness h;

    ReadOnlyUnitTest() {
        LogicalUnit unit = new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), device);
        writable = new Harness(new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), device));
        unit.readOnly(true);
        h = new Harness(unit);
    }

    @Test
    void modeSenseReportsWriteProtect() {
        assertEquals(0x90, h.good("1a 00 3f 00 ff 00")[2] & 0xFF, "MODE SENSE(6): WP and DPOFUA");
        assertEquals(0x90, h.good("5a 00 3f 00 00 00 00 00 ff 00")[3] & 0xFF, "MODE SENSE(10): WP and DPOFUA");
        assertEquals(0x10, writable.good("1a 00 3f 00 ff 00")[2] & 0xFF, "a writable unit: DPOFUA only");
    }

    @Test
    void everyCommandThatChangesBlocksIsRefusedAndNothingChanges() {
        byte[] data = pattern(4096, 5);
        writable.good(A, 0, write10(0, 8), data);
        h.check(A, 0, write10(0, 1), new byte[512], SenseReason.WRITE_PROTECTED);
        h.check(A, 0, cdb("8a 00 0000000000000000 00000001 00 00"), new byte[512], SenseReason.WRITE_PROTECTED);
        h.check(A, 0, cdb("41 00 00000000 00 0001 00"), new byte[512], SenseReason.WRITE_PROTECTED); // WRITE SAME(10)
        h.check(A, 0, cdb("41 08 00000000 00 0001 00"), new byte[512], SenseReason.WRITE_PROTECTED); // with UNMAP
        ScsiTask noData = h.run(A, 0, cdb("41 08 00000000 00 0001 00"), null); // and no Data-Out, as libiscsi sends
        assertEquals(SenseReason.WRITE_PROTECTED.asc(), SenseData.ascAscq(noData.senseBuffer()) >>> 8);
        assertEquals(7, SenseData.senseKey(noData.senseBuffer()));
        noData.recycle();
        byte[] list = new byte[24];
        list[1] = 22;
        list[3] = 16;
        Cdb.putInt(list, 16, 1);
        h.check(A, 0, cdb("42000000000000001800"), list, SenseReason.WRITE_PROTECTED); // UNMAP
        h.check(A, 0, cdb("2e 00 00000000 00 0001 00"), new byte[512], SenseReason.WRITE_PROTECTED); // WRITE AND VERIFY
        h.check(A, 0, cdb("89 00 0000000000000000 000000 01 00 00"), new byte[1024], SenseReason.WRITE_PROTECTED);
        assertArrayEquals(data, h.good(A, 0, read10(0, 8), null), "reads serve, and no write reached the blocks");
        h.good("35 00 00000000 00 0000 00"); // SYNCHRONIZE CACHE changes no block
    }
}
