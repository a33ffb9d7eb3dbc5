package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;

/**
 * WRITE SAME (10), (16): the Data-Out block (zeros with NDOB) repeated over the range, written in chunks of up to
 * 8 MiB from one pattern buffer; with UNMAP the range is unmapped instead, and a zero block goes to the device's
 * write-zeroes offload where it has one.
 */
final class WriteSame {
    private static final int CHUNK_BYTES = 8 << 20;

    private WriteSame() {}

    static void start(ScsiTask t) {
        LogicalUnit lu = t.unit;
        int bs = lu.blockSize;
        ByteBuf block = t.dataOut;
        if (!t.noDataOutBuffer && (block == null || block.readableBytes() < bs)) {
            t.completeFailed(SenseReason.INVALID_FIELD_IN_CDB);
            return;
        }
        if (t.blocks == 0) {
            t.completeGood(); // zero blocks from the LBA after the last: nothing to the end of the medium
            return;
        }
        boolean zeros = t.noDataOutBuffer || isZero(block, block.readerIndex(), bs);
        if (t.unmapBit) {
            // UNMAP asks for the blocks to be unmapped (SBC-3 5.42: whatever the Data-Out holds); LBPRZ: they read as
            // zeros
            t.continuation = t.fua ? SbcContinuation.FLUSH_NEXT : SbcContinuation.FLUSH;
            lu.device.unmap(t.lba * bs, t.blocks * bs, t.io);
            return;
        }
        if (zeros) {
            t.continuation = t.fua ? SbcContinuation.FLUSH_NEXT : SbcContinuation.FLUSH;
            if (lu.device.writeZeroes(t.lba * bs, t.blocks * bs, t.io)) {
                return;
            }
        }
        int chunkBlocks = (int) Math.min(t.blocks, CHUNK_BYTES / bs);
        ByteBuf pattern = lu.alloc.directBuffer(chunkBlocks * bs, chunkBlocks * bs);
        for (int i = 0; i < chunkBlocks; i++) {
            if (zeros) {
                pattern.writeZero(bs);
            } else {
                pattern.writeBytes(block, block.readerIndex(), bs);
            }
        }
        t.scratch = pattern;
        t.cursor = t.lba;
        t.end = t.lba + t.blocks;
        t.continuation = SbcContinuation.WRITE_SAME_CHUNK;
        nextChunk(t);
    }

    /** Writes the next chunk of the range, or ends the command when the whole range is written. */
    static void nextChunk(ScsiTask t) {
        if (t.cursor >= t.end) {
            t.completeGood();
            return;
        }
        int bs = t.unit.blockSize;
        int blocks = (int) Math.min(t.end - t.cursor, t.scratch.capacity() / bs);
        long offset = t.cursor * bs;
        t.cursor += blocks;
        t.scratch.setIndex(0, blocks * bs);
        t.unit.device.write(offset, t.scratch, t.fua, t.io);
    }

    private static boolean isZero(ByteBuf buf, int from, int length) {
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            if (buf.getLong(from + i) != 0) {
                return false;
            }
        }
        for (; i < length; i++) {
            if (buf.getByte(from + i) != 0) {
                return false;
            }
        }
        return true;
    }
}
