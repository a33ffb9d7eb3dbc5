package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.B;
import static io.numaiscsi.scsi.Harness.cdb;
import static io.numaiscsi.scsi.Harness.pattern;
import static io.numaiscsi.scsi.Harness.read10;
import static io.numaiscsi.scsi.Harness.write10;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScsiTargetTest {
    private final Harness h = new Harness();
    private static final long BLOCKS = (8L << 20) / 512;

    @Test
    void writeThenReadRoundTrips() {
        byte[] data = pattern(4 * 512, 7);
        h.good(A, 0, write10(100, 4), data);
        assertArrayEquals(data, h.good(A, 0, read10(100, 4), null));
        // READ(16) and READ(12) see the same blocks
        assertArrayEquals(data, h.good("88000000000000000064 00000004 0000"));
        assertArrayEquals(data, h.good("a8000000006400000004 0000"));
    }

    @Test
    void readOfNeverWrittenBlocksIsZero() {
        assertArrayEquals(new byte[1024], h.good(A, 0, read10(5, 2), null));
    }

    @Test
    void zeroLengthReadIsGoodWithoutData() {
        assertEquals(0, h.good(A, 0, read10(0, 0), null).length);
        assertEquals(0, h.good(A, 0, read10(BLOCKS, 0), null).length);
        h.check(A, 0, read10(BLOCKS + 1, 0), null, SenseReason.LBA_OUT_OF_RANGE);
    }

    @Test
    void write6WithZeroLengthMeans256Blocks() {
        ScsiTask t = h.run(A, 0, cdb("0a0000000000"), pattern(256 * 512, 1));
        assertEquals(ScsiStatus.GOOD, t.status());
        assertEquals(256 * 512, t.dataOutLength());
        t.recycle();
        assertArrayEquals(pattern(256 * 512, 1), h.good("080000000000"));
    }

    @Test
    void rangeChecksIncludeOverflow() {
        h.check(A, 0, read10(BLOCKS - 1, 2), null, SenseReason.LBA_OUT_OF_RANGE);
        h.check("88 00 ffffffffffffffff 00000001 00 00", SenseReason.LBA_OUT_OF_RANGE);
        h.check("88 00 7fffffffffffffff 00000002 00 00", SenseReason.LBA_OUT_OF_RANGE);
        assertEquals(512, h.good(A, 0, read10(BLOCKS - 1, 1), null).length);
    }

    @Test
    void shortDataOutWritesOnlyWholeBlocksReceived() {
        h.good(A, 0, write10(0, 2), pattern(1024, 'a'));
        byte[] b = new byte[512];
        Arrays.fill(b, (byte) 'b');
        h.good(A, 0, write10(0, 2), b); // EDTL = one block
        byte[] back = h.good(A, 0, read10(0, 2), null);
        assertArrayEquals(b, Arrays.copyOfRange(back, 0, 512));
        assertArrayEquals(Arrays.copyOfRange(pattern(1024, 'a'), 512, 1024), Arrays.copyOfRange(back, 512, 1024));
    }

    @Test
    void unsupportedOpcodeIsInvalidCommandOperationCode() {
        h.check("a1 00 00 00 00 00 00 00 00 00 00 00", SenseReason.INVALID_COMMAND_OPERATION_CODE); // ATA PASS-THROUGH
        h.check("c0 00 00 00 00 00", SenseReason.INVALID_COMMAND_OPERATION_CODE);
        h.check("7f 00 00 00 00 00 00 00 00 00", SenseReason.INVALID_COMMAND_OPERATION_CODE);
    }

    @Test
    void missingLunAnswersInquiryAndReportLunsOnly() {
        byte[] inq = h.good(A, 7, cdb("120000006000"), null);
        assertEquals(0x7F, inq[0] & 0xFF);
        assertEquals(24, h.good(A, 7, cdb("a0000000000000000100 0000"), null).length, "LUNs 0 and 1");
        h.check(A, 7, cdb("000000000000"), null, SenseReason.LOGICAL_UNIT_NOT_SUPPORTED);
        h.check(A, 7, read10(0, 1), null, SenseReason.LOGICAL_UNIT_NOT_SUPPORTED);
        byte[] sense = h.good(A, 7, cdb("030000001200"), null);
        assertEquals(0x25, sense[12]);
    }

    @Test
    void readCapacity10And16() {
        byte[] rc10 = h.good("250000000000 00000000");
        assertEquals(BLOCKS - 1, Cdb.u32(rc10, 0));
        assertEquals(512, Cdb.u32(rc10, 4));
        h.check("250000000001 00000000", SenseReason.INVALID_FIELD_IN_CDB); // LBA without PMI
        byte[] rc16 = h.good("9e10 0000000000000000 00000020 0000");
        assertEquals(32, rc16.length);
        assertEquals(BLOCKS - 1, Cdb.u64(rc16, 0));
        assertEquals(512, Cdb.u32(rc16, 8));
        assertEquals(0xC0, rc16[14] & 0xC0, "LBPME and LBPRZ");
        assertEquals(12, h.good("9e10 0000000000000000 0000000c 0000").length, "clipped to allocation length");
    }

    @Test
    void readCapacity10ReportsAllOnesWhenTooBig() {
        LogicalUnit big = new LogicalUnit(0, LunIdentity.derive("t", 0, null), new FakeBigDevice());
        ScsiTarget t = new ScsiTarget("t", List.of(big), UnpooledByteBufAllocator.DEFAULT);
        ScsiTask task = new ScsiTask(x -> {});
        task.init(A, 0, Unpooled.wrappedBuffer(cdb("25000000000000000000")), 0, 10, 8, true, false);
        assertTrue(t.prepare(task));
        t.execute(task);
        assertEquals(0xFFFFFFFFL, task.dataIn().getUnsignedInt(0));
        task.recycle();
    }

    @Test
    void unmapMakesBlocksReadZeroAndDeallocated() {
        h.good(A, 0, write10(0, 16), pattern(16 * 512, 3));
        byte[] list = new byte[24];
        list[1] = 22;
        list[3] = 16;
        Cdb.putLong(list, 8, 4);
        Cdb.putInt(list, 16, 8);
        h.good(A, 0, cdb("42000000000000001800"), list);
        byte[] back = h.good(A, 0, read10(0, 16), null);
        assertArrayEquals(new byte[8 * 512], Arrays.copyOfRange(back, 4 * 512, 12 * 512));
        assertArrayEquals(Arrays.copyOfRange(pattern(16 * 512, 3), 0, 2048), Arrays.copyOfRange(back, 0, 2048));
        byte[] status = h.good("9e12 0000000000000000 00000040 0000");
        assertEquals(4 + 16 * 3, Cdb.u32(status, 0));
        assertEquals(0, Cdb.u64(status, 8));
        assertEquals(4, Cdb.u32(status, 16));
        assertEquals(0, status[20], "mapped");
        assertEquals(4, Cdb.u64(status, 24));
        assertEquals(8, Cdb.u32(status, 32));
        assertEquals(1, status[36], "deallocated");
    }

    @Test
    void unmapValidatesItsParameterList() {
        byte[] list = new byte[24];
        list[3] = 16;
        Cdb.putLong(list, 8, BLOCKS - 1);
        Cdb.putInt(list, 16, 2);
        h.check(A, 0, cdb("42000000000000001800"), list, SenseReason.LBA_OUT_OF_RANGE);
        h.check("42000000000000000400", SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        h.check("42010000000000001800", SenseReason.INVALID_FIELD_IN_CDB); // ANCHOR
        assertEquals(0, h.good("42000000000000000000").length, "empty parameter list is a no-op");
    }

    @Test
    void writeSameRepeatsTheBlock() {
        byte[] block = pattern(512, 9);
        h.good(A, 0, cdb("41 00 00000010 00 0003 00"), block);
        byte[] back = h.good(A, 0, read10(16, 3), null);
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(block, Arrays.copyOfRange(back, i * 512, (i + 1) * 512));
        }
    }

    @Test
    void writeSameWithUnmapDeallocatesWhateverTheBlockHolds() {
        h.good(A, 0, write10(32, 4), pattern(2048, 1));
        h.good(A, 0, cdb("41 08 00000020 00 0004 00"), new byte[512]);
        assertArrayEquals(new byte[2048], h.good(A, 0, read10(32, 4), null));
        assertFalse(h.devices.get(0).isMapped(32 * 512));
        h.good(A, 0, write10(40, 2), pattern(1024, 2));
        h.good(A, 0, cdb("41 08 00000028 00 0002 00"), pattern(512, 3)); // UNMAP with a non-zero block: unmapped
        assertArrayEquals(new byte[1024], h.good(A, 0, read10(40, 2), null));
        h.check(A, 0, cdb("41 20 00000000 00 0001 00"), new byte[512], SenseReason.INVALID_FIELD_IN_CDB);
        h.check(A, 0, cdb("41 00 ffffffff 00 0000 00"), new byte[512], SenseReason.LBA_OUT_OF_RANGE);
    }

    @Test
    void writeSameOfZeroBlocksRunsToTheLastLba() {
        byte[] block = pattern(512, 4);
        h.good(A, 0, cdb("93 00 " + String.format("%016x", BLOCKS - 3) + " 00000000 00 00"), block);
        byte[] back = h.good(A, 0, read10(BLOCKS - 4, 4), null);
        assertArrayEquals(new byte[512], Arrays.copyOfRange(back, 0, 512), "the block before is untouched");
        for (int i = 1; i < 4; i++) {
            assertArrayEquals(block, Arrays.copyOfRange(back, i * 512, (i + 1) * 512));
        }
        h.good(A, 0, cdb("41 00 " + String.format("%08x", BLOCKS) + " 00 0000 00"), block); // nothing left: GOOD
        h.check(
                A,
                0,
                cdb("41 00 " + String.format("%08x", BLOCKS + 1) + " 00 0000 00"),
                block,
                SenseReason.LBA_OUT_OF_RANGE);
    }

    @Test
    void writeSameOfZeroBlocksBeyondTheMaximumLengthIsRefused() {
        Harness big = new Harness(512, 64L << 20, 0); // 131072 blocks; MAXIMUM WRITE SAME LENGTH is 65536
        big.check(A, 0, cdb("41 00 00000000 00 0000 00"), new byte[512], SenseReason.INVALID_FIELD_IN_CDB);
        big.check(
                A,
                0,
                cdb("41 00 " + String.format("%08x", 131072 - 65537) + " 00 0000 00"),
                new byte[512],
                SenseReason.INVALID_FIELD_IN_CDB);
        big.good(A, 0, cdb("41 00 " + String.format("%08x", 131072 - 65536) + " 00 0000 00"), new byte[512]);
    }

    @Test
    void writeSame16NdobWritesZerosWithoutDataOut() {
        h.good(A, 0, write10(40, 2), pattern(1024, 5));
        ScsiTask t = h.run(A, 0, cdb("93 01 0000000000000028 00000002 00 00"), null);
        assertEquals(0, t.dataOutLength());
        assertEquals(ScsiStatus.GOOD, t.status());
        t.recycle();
        assertArrayEquals(new byte[1024], h.good(A, 0, read10(40, 2), null));
    }

    @Test
    void compareAndWriteWritesOnMatchAndReportsMiscompareOffset() {
        byte[] old = pattern(512, 1);
        byte[] fresh = pattern(512, 2);
        h.good(A, 0, write10(8, 1), old);
        byte[] both = new byte[1024];
        System.arraycopy(old, 0, both, 0, 512);
        System.arraycopy(fresh, 0, both, 512, 512);
        h.good(A, 0, cdb("89 00 0000000000000008 000000 01 00 00"), both);
        assertArrayEquals(fresh, h.good(A, 0, read10(8, 1), null));

        both[100] ^= 1; // the compare half no longer matches "old"; nor does it match "fresh"
        ScsiTask t = h.run(A, 0, cdb("89 00 0000000000000008 000000 01 00 00"), both);
        Harness.assertSense(t, SenseReason.MISCOMPARE_DURING_VERIFY_OPERATION);
        assertEquals((byte) 0xF0, t.senseBuffer()[0], "VALID bit with fixed format");
        assertEquals(0, Cdb.u32(t.senseBuffer(), 3), "first differing byte is byte 0 of fresh vs old");
        t.recycle();
        assertArrayEquals(fresh, h.good(A, 0, read10(8, 1), null), "medium unchanged on miscompare");
    }

    @Test
    void compareAndWriteMiscompareOffsetPointsAtFirstDifference() {
        h.good(A, 0, write10(9, 1), new byte[512]);
        byte[] both = new byte[1024];
        both[300] = 1;
        ScsiTask t = h.run(A, 0, cdb("89 00 0000000000000009 000000 01 00 00"), both);
        Harness.assertSense(t, SenseReason.MISCOMPARE_DURING_VERIFY_OPERATION);
        assertEquals(300, Cdb.u32(t.senseBuffer(), 3));
        t.recycle();
    }

    @Test
    void verifyWithByteCheckComparesDataOut() {
        byte[] data = pattern(1024, 4);
        h.good(A, 0, write10(50, 2), data);
        h.good(A, 0, cdb("2f 02 00000032 00 0002 00"), data);
        byte[] wrong = data.clone();
        wrong[700] ^= 0x55;
        ScsiTask t = h.run(A, 0, cdb("2f 02 00000032 00 0002 00"), wrong);
        Harness.assertSense(t, SenseReason.MISCOMPARE_DURING_VERIFY_OPERATION);
        assertEquals(700, Cdb.u32(t.senseBuffer(), 3));
        t.recycle();
        assertEquals(0, h.good("2f 00 00000032 00 0002 00").length, "BYTCHK 0: range check only");
        h.check("2f 00 ffffffff 00 0002 00", SenseReason.LBA_OUT_OF_RANGE);
        h.check("2f 20 00000000 00 0001 00", SenseReason.INVALID_FIELD_IN_CDB);
    }

    @Test
    void synchronizeCacheAndPrefetchAreRangeChecked() {
        h.good("35 00 00000000 00 0000 00");
        h.good("91 00 0000000000000000 00000010 00 00");
        h.check("35 00 ffffff00 00 0001 00", SenseReason.LBA_OUT_OF_RANGE);
        h.good("34 00 00000000 00 0010 00");
        h.check("90 00 ffffffffffffff00 00000001 00 00", SenseReason.LBA_OUT_OF_RANGE);
    }

    @Test
    void protectionFieldsAreRejected() {
        h.check("28 20 00000000 00 0001 00", SenseReason.INVALID_FIELD_IN_CDB);
        h.check(A, 0, cdb("2a 40 00000000 00 0001 00"), new byte[512], SenseReason.INVALID_FIELD_IN_CDB);
        h.check("88 e0 0000000000000000 00000001 00 00", SenseReason.INVALID_FIELD_IN_CDB);
    }

    @Test
    void nacaInControlByteIsRejected() {
        h.check("00 00 00 00 00 04", SenseReason.INVALID_FIELD_IN_CDB);
    }

    @Test
    void reportLuns() {
        Harness two = new Harness(512, 1 << 20, 0, 3, 300);
        byte[] r = two.good(A, 0, cdb("a0 00 00 000000 00000100 00 00"), null);
        assertEquals(24, Cdb.u32(r, 0));
        assertEquals(0, Cdb.u16(r, 8));
        assertEquals(3, Cdb.u16(r, 16));
        assertEquals(0x4000 | 300, Cdb.u16(r, 24), "flat space addressing above 255");
        assertEquals(8, Cdb.u32(two.good(A, 0, cdb("a0 00 00 000000 00000010 00 00"), null), 0) / 3);
        two.check(A, 0, cdb("a0 00 00 000000 0000000f 00 00"), null, SenseReason.INVALID_FIELD_IN_CDB);
        two.check(A, 0, cdb("a0 00 03 000000 00000100 00 00"), null, SenseReason.INVALID_FIELD_IN_CDB);
        assertEquals(0, Cdb.u32(two.good(A, 0, cdb("a0 00 01 000000 00000100 00 00"), null), 0));
    }

    @Test
    void logicalUnitResetQueuesUnitAttentionForEveryNexus() {
        h.good(A, 0, cdb("000000000000"), null);
        h.good(B, 0, cdb("000000000000"), null);
        h.target.logicalUnitReset(0, A);
        h.check(A, 0, cdb("000000000000"), null, SenseReason.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
        h.good(A, 0, cdb("000000000000"), null);
        // INQUIRY is not blocked, and does not clear the condition
        h.good(B, 0, cdb("120000006000"), null);
        h.check(B, 0, cdb("000000000000"), null, SenseReason.BUS_DEVICE_RESET_FUNCTION_OCCURRED);
        h.good(B, 0, cdb("000000000000"), null);
    }

    @Test
    void requestSenseReportsAndClearsUnitAttention() {
        h.good(B, 0, cdb("000000000000"), null);
        h.target.targetReset(A);
        byte[] s = h.good(B, 0, cdb("030000001200"), null);
        assertEquals(0x70, s[0]);
        assertEquals(6, s[2]);
        assertEquals(0x29, s[12]);
        assertEquals(0x03, s[13]);
        byte[] none = h.good(B, 0, cdb("030100001200"), null);
        assertEquals(0x72, none[0], "DESC bit asks for descriptor format");
        assertEquals(0, none[1]);
    }

    @Test
    void newNexusGetsNoPowerOnUnitAttention() {
        h.good(B, 0, cdb("000000000000"), null);
    }

    @Test
    void prepareRejectsAndDoesNotCallListener() {
        ScsiTask t = new ScsiTask(h);
        t.init(A, 0, Unpooled.wrappedBuffer(cdb("ff0000000000")), 0, 6, 0, false, false);
        assertFalse(h.target.prepare(t));
        assertEquals(0, h.completions);
        assertEquals(ScsiStatus.CHECK_CONDITION, t.status());
        assertNull(t.dataIn());
        t.recycle();
    }

    @Test
    void transportFailUsesTheSameSenseEncoding() {
        ScsiTask t = new ScsiTask(h);
        t.init(A, 0, Unpooled.wrappedBuffer(cdb("000000000000")), 0, 6, 0, false, false);
        t.fail(SenseReason.INVALID_FIELD_IN_INFORMATION_UNIT);
        Harness.assertSense(t, SenseReason.INVALID_FIELD_IN_INFORMATION_UNIT);
        t.fail(SenseReason.TASK_SET_FULL);
        assertEquals(ScsiStatus.TASK_SET_FULL, t.status());
        assertEquals(0, t.senseLength());
    }

    @Test
    void startStopUnitRefusesEjectOfFixedMedium() {
        h.check("1b 01 00 00 02 00", SenseReason.INVALID_FIELD_IN_CDB);
        h.good("1b 01 00 00 01 00");
        h.good("1b 00 00 00 32 00"); // power condition set: LOEJ ignored
        h.good("1e 00 00 00 01 00");
    }

    /** A device just big enough to overflow READ CAPACITY(10); never read. */
    private static final class FakeBigDevice implements BlockDevice {
        public int blockSize() {
            return 512;
        }

        public long blockCount() {
            return 0x1_0000_0001L;
        }

        public void read(long o, int l, ByteBuf d, IoCompletion c) {
            c.ioComplete(IoStatus.MEDIUM_ERROR);
        }

        public void write(long o, ByteBuf s, boolean f, IoCompletion c) {
            c.ioComplete(IoStatus.MEDIUM_ERROR);
        }

        public void flush(IoCompletion c) {
            c.ioComplete(IoStatus.OK);
        }

        public void unmap(long o, long l, IoCompletion c) {
            c.ioComplete(IoStatus.OK);
        }

        public boolean isMapped(long o) {
            return false;
        }

        public long nextMappingChange(long o) {
            return blockCount() * 512;
        }

        public void close() {}
    }
}
