package io.numaiscsi.scsi;

import static io.numaiscsi.scsi.Harness.A;
import static io.numaiscsi.scsi.Harness.cdb;
import static io.numaiscsi.scsi.Harness.pattern;
import static io.numaiscsi.scsi.Harness.read10;
import static io.numaiscsi.scsi.Harness.write10;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.IoCompletion;
import io.numaiscsi.blockdev.IoStatus;
import io.numaiscsi.blockdev.backstore.RamBlockDevice;
import org.junit.jupiter.api.Test;

/**
 * A device request that fails ends its command at whatever step it was: a read with UNRECOVERED READ ERROR, a write,
 * flush or unmap with WRITE ERROR (other device outcomes map the same at every step), and a failed step of COMPARE
 * AND WRITE, ORWRITE or WRITE ATOMIC hands the unit's atomic write lock on, so the next write runs.
 */
class DeviceFailureTest {
    /** A RAM disk whose reads, writes, flushes, unmaps or prefetches complete with the status set here (null: OK). */
    private static final class FailingDevice extends RamDelegate {
        IoStatus read;
        IoStatus write;
        IoStatus flush;
        IoStatus unmap;
        IoStatus prefetch;

        FailingDevice() {
            super(new RamBlockDevice(8L << 20, 512));
        }

        @Override
        public void read(long offset, int length, ByteBuf dst, IoCompletion done) {
            if (read == null) {
                ram.read(offset, length, dst, done);
            } else {
                done.ioComplete(read);
            }
        }

        @Override
        public void write(long offset, ByteBuf src, boolean fua, IoCompletion done) {
            if (write == null) {
                ram.write(offset, src, fua, done);
            } else {
                done.ioComplete(write);
            }
        }

        @Override
        public void flush(IoCompletion done) {
            done.ioComplete(flush == null ? IoStatus.OK : flush);
        }

        @Override
        public void unmap(long offset, long length, IoCompletion done) {
            if (unmap == null) {
                ram.unmap(offset, length, done);
            } else {
                done.ioComplete(unmap);
            }
        }

        @Override
        public long prefetchLimit() {
            return 1 << 20;
        }

        @Override
        public void prefetch(long offset, long length, IoCompletion done) {
            done.ioComplete(prefetch == null ? IoStatus.OK : prefetch);
        }

        void heal() {
            read = write = flush = unmap = prefetch = null;
        }
    }

    private final FailingDevice device = new FailingDevice();
    private final Harness h = new Harness(new LogicalUnit(0, LunIdentity.derive(Harness.TARGET, 0, null), device));

    private void check(byte[] cdb, byte[] dataOut, SenseReason expected) {
        h.check(A, 0, cdb, dataOut, expected);
    }

    /** The atomic write lock is free and nothing is parked: a WRITE completes at once (the harness checks it did). */
    private void writesRunAgain() {
        device.heal();
        byte[] data = pattern(512, 42);
        h.good(A, 0, write10(100, 1), data);
        assertArrayEquals(data, h.good(A, 0, read10(100, 1), null));
    }

    private static byte[] unmapList(long lba, int blocks) {
        byte[] list = new byte[24];
        list[1] = 22;
        list[3] = 16;
        Cdb.putLong(list, 8, lba);
        Cdb.putInt(list, 16, blocks);
        return list;
    }

    @Test
    void readsFailWithUnrecoveredReadError() {
        device.read = IoStatus.MEDIUM_ERROR;
        check(read10(0, 1), null, SenseReason.UNRECOVERED_READ_ERROR);
        check(cdb("2f 02 00000000 00 0001 00"), new byte[512], SenseReason.UNRECOVERED_READ_ERROR); // VERIFY, BYTCHK 1
        device.prefetch = IoStatus.MEDIUM_ERROR;
        check(cdb("34 00 00000000 00 0001 00"), null, SenseReason.UNRECOVERED_READ_ERROR); // PRE-FETCH (10)
    }

