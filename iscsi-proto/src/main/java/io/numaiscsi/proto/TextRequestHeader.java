package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** Text Request BHS, RFC 7143 11.10. Reusable flyweight. */
public final class TextRequestHeader {
    public static final int FLAGS_OFFSET = 1;
    public static final int CONTINUE_BIT = 0x40;
    public static final int LUN_OFFSET = 8;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int TARGET_TRANSFER_TAG_OFFSET = 20;
    public static final int CMD_SN_OFFSET = 24;
    public static final int EXP_STAT_SN_OFFSET = 28;

    private ByteBuf buf;

    public TextRequestHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public boolean immediate() {
        return Bhs.immediate(buf);
    }

    public boolean finalBit() {
        return Bhs.finalBit(buf);
    }

    public boolean continueBit() {
        return Bhs.flag(buf, FLAGS_OFFSET, CONTINUE_BIT);
    }

    public int dataSegmentLength() {
        return Bhs.dataSegmentLength(buf);
    }

    public long lun() {
        return buf.getLong(LUN_OFFSET);
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    public int targetTransferTag() {
        return buf.getInt(TARGET_TRANSFER_TAG_OFFSET);
    }

    public int cmdSN() {
        return buf.getInt(CMD_SN_OFFSET);
    }

    public int expStatSN() {
        return buf.getInt(EXP_STAT_SN_OFFSET);
    }
}
