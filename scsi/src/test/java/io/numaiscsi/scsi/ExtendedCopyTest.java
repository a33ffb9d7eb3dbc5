package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.CopyLists.extendedCopy;
import static io.numaiscsi.scsi.CopyLists.list;
import static io.numaiscsi.scsi.CopyLists.receiveCopyResults;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import java.util.ArrayDeque;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** EXTENDED COPY and RECEIVE COPY RESULTS through the target, on RAM units. */
class ExtendedCopyTest {
    /** 8 MiB units of 512-byte blocks: LUN 0 and 1. */
    private final Harness h = new Harness();

    private LogicalUnit unit(int lun) {
        return h.target.unit(lun);
    }

    private void write(int lun, long lba, byte[] data) {
        h.good(Harness.A, lun, Harness.write10(lba, data.length / 512), data);
    }

    private byte[] read(int lun, long lba, int blocks) {
        return h.good(Harness.A, lun, Harness.read10(lba, blocks), null);
    }

    private byte[] copy(int lun, byte[] list) {
        return h.good(Harness.A, lun, extendedCopy(list.length), list);
    }

    @Test
    void copiesBetweenTwoUnitsInChunks() {
        byte[] data = Harness.pattern(3000 * 512, 7); // more than one 1 MiB chunk
        write(0, 10, data);
        copy(
                0,
                list().target(unit(0))
                        .target(unit(1))
                        .segment(0, 1, 3000, 10, 100)
                        .bytes());
        assertArrayEquals(data, read(1, 100, 3000));
        assertArrayEquals(new byte[512], read(1, 99, 1), "nothing before the destination range");
        assertArrayEquals(new byte[512], read(1, 3100, 1), "nothing after it");
    }

    @Test
    void theCommandMayGoToTheDestinationOrAThirdUnit() {
        Harness three = new Harness(512, 8L << 20, 0, 1, 2);
        byte[] data = Harness.pattern(64 * 512, 3);
        three.good(Harness.A, 0, Harness.write10(0, 64), data);
        byte[] p = list().target(three.target.unit(0))
                .target(three.target.unit(1))
                .segment(0, 1, 64, 0, 0)
                .bytes();
        three.good(Harness.A, 2, extendedCopy(p.length), p);
        assertArrayEquals(data, three.good(Harness.A, 1, Harness.read10(0, 64), null));
    }

    @Test
    void overlappingCopiesWithinOneUnitActAsIfTheSourceWereReadFirst() {
        byte[] data = Harness.pattern(3000 * 512, 11);
        write(0, 0, data);
        copy(
                0,
                list().target(unit(0))
                        .segment(0, 0, 3000, 0, 1000)
                        .bytes()); // destination inside the source: backwards
        assertArrayEquals(data, read(0, 1000, 3000));
        assertArrayEquals(Arrays.copyOf(data, 1000 * 512), read(0, 0, 1000), "the source head is untouched");

        write(0, 5000, data);
        copy(0, list().target(unit(0)).segment(0, 0, 3000, 5000, 4000).bytes()); // destination before: forwards
        assertArrayEquals(data, read(0, 4000, 3000));
    }

    @Test
    void severalSegmentsRunInOrder() {
        write(0, 0, Harness.pattern(8 * 512, 1));
        copy(
                0,
                list().target(unit(0))
                        .target(unit(1))
                        .segment(0, 1, 8, 0, 0) // A -> B
                        .segment(1, 1, 8, 0, 8) // then B -> B, reading what the first segment wrote
                        .bytes());
        assertArrayEquals(Harness.pattern(8 * 512, 1), read(1, 8, 8));
    }

    @Test
    void zeroParameterListLengthDoesNothing() {
        h.good(Harness.A, 0, extendedCopy(0), null);
    }