    @Test
    void writesFlushesAndUnmapsFailWithWriteError() {
        device.write = IoStatus.MEDIUM_ERROR;
        check(write10(0, 1), new byte[512], SenseReason.WRITE_ERROR);
        check(cdb("41 00 00000000 00 0004 00"), pattern(512, 1), SenseReason.WRITE_ERROR); // WRITE SAME, a pattern
        device.flush = IoStatus.MEDIUM_ERROR;
        check(cdb("35 00 00000000 00 0000 00"), null, SenseReason.WRITE_ERROR); // SYNCHRONIZE CACHE (10)
        device.unmap = IoStatus.MEDIUM_ERROR;
        check(cdb("42 00 00000000 0000 1800"), unmapList(0, 8), SenseReason.WRITE_ERROR);
        check(cdb("41 08 00000000 00 0004 00"), new byte[512], SenseReason.WRITE_ERROR); // WRITE SAME with UNMAP
        writesRunAgain();
    }

    @Test
    void otherDeviceOutcomesMapTheSameForReadsAndWrites() {
        device.read = IoStatus.NO_SPACE;
        check(read10(0, 1), null, SenseReason.SPACE_ALLOCATION_FAILED_WRITE_PROTECT);
        device.write = IoStatus.NO_SPACE;
        check(write10(0, 1), new byte[512], SenseReason.SPACE_ALLOCATION_FAILED_WRITE_PROTECT);
        device.read = IoStatus.UNAVAILABLE;
        check(read10(0, 1), null, SenseReason.LOGICAL_UNIT_NOT_READY);
        device.write = IoStatus.OUT_OF_RANGE;
        check(write10(0, 1), new byte[512], SenseReason.LBA_OUT_OF_RANGE);
    }

    @Test
    void compareAndWriteFailingAtEitherStepFreesTheLock() {
        byte[] both = new byte[1024]; // compares zeros, writes zeros
        device.read = IoStatus.MEDIUM_ERROR;
        check(cdb("89 00 0000000000000008 000000 01 00 00"), both, SenseReason.UNRECOVERED_READ_ERROR);
        writesRunAgain();
        device.write = IoStatus.MEDIUM_ERROR;
        check(cdb("89 00 0000000000000008 000000 01 00 00"), both, SenseReason.WRITE_ERROR);
        writesRunAgain();
    }

    @Test
    void orWriteFailingAtEitherStepFreesTheLock() {
        byte[] ormask = pattern(512, 3);
        device.read = IoStatus.MEDIUM_ERROR;
        check(cdb("8b 00 0000000000000008 00000001 00 00"), ormask, SenseReason.UNRECOVERED_READ_ERROR);
        writesRunAgain();
        device.write = IoStatus.MEDIUM_ERROR;
        check(cdb("8b 00 0000000000000008 00000001 00 00"), ormask, SenseReason.WRITE_ERROR);
        writesRunAgain();
    }

    @Test
    void writeAtomicFailingFreesTheLock() {
        device.write = IoStatus.MEDIUM_ERROR;
        check(cdb("9c 00 0000000000000008 0000 0001 00 00"), pattern(512, 5), SenseReason.WRITE_ERROR);
        writesRunAgain();
    }

    @Test
    void withTheWriteCacheOffTheUnmapAndTheFlushAfterItFailWithWriteError() {
        byte[] cachingWceOff = new byte[24]; // MODE SELECT (6) list: header, caching page 08h with WCE=0
        cachingWceOff[4] = 0x08;
        cachingWceOff[5] = 0x12;
        h.good(A, 0, cdb("15 10 00 00 18 00"), cachingWceOff);
        device.flush = IoStatus.MEDIUM_ERROR;
        check(cdb("42 00 00000000 0000 1800"), unmapList(0, 8), SenseReason.WRITE_ERROR);
        check(cdb("41 08 00000000 00 0004 00"), new byte[512], SenseReason.WRITE_ERROR); // WRITE SAME with UNMAP
        device.heal();
        device.unmap = IoStatus.MEDIUM_ERROR;
        check(cdb("41 08 00000000 00 0004 00"), new byte[512], SenseReason.WRITE_ERROR);
        writesRunAgain();
    }
}
