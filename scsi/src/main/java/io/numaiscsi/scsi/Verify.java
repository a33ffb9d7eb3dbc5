package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;

/** VERIFY (10), (12), (16): with BYTCHK 01b the medium is read and compared with the Data-Out. */
final class Verify {
    private Verify() {}

    static void start(ScsiTask t) {
        if (t.blocks == 0 || t.byteCheck == 0) {
            t.completeGood(); // BYTCHK 0: the medium check is the range check already done
            return;
        }
        LogicalUnit lu = t.unit;
        int length = (int) t.blocks * lu.blockSize;
        if (t.dataOut == null || t.dataOut.readableBytes() < length) {
            t.completeFailed(SenseReason.INVALID_FIELD_IN_CDB);
            return;
        }
        t.scratch = lu.alloc.directBuffer(length, length);
        t.continuation = SbcContinuation.VERIFY_READ;
        lu.device.read(t.lba * lu.blockSize, length, t.scratch, t.io);
    }

    /** The medium was read: GOOD, or MISCOMPARE with the offset of the first byte that differs. */
    static void compare(ScsiTask t) {
        long at = mismatch(t.scratch, t.dataOut, t.scratch.readableBytes());
        if (at < 0) {
            t.completeGood();
        } else {
            t.completeFailed(SenseReason.MISCOMPARE_DURING_VERIFY_OPERATION, at, true);
        }
    }

    /** Offset of the first byte where {@code medium} differs from {@code expected}, or -1. */
    static long mismatch(ByteBuf medium, ByteBuf expected, int length) {
        int a = medium.readerIndex();
        int b = expected.readerIndex();
        for (int i = 0; i < length; i++) {
            if (medium.getByte(a + i) != expected.getByte(b + i)) {
                return i;
            }
        }
        return -1;
    }
}
