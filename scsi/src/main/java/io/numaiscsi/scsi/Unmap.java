package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;

/**
 * UNMAP: the parameter list's block descriptors are checked first, all of them, then unmapped one at a
 * time (descriptors of zero blocks skipped); with the write cache off (WCE=0) a flush ends the command.
 */
final class Unmap {
    private Unmap() {}

    static void start(ScsiTask t) {
        LogicalUnit lu = t.unit;
        ByteBuf p = t.dataOut;
        if (t.dataOutLength == 0) {
            t.completeGood();
            return;
        }
        int available = p == null ? 0 : Math.min(p.readableBytes(), t.dataOutLength);
        if (available < 8) {
            t.completeFailed(SenseReason.PARAMETER_LIST_LENGTH_ERROR);
            return;
        }
        int base = p.readerIndex();
        int descriptorBytes = Math.min(p.getUnsignedShort(base + 2), available - 8);
        int count = descriptorBytes / 16;
        if (count > lu.limits.maxUnmapDescriptors) {
            t.completeFailed(SenseReason.INVALID_FIELD_IN_PARAMETER_LIST);
            return;
        }
        for (int i = 0; i < count; i++) {
            long lba = p.getLong(base + 8 + 16 * i);
            long blocks = p.getUnsignedInt(base + 16 + 16 * i);
            SenseReason r = CdbDecoder.range(lu, lba, blocks);
            if (r == null && blocks > lu.limits.maxUnmapBlocks) {
                r = SenseReason.INVALID_FIELD_IN_PARAMETER_LIST;
            }
            if (r != null) {
                t.completeFailed(r);
                return;
            }
        }
        t.cursor = 0;
        t.end = count;
        t.continuation = SbcContinuation.UNMAP_DESCRIPTOR;
        nextDescriptor(t);
    }

    /** Unmaps the next descriptor's range; after the last, the flush (WCE=0) or the status. */
    static void nextDescriptor(ScsiTask t) {
        ByteBuf p = t.dataOut;
        int bs = t.unit.blockSize;
        while (t.cursor < t.end) {
            int at = p.readerIndex() + 8 + 16 * (int) t.cursor++;
            long blocks = p.getUnsignedInt(at + 8);
            if (blocks != 0) {
                t.unit.device.unmap(p.getLong(at) * bs, blocks * bs, t.io);
                return;
            }
        }
        if (t.fua) {
            SbcCommands.synchronizeCache(t); // WCE=0
            return;
        }
        t.completeGood();
    }
}