    @Test
    void decoderBoundsTheParameterList() {
        h.check(
                Harness.A,
                0,
                extendedCopy(CopyManagerLimits.MAX_PARAMETER_LIST_LENGTH + 1),
                null,
                SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        h.check(Harness.A, 0, extendedCopy(15), null, SenseReason.PARAMETER_LIST_LENGTH_ERROR);
        byte[] lid4 = extendedCopy(0);
        lid4[1] = 0x01;
        h.check(Harness.A, 0, lid4, null, SenseReason.INVALID_FIELD_IN_CDB);
    }

    @Test
    void unknownDesignatorIsCopyTargetDeviceNotReachable() {
        byte[] p = list().target(0xE4, 0, 0x3123_4567_89AB_CDEFL, 512)
                .segment(0, 0, 1, 0, 1)
                .bytes();
        ScsiTask t = h.run(Harness.A, 0, extendedCopy(p.length), p);
        Harness.assertSense(t, SenseReason.COPY_TARGET_DEVICE_NOT_REACHABLE);
        byte[] s = t.senseBuffer();
        assertEquals(0x8F, s[15] & 0xFF, "SKSV, segment pointer relative to the parameter list, bit 7");
        assertEquals(20, (s[16] & 0xFF) << 8 | s[17] & 0xFF, "pointing at the designator");
        t.recycle();
    }

    @Test
    void unitsOfAnotherTargetAreNotReachable() {
        LogicalUnit elsewhere = new LogicalUnit(
                0, LunIdentity.derive("iqn.2024-01.io.numaiscsi:other", 0, null), new RamBlockDevice(8L << 20, 512));
        new Harness(elsewhere);
        byte[] p =
                list().target(unit(0)).target(elsewhere).segment(0, 1, 1, 0, 0).bytes();
        h.check(Harness.A, 0, extendedCopy(p.length), p, SenseReason.COPY_TARGET_DEVICE_NOT_REACHABLE);
    }

    @Test
    void reservationOnTheDestinationConflicts() {
        write(0, 0, Harness.pattern(512, 5));
        h.good(Harness.B, 1, Harness.cdb("16 00 00 00 00 00"), null); // B reserves LUN 1 (RESERVE(6))
        byte[] p = list().target(unit(0)).target(unit(1)).segment(0, 1, 1, 0, 0).bytes();
        h.check(Harness.A, 0, extendedCopy(p.length), p, SenseReason.RESERVATION_CONFLICT);
        assertArrayEquals(new byte[512], h.good(Harness.B, 1, Harness.read10(0, 1), null), "nothing written");
        h.good(Harness.B, 0, extendedCopy(p.length), p); // the holder may copy
        assertArrayEquals(Harness.pattern(512, 5), h.good(Harness.B, 1, Harness.read10(0, 1), null));
    }

    @Test
    void reservationOnTheSourceConflicts() {
        h.good(Harness.B, 0, Harness.cdb("16 00 00 00 00 00"), null);
        byte[] p = list().target(unit(0)).target(unit(1)).segment(0, 1, 1, 0, 0).bytes();
        h.check(Harness.A, 1, extendedCopy(p.length), p, SenseReason.RESERVATION_CONFLICT);
    }

    @Test
    void readOnlyDestinationIsDataProtect() {
        unit(1).readOnly(true);
        byte[] p = list().target(unit(0)).target(unit(1)).segment(0, 1, 1, 0, 0).bytes();
        h.check(Harness.A, 0, extendedCopy(p.length), p, SenseReason.WRITE_PROTECTED);
    }

    @Test
    void operatingParameters() {
        byte[] d = h.good(Harness.A, 0, receiveCopyResults(0x03, 0), null);
        assertEquals(46, d.length);
        assertEquals(42, Cdb.u32(d, 0), "AVAILABLE DATA");
        assertEquals(1, d[4] & 0x01, "SNLID");
        assertEquals(CopyManagerLimits.MAX_TARGET_DESCRIPTORS, Cdb.u16(d, 8));
        assertEquals(CopyManagerLimits.MAX_SEGMENT_DESCRIPTORS, Cdb.u16(d, 10));
        assertEquals(CopyManagerLimits.MAX_DESCRIPTOR_LIST_LENGTH, Cdb.u32(d, 12));
        assertEquals(CopyManagerLimits.MAX_SEGMENT_BYTES, Cdb.u32(d, 16));
        assertEquals(0, Cdb.u32(d, 24), "no held data");
        assertEquals(9, d[37], "data segment granularity: one 512-byte block");
        assertEquals(2, d[43]);
        assertEquals(0x02, d[44] & 0xFF);
        assertEquals(0xE4, d[45] & 0xFF);
    }

    @Test
    void copyStatusReportsAHeldCopyOnce() {
        h.check(Harness.A, 0, receiveCopyResults(0x00, 1), null, SenseReason.INVALID_FIELD_IN_CDB);
        copy(
                0,
                list().id(1, CopyPlan.HOLD)
                        .target(unit(0))
                        .target(unit(1))
                        .segment(0, 1, 2048, 0, 0)
                        .segment(0, 1, 8, 0, 4096)
                        .bytes());
        h.check(Harness.B, 0, receiveCopyResults(0x00, 1), null, SenseReason.INVALID_FIELD_IN_CDB); // not B's copy
        byte[] d = h.good(Harness.A, 0, receiveCopyResults(0x00, 1), null);
        assertEquals(12, d.length);
        assertEquals(8, Cdb.u32(d, 0));
        assertEquals(CopyResults.COMPLETED_GOOD, d[4]);
        assertEquals(2, Cdb.u16(d, 5), "segments processed");
        assertEquals(0, d[7], "transfer count in bytes");
        assertEquals(2056 * 512, Cdb.u32(d, 8));
        h.check(Harness.A, 0, receiveCopyResults(0x00, 1), null, SenseReason.INVALID_FIELD_IN_CDB);
    }

    @Test
    void discardedAndUnnamedCopiesLeaveNoResults() {
        copy(
                0,
                list().id(2, CopyPlan.DISCARD)
                        .target(unit(0))
                        .segment(0, 0, 1, 0, 1)
                        .bytes());
        h.check(Harness.A, 0, receiveCopyResults(0x00, 2), null, SenseReason.INVALID_FIELD_IN_CDB);
        copy(
                0,
                list().id(0, CopyPlan.NO_LIST_ID)
                        .target(unit(0))
                        .segment(0, 0, 1, 0, 1)
                        .bytes());
        h.check(Harness.A, 0, receiveCopyResults(0x00, 0), null, SenseReason.INVALID_FIELD_IN_CDB);
        assertEquals(0, unit(0).copyResults.running());
        assertEquals(0, unit(0).copyResults.held());
    }

    @Test
    void heldResultsAreBoundedPerNexusAndGoWithIt() {
        for (int id = 0; id < CopyResults.MAX_HELD + 5; id++) {
            copy(
                    0,
                    list().id(id, CopyPlan.HOLD)
                            .target(unit(0))
                            .segment(0, 0, 1, 0, 1)
                            .bytes());
        }
        assertEquals(CopyResults.MAX_HELD, unit(0).copyResults.held());
        byte[] bs = list().id(9, CopyPlan.HOLD)
                .target(unit(0))
                .segment(0, 0, 1, 0, 1)
                .bytes();
        h.good(Harness.B, 0, extendedCopy(bs.length), bs);
        assertEquals(CopyResults.MAX_HELD + 1, unit(0).copyResults.held(), "B's result pushes out none of A's");
        h.check(Harness.A, 0, receiveCopyResults(0x00, 0), null, SenseReason.INVALID_FIELD_IN_CDB); // A's oldest went
        h.good(Harness.A, 0, receiveCopyResults(0x00, CopyResults.MAX_HELD + 4), null);
        h.target.nexusLost(Harness.A);
        assertEquals(1, unit(0).copyResults.held(), "A's results went with its nexus");
        h.good(Harness.B, 0, receiveCopyResults(0x00, 9), null);
    }

    @Test
    void unsupportedServiceActionsAreInvalidFieldInCdb() {
        h.check(Harness.A, 0, receiveCopyResults(0x04, 0), null, SenseReason.INVALID_FIELD_IN_CDB);
        h.check(Harness.A, 0, receiveCopyResults(0x01, 0), null, SenseReason.INVALID_FIELD_IN_CDB);
    }

    @Test
    void standardInquiryReports3pc() {
        byte[] d = h.good("12 00 00 00 ff 00");
        assertEquals(0x08, d[5] & 0x08);
    }

    /** A unit thread that runs what it is given only when the test drains it. */
    private static final class QueuedThread implements LunThread {
        final ArrayDeque<Runnable> queue = new ArrayDeque<>();
        boolean current;

        @Override
        public boolean isCurrent() {
            return current;
        }

        @Override
        public void execute(Runnable r) {
            queue.add(r);
        }

        boolean runOne() {
            Runnable r = queue.poll();
            if (r == null) {
                return false;
            }
            current = true;
            try {
                r.run();
            } finally {
                current = false;
            }
            return true;
        }
    }

    /** A RAM device that records whether its owner's thread called it. */
    private static final class OwnedDevice extends RamDelegate {
        final QueuedThread owner;
        boolean calledElsewhere;
        int writes;

        OwnedDevice(QueuedThread owner) {
            super(new RamBlockDevice(8L << 20, 512));
            this.owner = owner;
        }

        @Override
        public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
            calledElsewhere |= !owner.isCurrent();
            super.read(offset, length, dst, done);
        }

        @Override
        public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
            calledElsewhere |= !owner.isCurrent();
            writes++;
            super.write(offset, src, fua, done);
        }
    }

    @Test
    void unitsOnDifferentThreadsEachDoTheirOwnIo() {
        QueuedThread t0 = new QueuedThread();
        QueuedThread t1 = new QueuedThread();
        OwnedDevice d0 = new OwnedDevice(t0);
        OwnedDevice d1 = new OwnedDevice(t1);
        LogicalUnit u0 = new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), d0);
        LogicalUnit u1 = new LogicalUnit(1, LunIdentity.derive(Harness.TARGET, 1, null), d1);
        u0.thread(t0);
        u1.thread(t1);
        Harness two = new Harness(u0, u1);
        byte[] data = Harness.pattern(2500 * 512, 9);
        d0.ram.write(0, Unpooled.wrappedBuffer(data), false, s -> {});
        byte[] p = list().target(u0).target(u1).segment(0, 1, 2500, 0, 0).bytes();
        ScsiTask t = new ScsiTask(two);
        t.init(Harness.A, 0, Unpooled.wrappedBuffer(extendedCopy(p.length)), 0, 16, p.length, false, true);
        assertTrue(two.target.prepare(t));
        t.dataOut(PooledByteBufAllocator.DEFAULT.directBuffer().writeBytes(p));
        t0.execute(() -> two.target.execute(t));
        while (t0.runOne() | t1.runOne()) {
            // each unit runs what it was sent
        }
        assertEquals(1, two.completions);
        assertEquals(ScsiStatus.GOOD, t.status());
        assertEquals(2, d1.writes, "1,280,000 bytes in two chunks of at most 1 MiB");
        assertFalse(d0.calledElsewhere, "LUN 0's device is called on LUN 0's thread only");
        assertFalse(d1.calledElsewhere, "LUN 1's device is called on LUN 1's thread only");
        byte[] copied = new byte[data.length];
        d1.ram.read(0, data.length, Unpooled.wrappedBuffer(copied).clear(), s -> {});
        assertArrayEquals(data, copied);
        t.recycle();
    }

    @Test
    void anAbortedCopyStopsBetweenChunks() {
        QueuedThread t0 = new QueuedThread();
        LogicalUnit u0 =
                new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), new RamBlockDevice(8L << 20, 512));
        LogicalUnit u1 =
                new LogicalUnit(1, LunIdentity.derive(Harness.TARGET, 1, null), new RamBlockDevice(8L << 20, 512));
        u0.thread(t0);
        u1.thread(new QueuedThread());
        Harness two = new Harness(u0, u1);
        byte[] p = list().target(u0).target(u1).segment(0, 1, 4000, 0, 0).bytes();
        ScsiTask t = new ScsiTask(two);
        t.init(Harness.A, 0, Unpooled.wrappedBuffer(extendedCopy(p.length)), 0, 16, p.length, false, true);
        assertTrue(two.target.prepare(t));
        t.dataOut(PooledByteBufAllocator.DEFAULT.directBuffer().writeBytes(p));
        t0.execute(() -> two.target.execute(t));
        QueuedThread t1 = (QueuedThread) u1.thread();
        t0.runOne(); // parses and reads the first chunk (RAM completes inline), hands the write to LUN 1
        t.abort();
        while (t0.runOne() | t1.runOne()) {
            // drain
        }
        assertEquals(ScsiStatus.TASK_ABORTED, t.status());
        assertEquals(0, u0.copyResults.running());
        assertEquals(0, u0.executing(), "the task left the task set");
        t.recycle();
    }
}
