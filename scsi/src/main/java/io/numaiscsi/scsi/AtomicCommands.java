package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;

/**
 * COMPARE AND WRITE, ORWRITE and WRITE ATOMIC (16): the block commands that must appear atomic. Each runs while it
 * holds the unit's {@link AtomicWriteLock} (queued until it does) and hands the lock on when it ends, to the next
 * atomic command or else to the plain writes parked meanwhile.
 */
final class AtomicCommands {
    private AtomicCommands() {}

    /** COMPARE AND WRITE (SBC-3 5.2): the Data-Out is the blocks to compare, then the blocks to write on a match. */
    static void compareAndWrite(ScsiTask t) {
        if (t.blocks == 0) {
            t.completeGood();
            return;
        }
        if (t.dataOut == null || t.dataOut.readableBytes() < t.dataOutLength) {
            t.completeFailed(SenseReason.INVALID_FIELD_IN_CDB);
            return;
        }
        if (t.unit.atomicWriteLock.tryAcquire(t)) {
            start(t);
        }
    }

    /** ORWRITE (SBC-3 5.8): reads the range, ORs the Data-Out into it and writes the result. */
    static void orWrite(ScsiTask t) {
        LogicalUnit lu = t.unit;
        long received = t.dataOut == null ? 0 : t.dataOut.readableBytes() / lu.blockSize;
        t.blocks = Math.min(t.blocks, received); // like WRITE: only whole blocks the transport collected
        if (t.blocks == 0) {
            t.completeGood();
            return;
        }
        if (lu.atomicWriteLock.tryAcquire(t)) {
            start(t);
        }
    }

    /**
     * WRITE ATOMIC(16): all of the Data-Out as one device request, so no other command of this unit that changes blocks
     * is in flight beside it. What else that guarantees depends on the store: a RAM store copies a request in one step on
     * the unit's thread (no read of the unit sees half of it); a file or block device gets one pwritev / io_uring write,
     * which Linux does not promise to keep whole against a crash, nor against a concurrent READ of another task; the
     * write-back cache splits a request across its granules. The decoder caps the length at the Block Limits maximum
     * atomic transfer length.
     */
    static void writeAtomic(ScsiTask t) {
        if (t.blocks == 0) {
            t.completeGood();
            return;
        }
        if (t.dataOut == null || t.dataOut.readableBytes() < t.dataOutLength) {
            t.completeFailed(SenseReason.INVALID_FIELD_IN_CDB); // all or nothing: a short Data-Out writes nothing
            return;
        }
        if (t.unit.atomicWriteLock.tryAcquire(t)) {
            start(t);
        }
    }

    /** First device request of a task that now holds the unit's atomic write lock. */
    static void start(ScsiTask t) {
        LogicalUnit lu = t.unit;
        int length = (int) t.blocks * lu.blockSize;
        long offset = t.lba * lu.blockSize;
        if (t.kind == CommandKind.WRITE_ATOMIC) {
            ByteBuf data = t.dataOut;
            data.writerIndex(data.readerIndex() + length);
            t.continuation = SbcContinuation.WRITE_ATOMIC;
            lu.device.write(offset, data, t.fua, t.io);
            return;
        }
        t.scratch = lu.alloc.directBuffer(length, length);
        t.continuation =
                t.kind == CommandKind.ORWRITE ? SbcContinuation.ORWRITE_READ : SbcContinuation.COMPARE_AND_WRITE_READ;
        lu.device.read(offset, length, t.scratch, t.io);
    }

    /** COMPARE AND WRITE read the medium: MISCOMPARE at the first byte that differs, else the write half goes out. */
    static void compareThenWrite(ScsiTask t) {
        int length = t.scratch.readableBytes();
        long at = Verify.mismatch(t.scratch, t.dataOut, length);
        if (at >= 0) {
            finish(t, SenseReason.MISCOMPARE_DURING_VERIFY_OPERATION, at);
            return;
        }
        LogicalUnit lu = t.unit;
        ByteBuf data = t.dataOut;
        int start = data.readerIndex() + length;
        data.setIndex(start, start + length);
        t.continuation = SbcContinuation.COMPARE_AND_WRITE_WRITE;
        lu.device.write(t.lba * lu.blockSize, data, t.fua, t.io);
    }

    /** ORWRITE read the medium: writes medium | Data-Out, computed in the read buffer. */
    static void orThenWrite(ScsiTask t) {
        ByteBuf medium = t.scratch;
        ByteBuf data = t.dataOut;
        int length = medium.readableBytes();
        int m = medium.readerIndex();
        int d = data.readerIndex();
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            medium.setLong(m + i, medium.getLong(m + i) | data.getLong(d + i));
        }
        for (; i < length; i++) {
            medium.setByte(m + i, medium.getByte(m + i) | data.getByte(d + i));
        }
        t.continuation = SbcContinuation.ORWRITE_WRITE;
        LogicalUnit lu = t.unit;
        lu.device.write(t.lba * lu.blockSize, medium, t.fua, t.io);
    }

    /**
     * Ends a task that holds the lock (GOOD when {@code failure} is null; a MISCOMPARE carries the offset
     * {@code information}) and hands the lock on.
     */
    static void finish(ScsiTask t, SenseReason failure, long information) {
        AtomicWriteLock lock = t.unit.atomicWriteLock;
        if (failure == null) {
            t.completeGood();
        } else {
            t.completeFailed(failure, information, failure == SenseReason.MISCOMPARE_DURING_VERIFY_OPERATION);
        }
        ScsiTask next = lock.release();
        if (next != null) {
            start(next);
            return;
        }
        for (ScsiTask parked = lock.nextParkedWrite(); parked != null; parked = lock.nextParkedWrite()) {
            SbcCommands.startPlainWrite(parked);
        }
    }
}
