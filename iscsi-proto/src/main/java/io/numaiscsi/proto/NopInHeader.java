package io.numaiscsi.proto;

import io.netty.buffer.ByteBuf;

/** NOP-In BHS, RFC 7143 11.19. Reusable flyweight; absolute access, indexes untouched. */
public final class NopInHeader {
    public static final int LUN_OFFSET = 8;
    public static final int INITIATOR_TASK_TAG_OFFSET = 16;
    public static final int TARGET_TRANSFER_TAG_OFFSET = 20;
    public static final int STAT_SN_OFFSET = 24;
    public static final int EXP_CMD_SN_OFFSET = 28;
    public static final int MAX_CMD_SN_OFFSET = 32;

    private ByteBuf buf;

    public NopInHeader wrap(ByteBuf bhs) {
        buf = bhs;
        return this;
    }

    /** Zeroes the BHS and sets the opcode and F bit (always 1). */
    public NopInHeader init() {
        Bhs.init(buf, Opcode.NOP_IN.code(), Bhs.FINAL_BIT);
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public boolean finalBit() {
        return Bhs.finalBit(buf);
    }

    public int dataSegmentLength() {
        return Bhs.dataSegmentLength(buf);
    }

    public long lun() {
        return buf.getLong(LUN_OFFSET);
    }

    public NopInHeader lun(long lun) {
        buf.setLong(LUN_OFFSET, lun);
        return this;
    }

    public int initiatorTaskTag() {
        return buf.getInt(INITIATOR_TASK_TAG_OFFSET);
    }

    /** 0xffffffff for a target-initiated NOP-In (ping). */
    public NopInHeader initiatorTaskTag(int itt) {
        buf.setInt(INITIATOR_TASK_TAG_OFFSET, itt);
        return this;
    }

    public int targetTransferTag() {
        return buf.getInt(TARGET_TRANSFER_TAG_OFFSET);
    }

    /** 0xffffffff when answering a NOP-Out (no reply wanted). */
    public NopInHeader targetTransferTag(int ttt) {
        buf.setInt(TARGET_TRANSFER_TAG_OFFSET, ttt);
        return this;
    }

    public int statSN() {
        return buf.getInt(STAT_SN_OFFSET);
    }

    public NopInHeader statSN(int statSN) {
        buf.setInt(STAT_SN_OFFSET, statSN);
        return this;
    }

    public int expCmdSN() {
        return buf.getInt(EXP_CMD_SN_OFFSET);
    }

    public NopInHeader expCmdSN(int expCmdSN) {
        buf.setInt(EXP_CMD_SN_OFFSET, expCmdSN);
        return this;
    }

    public int maxCmdSN() {
        return buf.getInt(MAX_CMD_SN_OFFSET);
    }

    public NopInHeader maxCmdSN(int maxCmdSN) {
        buf.setInt(MAX_CMD_SN_OFFSET, maxCmdSN);
        return this;
    }
}
