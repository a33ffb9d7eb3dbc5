package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** Text Response BHS, RFC 7143 11.11. Reusable flyweight. */
public final class TextResponseHeader {
    public static final int FLAGS_OFFSET = 1;
    public static final int CONTINUE_BIT = 0x40;
    public static final int LUN_OFFSET = 8;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int TARGET_TRANSFER_TAG_OFFSET = 20;
    public static final int STAT_SN_OFFSET = 24;
    public static final int EXP_CMD_SN_OFFSET = 28;
    public static final int MAX_CMD_SN_OFFSET = 32;

    private ByteBuf buf;

    public TextResponseHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    /** Zeroes the BHS and sets the opcode. */
    public TextResponseHeader init() {
        Bhs.init(buf, Opcode.TEXT_RESPONSE.code(), 0);
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public int dataSegmentLength() {
        return Bhs.dataSegmentLength(buf);
    }

    public boolean finalBit() {
        return Bhs.finalBit(buf);
    }

    public TextResponseHeader finalBit(boolean on) {
        Bhs.flag(buf, Bhs.FLAGS_OFFSET, Bhs.FINAL_BIT, on);
        return this;
    }

    public boolean continueBit() {
        return Bhs.flag(buf, FLAGS_OFFSET, CONTINUE_BIT);
    }

    public TextResponseHeader continueBit(boolean on) {
        Bhs.flag(buf, FLAGS_OFFSET, CONTINUE_BIT, on);
        return this;
    }

    public long lun() {
        return buf.getLong(LUN_OFFSET);
    }

    public TextResponseHeader lun(long lun) {
        buf.setLong(LUN_OFFSET, lun);
        return this;
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    public TextResponseHeader initiatorTaskTag(int itt) {
        buf.setInt(INITIATOR_TASK_TAG_OFFSET, itt);
        return this;
    }

    public int targetTransferTag() {
        return buf.getInt(TARGET_TRANSFER_TAG_OFFSET);
    }

    /** 0xffffffff on the final response; another value when more text follows (C or F=0). */
    public TextResponseHeader targetTransferTag(int ttt) {
        buf.setInt(TARGET_TRANSFER_TAG_OFFSET, ttt);
        return this;
    }

    public int statSN() {
        return buf.getInt(STAT_SN_OFFSET);
    }

    public TextResponseHeader statSN(int statSN) {
        buf.setInt(STAT_SN_OFFSET, statSN);
        return this;
    }

    public int expCmdSN() {
        return buf.getInt(EXP_CMD_SN_OFFSET);
    }

    public TextResponseHeader expCmdSN(int expCmdSN) {
        buf.setInt(EXP_CMD_SN_OFFSET, expCmdSN);
        return this;
    }

    public int maxCmdSN() {
        return buf.getInt(MAX_CMD_SN_OFFSET);
    }

    public TextResponseHeader maxCmdSN(int maxCmdSN) {
        buf.setInt(MAX_CMD_SN_OFFSET, maxCmdSN);
        return this;
    }
}
