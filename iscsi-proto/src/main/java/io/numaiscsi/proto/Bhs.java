package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/**
 * Fields every Basic Header Segment shares (RFC 7143 11.2.1). Absolute accessors at index 0..47;
 * reader and writer indexes are never moved.
 */
public final class Bhs {
    public static final int LENGTH = 48;

    public static final int OPCODE_OFFSET = 0;
    public static final int FLAGS_OFFSET = 1;
    public static final int TOTAL_AHS_LENGTH_OFFSET = 4;
    public static final int DATA_SEGMENT_LENGTH_OFFSET = 5;
    public static final int LUN_OFFSET = 8;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    /** Target Transfer Tag where the PDU has one (RFC 7143 11.7.4, 11.8, 11.18, 11.19, 11.10). */
    public static final int TARGET_TRANSFER_TAG_OFFSET = 20;
    /** CmdSN in initiator PDUs, StatSN in target PDUs. */
    public static final int CMD_SN_OFFSET = 24;

    public static final int STAT_SN_OFFSET = 24;
    /** ExpStatSN in initiator PDUs, ExpCmdSN in target PDUs. */
    public static final int EXP_STAT_SN_OFFSET = 28;

    public static final int EXP_CMD_SN_OFFSET = 28;
    /** MaxCmdSN in target PDUs. */
    public static final int MAX_CMD_SN_OFFSET = 32;

    public static final int OPCODE_MASK = 0x3f;
    /** Byte 0 bit 6. */
    public static final int IMMEDIATE_BIT = 0x40;
    /** Byte 1 bit 7. */
    public static final int FINAL_BIT = 0x80;
    /** The largest DataSegmentLength the 24-bit field can hold. */
    public static final int MAX_DATA_SEGMENT_LENGTH = 0xffffff;
    /** TotalAHSLength counts 4-byte words in one byte. */
    public static final int MAX_AHS_LENGTH = 255 * 4;
    /** ITT / TTT value meaning "none" (RFC 7143 11.2.1.8). */
    public static final int RESERVED_TAG = 0xffffffff;

    private Bhs() {}

    public static int opcode(ByteBuf bhs) {
        return bhs.getByte(OPCODE_OFFSET) & OPCODE_MASK;
    }

    public static boolean immediate(ByteBuf bhs) {
        return (bhs.getByte(OPCODE_OFFSET) & IMMEDIATE_BIT) != 0;
    }

    public static boolean finalBit(ByteBuf bhs) {
        return (bhs.getByte(FLAGS_OFFSET) & FINAL_BIT) != 0;
    }

    /** TotalAHSLength in bytes (the field counts words). */
    public static int totalAhsLength(ByteBuf bhs) {
        return bhs.getUnsignedByte(TOTAL_AHS_LENGTH_OFFSET) << 2;
    }

    public static int dataSegmentLength(ByteBuf bhs) {
        return bhs.getUnsignedMedium(DATA_SEGMENT_LENGTH_OFFSET);
    }

    public static long lun(ByteBuf bhs) {
        return bhs.getLong(LUN_OFFSET);
    }

    public static int initiatorTaskTag(ByteBuf bhs) {
        return bhs.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    public static void setDataSegmentLength(ByteBuf bhs, int length) {
        if (length < 0 || length > MAX_DATA_SEGMENT_LENGTH) {
            throw new IllegalArgumentException("DataSegmentLength out of range: " + length);
        }
        bhs.setMedium(DATA_SEGMENT_LENGTH_OFFSET, length);
    }

    /** Sets TotalAHSLength from {@code bytes}, the AHS length in bytes: a multiple of 4 up to 1020. */
    public static void setTotalAhsLength(ByteBuf bhs, int bytes) {
        if (bytes < 0 || bytes > MAX_AHS_LENGTH || (bytes & 3) != 0) {
            throw new IllegalArgumentException("TotalAHSLength must be a multiple of 4 up to 1020: " + bytes);
        }
        bhs.setByte(TOTAL_AHS_LENGTH_OFFSET, bytes >>> 2);
    }

    // ---- helpers for the per-opcode flyweights ----

    /** Zeroes the BHS, makes its 48 bytes readable (indexes 0 and 48) and writes byte 0 and 1. */
    static void init(ByteBuf bhs, int byte0, int byte1) {
        bhs.setIndex(0, 0);
        bhs.ensureWritable(LENGTH);
        bhs.setZero(0, LENGTH);
        bhs.setIndex(0, LENGTH);
        bhs.setByte(OPCODE_OFFSET, byte0);
        bhs.setByte(FLAGS_OFFSET, byte1);
    }

    static boolean flag(ByteBuf bhs, int offset, int mask) {
        return (bhs.getByte(offset) & mask) != 0;
    }

    static void flag(ByteBuf bhs, int offset, int mask, boolean on) {
        int b = bhs.getByte(offset);
        bhs.setByte(offset, on ? b | mask : b & ~mask);
    }

    /** Writes {@code value} into the bits of {@code mask} (mask must be contiguous, shift = its lowest bit). */
    static void bits(ByteBuf bhs, int offset, int mask, int shift, int value) {
        int b = bhs.getByte(offset);
        bhs.setByte(offset, (b & ~mask) | ((value << shift) & mask));
    }

    static long getIsid(ByteBuf bhs, int offset) {
        return (bhs.getUnsignedInt(offset) << 16) | bhs.getUnsignedShort(offset + 4);
    }

    static void setIsid(ByteBuf bhs, int offset, long isid) {
        bhs.setInt(offset, (int) (isid >>> 16));
        bhs.setShort(offset + 4, (int) isid);
    }
}
