package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;
import io.numaiscsi.blockdev.BlockDevice;
import io.numaiscsi.blockdev.IoStatus;

/**
 * The SBC-3 block commands as {@link ScsiTarget} and {@link SpcCommands} call them. READ, WRITE and SYNCHRONIZE CACHE
 * run here, the commands of several steps in classes of their own ({@link Unmap}, {@link WriteSame}, {@link Verify},
 * {@link AtomicCommands}, {@link Prefetch}); every device request completes in {@link #ioComplete}, which resumes the
 * command where its task's {@link SbcContinuation} says. READ and WRITE allocate nothing but the read buffer.
 */
final class SbcCommands {
    private static final int GET_LBA_STATUS_MAX_DESCRIPTORS = 64;

    private SbcCommands() {}

    static void read(ScsiTask t) {
        if (t.blocks == 0) {
            t.completeGood();
            return;
        }
        LogicalUnit lu = t.unit;
        int length = (int) t.blocks * lu.blockSize;
        t.continuation = SbcContinuation.READ;
        if ((t.sharedDataIn() || length >= lu.sharedReadMin())
                && lu.device.readShared(t.lba * lu.blockSize, length, lu.alloc, t.io)) {
            return;
        }
        ByteBuf buf = lu.alloc.directBuffer(length, length);
        t.dataIn = buf;
        lu.device.read(t.lba * lu.blockSize, length, buf, t.io);
    }

    /**
     * WRITE, WRITE AND VERIFY, WRITE SAME and UNMAP, once no atomic command holds or wants the unit's
     * {@link AtomicWriteLock} (else parked until then).
     */
    static void startPlainWrite(ScsiTask t) {
        if (t.aborted()) {
            t.completeFailed(SenseReason.TASK_ABORTED); // aborted while it was parked
            return;
        }
        if (!t.unit.atomicWriteLock.admitPlainWrite(t)) {
            return;
        }
        t.plainWrite = true;
        switch (t.kind) {
            case UNMAP -> Unmap.start(t);
            case WRITE_SAME -> WriteSame.start(t);
            default -> write(t);
        }
    }

    /** A plain write of {@code lu} finished: an atomic command waiting for plain writes to drain may start. */
    static void plainWriteDone(LogicalUnit lu) {
        ScsiTask atomic = lu.atomicWriteLock.plainWriteDone();
        if (atomic != null) {
            AtomicCommands.start(atomic);
        }
    }

    /** WRITE and WRITE AND VERIFY; only whole blocks the transport collected are written (EDTL may be short). */
    private static void write(ScsiTask t) {
        LogicalUnit lu = t.unit;
        ByteBuf src = t.dataOut;
        long received = src == null ? 0 : src.readableBytes() / lu.blockSize;
        long blocks = Math.min(t.blocks, received);
        if (blocks == 0) {
            t.completeGood();
            return;
        }
        src.writerIndex(src.readerIndex() + (int) blocks * lu.blockSize);
        t.continuation = SbcContinuation.WRITE;
        lu.device.write(t.lba * lu.blockSize, src, t.fua, t.io);
    }

    /** SYNCHRONIZE CACHE, and the flush that ends a command under WCE=0. */
    static void synchronizeCache(ScsiTask t) {
        t.continuation = SbcContinuation.FLUSH;
        t.unit.device.flush(t.io);
    }

    // The commands of several device requests, where ScsiTarget dispatches them; their steps are in their classes.

    static void verify(ScsiTask t) {
        Verify.start(t);
    }

    static void compareAndWrite(ScsiTask t) {
        AtomicCommands.compareAndWrite(t);
    }

    static void orWrite(ScsiTask t) {
        AtomicCommands.orWrite(t);
    }

    static void writeAtomic(ScsiTask t) {
        AtomicCommands.writeAtomic(t);
    }

    /** A device request of {@code t} completed, on the unit's thread: the command goes on, or ends if it failed. */
    static void ioComplete(ScsiTask t, IoStatus status) {
        SbcContinuation continuation = t.continuation;
        if (status == IoStatus.OK) {
            continuation.resume(t);
            return;
        }
        SenseReason failure = failure(status, continuation.mediumError);
        if (continuation.holdsAtomicLock) {
            AtomicCommands.finish(t, failure, 0);
        } else {
            t.completeFailed(failure);
        }
    }

    private static SenseReason failure(IoStatus status, SenseReason mediumError) {
        return switch (status) {
            case NO_SPACE -> SenseReason.SPACE_ALLOCATION_FAILED_WRITE_PROTECT;
            case OUT_OF_RANGE -> SenseReason.LBA_OUT_OF_RANGE;
            case UNAVAILABLE -> SenseReason.LOGICAL_UNIT_NOT_READY;
            default -> mediumError;
        };
    }

    /** READ DEFECT DATA (10) / (12): a virtual medium has no defects; an empty list in the format asked for. */
    static void readDefectData(ScsiTask t, ByteBuf out) {
        byte[] c = t.cdb;
        boolean twelve = (c[0] & 0xFF) == 0xB7;
        int flags = (twelve ? c[1] : c[2]) & 0x1F; // REQ_PLIST, REQ_GLIST (the lists are valid, and empty), format
        out.writeByte(0);
        out.writeByte(flags);
        if (twelve) {
            out.writeShort(0); // generation code: not reported
            out.writeInt(0); // defect list length
        } else {
            out.writeShort(0);
        }
    }

    // ---- capacity and provisioning status (synchronous) ----

    static void readCapacity10(ScsiTask t, ByteBuf out) {
        LogicalUnit lu = t.unit;
        long last = lu.blockCount - 1;
        out.writeInt(last > 0xFFFF_FFFEL ? -1 : (int) last);
        out.writeInt(lu.blockSize);
    }

    static void readCapacity16(ScsiTask t, ByteBuf out) {
        LogicalUnit lu = t.unit;
        out.writeLong(lu.blockCount - 1);
        out.writeInt(lu.blockSize);
        out.writeByte(0); // no protection
        out.writeByte(lu.limits.logicalPerPhysicalExponent); // P_I_EXPONENT 0, LBPPBE
        out.writeByte(0x80 | 0x40); // LBPME, LBPRZ; LALBA 0
        out.writeByte(0);
        out.writeZero(16);
    }

    /** GET LBA STATUS: mapped / deallocated extents starting at the CDB's LBA, from the device. */
    static void getLbaStatus(ScsiTask t, ByteBuf out) {
        LogicalUnit lu = t.unit;
        BlockDevice device = lu.device;
        int bs = lu.blockSize;
        int room = Math.max(1, Math.min(GET_LBA_STATUS_MAX_DESCRIPTORS, (t.allocationLength - 8) / 16));
        int lengthIndex = out.writerIndex();
        out.writeInt(0);
        out.writeInt(0);
        long lba = t.lba;
        int descriptors = 0;
        while (lba < lu.blockCount && descriptors < room) {
            long offset = lba * bs;
            boolean mapped = device.isMapped(offset);
            long changeBlock = (device.nextMappingChange(offset) + bs - 1) / bs;
            long next = Math.min(lu.blockCount, Math.max(lba + 1, changeBlock));
            long count = Math.min(next - lba, 0xFFFF_FFFFL);
            out.writeLong(lba);
            out.writeInt((int) count);
            out.writeByte(mapped ? 0 : 1);
            out.writeZero(3);
            lba += count;
            descriptors++;
        }
        out.setInt(lengthIndex, 4 + 16 * descriptors);
    }
}
