package io.numaiscsi.scsi;

import io.netty.buffer.ByteBuf;

/**
 * What this copy manager accepts in an EXTENDED COPY (LID1) parameter list, as RECEIVE COPY RESULTS OPERATING
 * PARAMETERS reports it (SPC-4 6.18.4), and enforced by {@link CopyParameterList}. Every limit bounds what one command
 * may make the target allocate or do.
 */
final class CopyManagerLimits {
    static final int IDENTIFICATION_TARGET_DESCRIPTOR = 0xE4;
    static final int BLOCK_TO_BLOCK_SEGMENT = 0x02;
    static final int HEADER_LENGTH = 16;
    static final int TARGET_DESCRIPTOR_LENGTH = 32;
    static final int BLOCK_TO_BLOCK_SEGMENT_LENGTH = 28;

    /** Two are what a copy between two units needs; a few more let one command gather from several. */
    static final int MAX_TARGET_DESCRIPTORS = 8;

    static final int MAX_SEGMENT_DESCRIPTORS = 16;
    static final int MAX_DESCRIPTOR_LIST_LENGTH =
            MAX_TARGET_DESCRIPTORS * TARGET_DESCRIPTOR_LENGTH + MAX_SEGMENT_DESCRIPTORS * BLOCK_TO_BLOCK_SEGMENT_LENGTH;
    /** The longest parameter list the decoder lets the transport collect. */
    static final int MAX_PARAMETER_LIST_LENGTH = HEADER_LENGTH + MAX_DESCRIPTOR_LIST_LENGTH;
    /** Bytes one segment may copy: the maximum transfer length of one WRITE, so one command copies at most 512 MiB. */
    static final int MAX_SEGMENT_BYTES = 32 << 20;
    /** Copies one unit runs at once (each holds one {@link #CHUNK_BYTES} buffer); more are refused. */
    static final int MAX_CONCURRENT_COPIES = 16;
    /** Data moves in pieces of at most this size, one piece in flight per copy. */
    static final int CHUNK_BYTES = 1 << 20;

    private CopyManagerLimits() {}

    /** OPERATING PARAMETERS for a copy manager addressed through {@code lu}. */
    static void operatingParameters(LogicalUnit lu, ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0); // AVAILABLE DATA, set below
        out.writeByte(0x01); // SNLID: LIST ID USAGE 11b (no list identifier) is supported
        out.writeZero(3);
        out.writeShort(MAX_TARGET_DESCRIPTORS);
        out.writeShort(MAX_SEGMENT_DESCRIPTORS);
        out.writeInt(MAX_DESCRIPTOR_LIST_LENGTH);
        out.writeInt(MAX_SEGMENT_BYTES);
        out.writeInt(0); // MAXIMUM INLINE DATA LENGTH: no inline data
        out.writeInt(0); // HELD DATA LIMIT: no held data
        out.writeInt(0); // MAXIMUM STREAM DEVICE TRANSFER SIZE: no stream devices
        out.writeShort(0);
        out.writeShort(MAX_CONCURRENT_COPIES); // TOTAL CONCURRENT COPIES
        out.writeByte(MAX_CONCURRENT_COPIES); // MAXIMUM CONCURRENT COPIES
        out.writeByte(Integer.numberOfTrailingZeros(lu.blockSize)); // DATA SEGMENT GRANULARITY (log2)
        out.writeByte(0); // INLINE DATA GRANULARITY
        out.writeByte(0); // HELD DATA GRANULARITY
        out.writeZero(3);
        out.writeByte(2); // IMPLEMENTED DESCRIPTOR LIST LENGTH
        out.writeByte(BLOCK_TO_BLOCK_SEGMENT);
        out.writeByte(IDENTIFICATION_TARGET_DESCRIPTOR);
        out.setInt(start, out.writerIndex() - start - 4);
    }
}
